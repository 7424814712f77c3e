//! `pattern`: JSON Schema's regular expressions (ECMA-262) on the `regex` crate.
//!
//! The `regex` crate matches in linear time whatever the text, so a model's value cannot make a
//! check slow. Where the two dialects differ:
//!
//! - `\d`, `\w`, `\s` and `\b` are ECMA's (ASCII digits, ASCII word characters, ASCII word
//!   boundaries; `\s` is Unicode white space in both), translated before compiling;
//! - look-around (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`) and back-references (`\1`) are not
//!   supported: a schema that uses them fails when its tool is loaded, naming the pattern;
//! - `.` does not match `\n` in either, but does match `\r`, U+2028 and U+2029 here.
//!
//! A pattern is not anchored, as in JSON Schema: `"[a-z]"` matches any text with a lowercase
//! letter in it; write `^…$` for the whole text.

use regex::Regex;
use serde_json::Value;

use super::compile::{CompileOnce, Compiled};
use super::member::each_keyword;

/// Every pattern compiled so far.
static PATTERNS: CompileOnce<Regex> = CompileOnce::new();

/// The compiled form of `pattern`, or why it cannot be compiled.
pub(crate) fn compiled(pattern: &str) -> Compiled<Regex> {
    PATTERNS.get(pattern, || {
        Regex::new(&ecma_to_regex(pattern)).map_err(|error| match error {
            regex::Error::Syntax(text) => text
                .lines()
                .last()
                .unwrap_or("a syntax error")
                .trim_start_matches("error: ")
                .to_owned(),
            other => other.to_string(),
        })
    })
}

/// Whether `text` matches `pattern`. A pattern that cannot be compiled was refused when its
/// tool was loaded; here it constrains nothing.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    compiled(pattern).map_or(true, |regex| regex.is_match(text))
}

/// Compiles every `pattern` in `schema`; the first that cannot be compiled, with the reason.
pub(crate) fn check_patterns(schema: &Value) -> Result<(), String> {
    each_keyword(schema, "pattern", &mut |pattern| {
        compiled(pattern).map(drop).map_err(|reason| {
            format!(
                "its pattern {} cannot be used: {reason}",
                tool_text::quote(pattern)
            )
        })
    })
}

/// ECMA-262's class escapes in the `regex` crate's syntax: ASCII `\d`, `\w` and `\b`.
fn ecma_to_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            match c {
                '[' => in_class = true,
                ']' => in_class = false,
                _ => {}
            }
            out.push(c);
            continue;
        }
        match chars.next() {
            // In a class, ECMA's `\b` is a backspace.
            Some('b') if in_class => out.push_str("\\x08"),
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_escapes_are_ecmas_ascii_ones() {
        assert!(matches(r"^\d+$", "123"));
        assert!(
            !matches(r"^\d+$", "١٢٣"),
            "Arabic-Indic digits are not ECMA digits"
        );
        assert!(matches(r"^\w+$", "a_1"));
        assert!(!matches(r"^\w+$", "é"));
        assert!(matches(r"^[\d-]+$", "1-2"));
        assert!(matches(r"^\\d$", r"\d"), "an escaped backslash stays one");
        assert!(matches("[a-z]", "ABCa"), "patterns are not anchored");
    }

    #[test]
    fn look_around_is_refused_with_the_reason() {
        let error = check_patterns(&serde_json::json!({"pattern": "a(?=b)"})).unwrap_err();
        assert!(
            error.starts_with(r#"its pattern "a(?=b)" cannot be used: "#),
            "{error}"
        );
        assert!(
            check_patterns(&serde_json::json!({"properties": {"a": {"pattern": "^x$"}}})).is_ok()
        );
    }
}

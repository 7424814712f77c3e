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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use serde_json::Value;

/// A pattern compiled, or why it cannot be.
type Compiled = Result<Arc<Regex>, String>;

/// Every pattern compiled so far: tools' schemas hold a handful, each compiled once.
fn cache() -> &'static Mutex<HashMap<String, Compiled>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// The compiled form of `pattern`, or why it cannot be compiled.
pub(crate) fn compiled(pattern: &str) -> Compiled {
    let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry(pattern.to_owned())
        .or_insert_with(|| {
            Regex::new(&ecma_to_regex(pattern))
                .map(Arc::new)
                .map_err(|error| match error {
                    regex::Error::Syntax(text) => text
                        .lines()
                        .last()
                        .unwrap_or("a syntax error")
                        .trim_start_matches("error: ")
                        .to_owned(),
                    other => other.to_string(),
                })
        })
        .clone()
}

/// Whether `text` matches `pattern`. A pattern that cannot be compiled was refused when its
/// tool was loaded; here it constrains nothing.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    compiled(pattern).map_or(true, |regex| regex.is_match(text))
}

/// Compiles every `pattern` in `schema`; the first that cannot be compiled, with the reason.
pub(crate) fn check_patterns(schema: &Value) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(pattern)) = object.get("pattern") {
                compiled(pattern).map_err(|reason| {
                    format!(
                        "its pattern {} cannot be used: {reason}",
                        crate::text::quote(pattern)
                    )
                })?;
            }
            object.values().try_for_each(check_patterns)
        }
        Value::Array(items) => items.iter().try_for_each(check_patterns),
        _ => Ok(()),
    }
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

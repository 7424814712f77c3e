//! Where in a call's arguments the typed parse stopped: the innermost array or object around a
//! byte of the text, with its path and its own text, so that a refusal reads that part again
//! rather than the whole arguments.
//!
//! The scan checks that the text is well-formed JSON as it goes, so that it is the arguments'
//! only reading after the typed parse's. Malformed text, and anything this cannot be sure of,
//! make it answer `None`, and the caller reads the whole arguments as before: a key written
//! with escapes anywhere on the path, a key repeated in any object (the whole value keeps the
//! last one, and the part would not agree with it), the innermost container being the arguments
//! themselves; and what reading the whole arguments as a value might refuse where a syntax check
//! does not: deep nesting (the parser's recursion limit), `\u` escapes (a lone surrogate),
//! numbers with an exponent or many digits (out of range).

use tool_text::string_stop;

/// A step of a path into the arguments.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Segment<'a> {
    /// An object's member, by its name as written (no escapes).
    Key(&'a str),
    /// An array's item, from 0.
    Index(usize),
}

/// The innermost array or object around a byte: the steps from the arguments to it, and its
/// text.
#[derive(Debug, PartialEq, Eq)]
pub struct Located<'a> {
    pub(crate) segments: Vec<Segment<'a>>,
    /// The container's text, as the arguments hold it.
    pub text: &'a str,
}

/// An array or object open at the scan's position.
struct Frame<'a> {
    open: usize,
    object: bool,
    /// The item's index (arrays), or the member's name once read (objects).
    index: usize,
    key: Option<&'a str>,
    /// Where its member names start in the scan's list of names (an object's names follow its
    /// nested objects' names, which are dropped when those close).
    keys: usize,
    /// Whether a member name had escapes.
    escaped: bool,
}

/// Nesting past this is left to the whole reading, whose limit is 128 levels.
const MAX_DEPTH: usize = 64;

/// A number longer than this is left to the whole reading (which may find it out of range).
const MAX_NUMBER_BYTES: usize = 15;

/// What the grammar allows next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// A value: the start, after a `:`, after an array's `,`.
    Value,
    /// A value or `]`: right after `[`.
    ValueOrClose,
    /// A member name or `}`: right after `{`.
    NameOrClose,
    /// A member name: after an object's `,`.
    Name,
    /// The `:` after a member name.
    Colon,
    /// A `,` or the container's close: after a value.
    CommaOrClose,
    /// Nothing but white space: after the whole value.
    End,
}

/// The innermost array or object of `text` that holds byte `at`, unless it is `text` as a whole
/// or anything makes the answer unsure (see the module's docs). `None` too when `text` is not
/// well-formed JSON, which the scan checks as it goes: that answer is the whole reading's to
/// give.
pub fn container_at(text: &str, at: usize) -> Option<Located<'_>> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame<'_>> = Vec::new();
    // The member names of the open objects, each object's after its parent's.
    let mut keys: Vec<&str> = Vec::new();
    let mut found: Option<Located<'_>> = None;
    let mut next = Next::Value;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
            i += 1;
            continue;
        }
        let value = matches!(next, Next::Value | Next::ValueOrClose);
        match byte {
            open @ (b'{' | b'[') => {
                if !value || stack.len() == MAX_DEPTH {
                    return None;
                }
                stack.push(Frame {
                    open: i,
                    object: open == b'{',
                    index: 0,
                    key: None,
                    keys: keys.len(),
                    escaped: false,
                });
                next = match open {
                    b'{' => Next::NameOrClose,
                    _ => Next::ValueOrClose,
                };
                i += 1;
            }
            close @ (b'}' | b']') => {
                let frame = stack.pop()?;
                let allowed = match frame.object {
                    true => close == b'}' && matches!(next, Next::NameOrClose | Next::CommaOrClose),
                    false => {
                        close == b']' && matches!(next, Next::ValueOrClose | Next::CommaOrClose)
                    }
                };
                if !allowed || frame.object && (frame.escaped || repeats(&keys[frame.keys..])) {
                    return None;
                }
                keys.truncate(frame.keys);
                if found.is_none() && frame.open <= at && at <= i {
                    if stack.is_empty() {
                        return None;
                    }
                    let mut segments = Vec::with_capacity(stack.len());
                    for parent in &stack {
                        segments.push(match parent.object {
                            true => Segment::Key(parent.key?),
                            false => Segment::Index(parent.index),
                        });
                    }
                    found = Some(Located {
                        segments,
                        text: &text[frame.open..=i],
                    });
                }
                next = after_value(&stack);
                i += 1;
            }
            b'"' => {
                let name = matches!(next, Next::Name | Next::NameOrClose);
                if !value && !name {
                    return None;
                }
                let start = i + 1;
                let mut end = start;
                let mut escaped = false;
                loop {
                    end = string_stop(bytes, end)?;
                    match bytes[end] {
                        b'"' => break,
                        b'\\' => match bytes.get(end + 1)? {
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                            // `\u` (a lone surrogate) is left to the whole reading, as is any
                            // escape JSON does not have.
                            _ => return None,
                        },
                        // A control character, which JSON has escaped in strings.
                        _ => return None,
                    }
                    escaped = true;
                    end += 2;
                }
                if name {
                    // A string in an object before its colon is a member's name.
                    let frame = stack.last_mut()?;
                    let key = text.get(start..end)?;
                    frame.escaped |= escaped;
                    frame.key = Some(key);
                    keys.push(key);
                    next = Next::Colon;
                } else {
                    next = after_value(&stack);
                }
                i = end + 1;
            }
            b':' => {
                if next != Next::Colon {
                    return None;
                }
                next = Next::Value;
                i += 1;
            }
            b',' => {
                let frame = stack.last_mut()?;
                if next != Next::CommaOrClose {
                    return None;
                }
                frame.index += 1;
                frame.key = None;
                next = match frame.object {
                    true => Next::Name,
                    false => Next::Value,
                };
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                if !value {
                    return None;
                }
                let start = i;
                i = number_end(bytes, i)?;
                if i - start > MAX_NUMBER_BYTES {
                    return None;
                }
                next = after_value(&stack);
            }
            b't' | b'f' | b'n' => {
                let literal: &[u8] = match byte {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !value || !bytes[i..].starts_with(literal) {
                    return None;
                }
                i += literal.len();
                next = after_value(&stack);
            }
            _ => return None,
        }
    }
    if next != Next::End {
        return None;
    }
    found
}

/// What may follow a value closed with `stack` open.
fn after_value(stack: &[Frame<'_>]) -> Next {
    match stack.is_empty() {
        true => Next::End,
        false => Next::CommaOrClose,
    }
}

/// The end of the number starting at `start`, written as JSON writes one without an exponent
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`); `None` for anything else, exponents included (the whole
/// reading may find them out of range).
fn number_end(bytes: &[u8], start: usize) -> Option<usize> {
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .position(|byte| !byte.is_ascii_digit())
            .map_or(bytes.len(), |count| from + count)
    };
    let mut i = start + usize::from(bytes[start] == b'-');
    match bytes.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    match bytes.get(i) {
        Some(b'e' | b'E' | b'.' | b'0'..=b'9' | b'-' | b'+') => None,
        _ => Some(i),
    }
}

/// Whether a name is in `keys` twice.
fn repeats(keys: &[&str]) -> bool {
    if keys.len() <= 8 {
        return keys
            .iter()
            .enumerate()
            .any(|(index, key)| keys[..index].contains(key));
    }
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).any(|pair| pair[0] == pair[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'a>(text: &'a str, marker: &str) -> Option<Located<'a>> {
        container_at(text, text.find(marker).unwrap())
    }

    #[test]
    fn the_innermost_container_is_found_with_its_path() {
        let text = r#"{"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "done"}], "x": 1}"#;
        let located = at(text, "done").unwrap();
        assert_eq!(located.segments, [Segment::Key("todos"), Segment::Index(1)]);
        assert_eq!(located.text, r#"{"content": "b", "status": "done"}"#);
        // Its closing brace is its own.
        let close = text.find("\"}]").unwrap() + 1;
        assert_eq!(container_at(text, close).unwrap().text, located.text);
        // Between the items, the array holds the byte.
        let located = at(text, ", {\"content\": \"b\"").unwrap();
        assert_eq!(located.segments, [Segment::Key("todos")]);
        assert!(located.text.starts_with("[{") && located.text.ends_with("}]"));
    }

    #[test]
    fn text_serde_refuses_is_never_located() {
        let seeds = [
            r#"{"todos": [{"content": "a\"b", "status": "pending"}, {"content": "c", "status": "x"}]}"#,
            r#"{"a": [1, -2.5, {"b": [true, false, null]}], "c": {"d": "é😀"}}"#,
            r#" { "a" : [ [ ] , { } , "" ] , "b" : 0 } "#,
        ];
        let alphabet = b"{}[]\",:0123456789.-+eE tfnrul\\/ax\t\n";
        let mut rng = super::super::rng::Rng(0x2545_f491_4f6c_dd1d);
        let (mut refused, mut located) = (0, 0);
        for _ in 0..20_000 {
            let mut text = seeds[rng.below(seeds.len())].as_bytes().to_vec();
            for _ in 0..=rng.below(3) {
                let at = rng.below(text.len() + 1);
                match rng.below(3) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 if at < text.len() => text[at] = alphabet[rng.below(alphabet.len())],
                    _ => text.insert(at, alphabet[rng.below(alphabet.len())]),
                }
            }
            let Ok(text) = String::from_utf8(text) else {
                continue;
            };
            let well_formed = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            for _ in 0..4 {
                let at = rng.below(text.len().max(1));
                let found = container_at(&text, at);
                if !well_formed {
                    refused += 1;
                    assert_eq!(found, None, "{text:?} at {at}");
                } else if found.is_some() {
                    located += 1;
                }
            }
        }
        // Both kinds of text come up often.
        assert!(refused > 20_000 && located > 5_000, "{refused} {located}");
    }

    #[test]
    fn what_is_unsure_is_none() {
        // The arguments as a whole.
        assert_eq!(at(r#"{"a": 1}"#, "1"), None);
        // A name written twice, anywhere.
        assert_eq!(at(r#"{"a": [{"b": 1}], "a": []}"#, "1"), None);
        assert_eq!(at(r#"{"a": [{"b": 1, "b": 2}]}"#, "1"), None);
        // Escapes in a name.
        assert_eq!(at(r#"{"\n": [{"b": 1}]}"#, "1"), None);
        assert_eq!(at(r#"{"a": [{"\"b": 1}]}"#, "1"), None);
        // What the whole reading may refuse: \u escapes, deep nesting, large numbers.
        assert_eq!(at(r#"{"a": [{"b": "\ud800", "c": 1}]}"#, "1"), None);
        let deep = format!(r#"{{"a": [{}1{}]}}"#, "[".repeat(70), "]".repeat(70));
        assert_eq!(at(&deep, "1"), None);
        assert_eq!(at(r#"{"a": [{"b": 1e400, "c": 1}]}"#, "\"c"), None);
        assert_eq!(
            at(r#"{"a": [{"b": 1234567890123456, "c": 1}]}"#, "\"c"),
            None
        );
        assert!(at(r#"{"a": [{"b": -12.5, "c": 1}]}"#, "1}").is_some());
        // JSON that is not well-formed is the whole reading's to refuse; written well, each
        // case below would be located.
        assert!(
            at(
                r#"{"a": [{"b": 1, "c": 1}], "d": {"e": [1, "x"]}}"#,
                "\"c\""
            )
            .is_some()
        );
        for malformed in [
            r#"{"a": [{"b": 1, "c": 1},]}"#,
            r#"{"a": [{"b": 1, "c": 1}], }"#,
            r#"{"a": [{"b": 1 "c": 1}]}"#,
            r#"{"a": [{"b" 1, "c": 1}]}"#,
            r#"{"a": [{"b": 01, "c": 1}]}"#,
            r#"{"a": [{"b": 1., "c": 1}]}"#,
            r#"{"a": [{"b": -, "c": 1}]}"#,
            r#"{"a": [{"b": tru, "c": 1}]}"#,
            r#"{"a": [{"b": nulls, "c": 1}]}"#,
            r#"{"a": [{"b": "x\q", "c": 1}]}"#,
            "{\"a\": [{\"b\": \"\t\", \"c\": 1}]}",
            r#"{"a": [{"b": 'x', "c": 1}]}"#,
            r#"{"a": [{"b": 1, "c": 1}]} x"#,
            r#"{"a": [{"b": 1, "c": 1}]}}"#,
            r#"{"a": [{"b": 1, "c": 1}], "d": "#,
            r#"{"a": [{"b": 1, "c": 1}], "d": "x"#,
            r#"{"a": [{"b": 1, "c": 1}], "d": [}"#,
            r#"{"a": [{"b": 1, "c": 1}], 1: 2}"#,
            r#"{"a": [{"b": 1, "c": 1}], "d": {"e"}}"#,
        ] {
            assert!(
                serde_json::from_str::<serde::de::IgnoredAny>(malformed).is_err(),
                "{malformed}"
            );
            assert_eq!(at(malformed, "\"c\""), None, "{malformed}");
        }
        // What is well-formed is read through, white space and literals too.
        let text =
            "{\"a\": [ {\"b\" :\ttrue,\r\n\"c\": 1, \"d\": [null, false, 0, -0.5, \"\\\"\"]} ] }\n";
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
        assert_eq!(
            at(text, "1,").unwrap().segments,
            [Segment::Key("a"), Segment::Index(0)]
        );
        // Escapes in a value are fine, and so are brackets in strings.
        let text = r#"{"a": [{"b": "x\"]}", "c": 1}]}"#;
        let located = at(text, "1}").unwrap();
        assert_eq!(located.segments, [Segment::Key("a"), Segment::Index(0)]);
        assert_eq!(located.text, r#"{"b": "x\"]}", "c": 1}"#);
    }
}

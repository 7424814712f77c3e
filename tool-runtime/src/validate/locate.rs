//! Where in a call's arguments the typed parse stopped: the innermost array or object around a
//! byte of the text, with its path and its own text, so that a refusal reads that part again
//! rather than the whole arguments.
//!
//! The text must be well-formed JSON (the caller checks it first). Anything this cannot be sure
//! of makes it answer `None`, and the caller reads the whole arguments as before: a key written
//! with escapes anywhere on the path, a key repeated in any object (the whole value keeps the
//! last one, and the part would not agree with it), the innermost container being the arguments
//! themselves; and what reading the whole arguments as a value might refuse where a syntax check
//! does not: deep nesting (the parser's recursion limit), `\u` escapes (a lone surrogate),
//! numbers with an exponent or many digits (out of range).

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
pub(crate) struct Located<'a> {
    pub(crate) segments: Vec<Segment<'a>>,
    pub(crate) text: &'a str,
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

/// The innermost array or object of `text` that holds byte `at`, unless it is `text` as a whole
/// or anything makes the answer unsure (see the module's docs).
pub(crate) fn container_at(text: &str, at: usize) -> Option<Located<'_>> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame<'_>> = Vec::new();
    // The member names of the open objects, each object's after its parent's.
    let mut keys: Vec<&str> = Vec::new();
    let mut found: Option<Located<'_>> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            open @ (b'{' | b'[') => {
                if stack.len() == MAX_DEPTH {
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
                i += 1;
            }
            b'}' | b']' => {
                let frame = stack.pop()?;
                if frame.object && (frame.escaped || repeats(&keys[frame.keys..])) {
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
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut end = start;
                let mut escaped = false;
                while let Some(offset) =
                    memchr::memchr2(b'"', b'\\', &bytes[end.min(bytes.len())..])
                {
                    end += offset;
                    if bytes[end] == b'"' {
                        break;
                    }
                    if bytes.get(end + 1) == Some(&b'u') {
                        return None;
                    }
                    escaped = true;
                    end += 2;
                }
                // A string in an object before its colon is a member's name.
                if let Some(frame) = stack.last_mut()
                    && frame.object
                    && frame.key.is_none()
                {
                    let key = text.get(start..end)?;
                    frame.escaped |= escaped;
                    frame.key = Some(key);
                    keys.push(key);
                }
                i = end + 1;
            }
            b',' => {
                if let Some(frame) = stack.last_mut() {
                    frame.index += 1;
                    frame.key = None;
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b'.' | b'0'..=b'9') {
                    i += 1;
                }
                if i - start > MAX_NUMBER_BYTES || matches!(bytes.get(i), Some(b'e' | b'E')) {
                    return None;
                }
            }
            _ => i += 1,
        }
    }
    found
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
        // Escapes in a value are fine, and so are brackets in strings.
        let text = r#"{"a": [{"b": "x\"]}", "c": 1}]}"#;
        let located = at(text, "1}").unwrap();
        assert_eq!(located.segments, [Segment::Key("a"), Segment::Index(0)]);
        assert_eq!(located.text, r#"{"b": "x\"]}", "c": 1}"#);
    }
}

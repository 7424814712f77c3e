//! Reading JSON text by hand where serde's machinery would cost more than the question asked:
//! a cursor over text the typed parse has already accepted ([`Cursor`]), which skips what nobody
//! checks and stops at anything unexpected (where a string ends is
//! [`tool_text::string_stop`]'s to say).

use tool_text::string_stop;

/// A position in JSON text the typed parse has accepted, so well-formed: each reading answers
/// `None` at anything unexpected rather than explain it, and the caller reads the text with
/// serde instead.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(super) fn new(text: &'a str) -> Self {
        Cursor { text, at: 0 }
    }

    /// The next byte that is not white space, not taken.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(byte) = bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(*byte);
            }
            self.at += 1;
        }
        None
    }

    /// Takes `byte` if it is next.
    #[inline]
    pub(super) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Where the cursor is, as a byte offset.
    pub(super) fn offset(&self) -> usize {
        self.at
    }

    /// The text from `start` to the cursor.
    pub(super) fn since(&self, start: usize) -> Option<&'a str> {
        self.text.get(start..self.at)
    }

    /// Takes a string: its text between the quotes, unescaped (a string with escapes is
    /// unescaped by serde_json).
    pub(super) fn string(&mut self) -> Option<std::borrow::Cow<'a, str>> {
        let (start, escaped) = self.string_span()?;
        match escaped {
            false => self.text.get(start..self.at - 1).map(Into::into),
            true => serde_json::from_str(self.text.get(start - 1..self.at)?).ok(),
        }
    }

    /// Takes a string without reading what it says.
    fn skip_string(&mut self) -> Option<()> {
        self.string_span().map(drop)
    }

    /// Takes a string, leaving the cursor after its closing quote: where its text starts, and
    /// whether it has escapes.
    fn string_span(&mut self) -> Option<(usize, bool)> {
        self.eat(b'"')?;
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut escaped = false;
        loop {
            let stop = string_stop(bytes, self.at)?;
            match bytes[stop] {
                b'"' => {
                    self.at = stop + 1;
                    return Some((start, escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.at = stop + 2;
                }
                _ => return None,
            }
        }
    }

    /// Takes a number, a literal, or a string, array or object whole, reading no more of it
    /// than where it ends.
    pub(super) fn skip_value(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *bytes.get(self.at)? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                let start = self.at;
                while bytes.get(self.at).is_some_and(|byte| {
                    !matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\t' | b'\r')
                }) {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_reads_values_and_skips_them_whole() {
        let text = r#" {"a" : [1, {"b": "x\"]}"}, -2.5e3], "c\u0041": "y", "d": true} "#;
        let mut cursor = Cursor::new(text);
        cursor.eat(b'{').unwrap();
        assert_eq!(cursor.string().unwrap(), "a");
        cursor.eat(b':').unwrap();
        let start = cursor.offset() + 1;
        cursor.skip_value().unwrap();
        assert_eq!(
            cursor.since(start).unwrap(),
            r#"[1, {"b": "x\"]}"}, -2.5e3]"#
        );
        cursor.eat(b',').unwrap();
        assert_eq!(cursor.string().unwrap(), "cA");
        cursor.eat(b':').unwrap();
        cursor.skip_value().unwrap();
        cursor.eat(b',').unwrap();
        cursor.string().unwrap();
        cursor.eat(b':').unwrap();
        let start = cursor.offset() + 1;
        cursor.skip_value().unwrap();
        assert_eq!(cursor.since(start).unwrap(), "true");
        cursor.eat(b'}').unwrap();
        assert_eq!(cursor.peek(), None);
        // What ends too soon is None, not a panic.
        for cut in 0..text.len() {
            let mut cursor = Cursor::new(&text[..cut]);
            let _ = cursor.skip_value();
        }
    }
}

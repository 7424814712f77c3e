//! Server-sent events from a blocking reader: the framing of every provider's streamed
//! responses, as the HTML standard defines it (lines ending in `\n`, `\r\n` or `\r`, a
//! byte-order mark at the start, `event:` and multi-line `data:` fields, `:` comments, an event
//! ending at a blank line, an unfinished one dropped at the end of the stream).
//!
//! Events come out as soon as their bytes are read, each byte is looked at once however the
//! stream is split into reads (one line of any length costs what its bytes cost), and the
//! stream is bounded: at most [`Events::max_bytes`] in all and [`Events::max_event_bytes`] in
//! one event (its lines while they come, its data), each an error when passed, so a provider that
//! never ends a line, an event or the stream cannot grow the host without end.
//!
//! ```
//! let body = "event: ping\ndata: {\"a\":\ndata: 1}\n\n: a comment\ndata: [DONE]\n\n";
//! let events: Vec<_> = tool_agent::sse::events(body.as_bytes())
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! assert_eq!(events[0].event, "ping");
//! assert_eq!(events[0].data, "{\"a\":\n1}");
//! assert_eq!(events[1].event, "message");
//! assert_eq!(events[1].data, "[DONE]");
//!
//! let endless = "data: x\n".repeat(100);
//! let error = tool_agent::sse::events(endless.as_bytes())
//!     .max_event_bytes(64)
//!     .find_map(Result::err)
//!     .unwrap();
//! assert_eq!(error.to_string(), "an event is longer than the 64 bytes one may have");
//! ```

use std::io::{self, Read};

/// The most bytes a stream may have, by default: as much as a response body.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The most bytes one event (or one of its lines) may have, by default.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// The size of each read.
const READ_BYTES: usize = 16 * 1024;
/// A line buffer grown past this for one long line is given back after it.
const KEEP_LINE_CAPACITY: usize = 64 * 1024;

/// One event: its name (`message` when the stream gave none) and its data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Event {
    /// The `event:` field, or `message`.
    pub event: String,
    /// The `data:` fields, joined with `\n`.
    pub data: String,
}

/// A stream that could not be read as server-sent events.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// Reading the body failed (a connection cut, a timeout).
    #[error("reading the stream failed: {0}")]
    Read(#[from] io::Error),
    /// The bytes are not UTF-8.
    #[error("the stream is not UTF-8")]
    NotUtf8,
    /// The stream went on past [`Events::max_bytes`].
    #[error("the stream is longer than the {0} bytes a response may have")]
    TooLong(u64),
    /// One event (or one of its lines) went on past [`Events::max_event_bytes`].
    #[error("an event is longer than the {0} bytes one may have")]
    EventTooLong(usize),
}

/// The events of `reader`'s stream, in order, each as soon as its bytes are read, within the
/// default bounds ([`MAX_BYTES`], [`MAX_EVENT_BYTES`]).
pub fn events<R: Read>(reader: R) -> Events<R> {
    Events {
        reader,
        buffer: vec![0; READ_BYTES].into_boxed_slice(),
        start: 0,
        end: 0,
        line: Vec::new(),
        after_cr: false,
        first_line: true,
        event: String::new(),
        data: String::new(),
        has_data: false,
        read: 0,
        max_bytes: MAX_BYTES,
        max_event_bytes: MAX_EVENT_BYTES,
        done: false,
    }
}

/// The events of a stream: an iterator of [`Event`]s that ends with the stream, or after its
/// first error.
#[derive(Debug)]
pub struct Events<R> {
    reader: R,
    buffer: Box<[u8]>,
    /// The part of `buffer` read and not yet looked at.
    start: usize,
    end: usize,
    /// The current line, until its end comes.
    line: Vec<u8>,
    /// The last line ended in `\r`: a `\n` right after belongs to it.
    after_cr: bool,
    /// No line has ended yet (a byte-order mark may open it).
    first_line: bool,
    /// The event being read.
    event: String,
    data: String,
    has_data: bool,
    read: u64,
    max_bytes: u64,
    max_event_bytes: usize,
    done: bool,
}

impl<R> Events<R> {
    /// At most `bytes` in the whole stream.
    #[must_use]
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// At most `bytes` in one event: in any one of its lines, and in its data.
    #[must_use]
    pub fn max_event_bytes(mut self, bytes: usize) -> Self {
        self.max_event_bytes = bytes;
        self
    }

    fn fail(&mut self, error: SseError) -> Option<Result<Event, SseError>> {
        self.done = true;
        Some(Err(error))
    }

    /// Takes in one whole line (without its end); the event it completes, if any.
    fn take_line(&mut self) -> Result<Option<Event>, SseError> {
        let mut line = &self.line[..];
        if std::mem::take(&mut self.first_line) {
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        let line = std::str::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
        let event = if line.is_empty() {
            let name = std::mem::take(&mut self.event);
            let data = std::mem::take(&mut self.data);
            std::mem::take(&mut self.has_data).then(|| Event {
                event: if name.is_empty() {
                    "message".to_owned()
                } else {
                    name
                },
                data,
            })
        } else {
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "event" => value.clone_into(&mut self.event),
                "data" => {
                    if self.data.len() + value.len() + 1 > self.max_event_bytes {
                        return Err(SseError::EventTooLong(self.max_event_bytes));
                    }
                    if std::mem::replace(&mut self.has_data, true) {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                }
                // Comments (an empty field), `id`, `retry` and unknown fields.
                _ => {}
            }
            None
        };
        if self.line.capacity() > KEEP_LINE_CAPACITY {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
        Ok(event)
    }
}

impl<R: Read> Iterator for Events<R> {
    type Item = Result<Event, SseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            if self.start == self.end {
                let read = loop {
                    match self.reader.read(&mut self.buffer) {
                        Ok(read) => break read,
                        Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                        Err(error) => return self.fail(SseError::Read(error)),
                    }
                };
                if read == 0 {
                    // An event without its blank line is dropped, as the standard says.
                    self.done = true;
                    return None;
                }
                self.read += read as u64;
                if self.read > self.max_bytes {
                    return self.fail(SseError::TooLong(self.max_bytes));
                }
                (self.start, self.end) = (0, read);
            }
            if std::mem::take(&mut self.after_cr) && self.buffer[self.start] == b'\n' {
                self.start += 1;
                continue;
            }
            let unread = &self.buffer[self.start..self.end];
            let line_end = unread.iter().position(|&b| b == b'\n' || b == b'\r');
            let piece = &unread[..line_end.unwrap_or(unread.len())];
            if self.line.len() + piece.len() > self.max_event_bytes {
                return self.fail(SseError::EventTooLong(self.max_event_bytes));
            }
            self.line.extend_from_slice(piece);
            let Some(at) = line_end else {
                self.start = self.end;
                continue;
            };
            self.after_cr = unread[at] == b'\r';
            self.start += at + 1;
            match self.take_line() {
                Ok(Some(event)) => return Some(Ok(event)),
                Ok(None) => {}
                Err(error) => return self.fail(error),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns its bytes `size` at a time.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn all(bytes: &[u8], size: usize) -> Vec<(String, String)> {
        events(Trickle(bytes, size))
            .map(|event| {
                let event = event.unwrap();
                (event.event, event.data)
            })
            .collect()
    }

    #[test]
    fn the_standards_framing_however_the_bytes_are_split() {
        let body = "\u{feff}: comment\r\nevent: a\r\ndata: one\r\ndata:two\r\n\r\n\
                    data: [DONE]\r\rdata\n\nid: 7\nretry: 10\nunknown: x\n\n\
                    data:  spaced\n\ndata: cut";
        let expected = [
            ("a", "one\ntwo"),
            ("message", "[DONE]"),
            ("message", ""),
            ("message", " spaced"),
        ]
        .map(|(event, data)| (event.to_owned(), data.to_owned()));
        for size in [1, 2, 3, 7, 4096] {
            assert_eq!(all(body.as_bytes(), size), expected, "{size}");
        }
        // A byte-order mark only at the start.
        assert_eq!(all("data: \u{feff}x\n\n".as_bytes(), 1)[0].1, "\u{feff}x");
        assert!(all(b"", 1).is_empty());
    }

    #[test]
    fn bounds_are_errors() {
        let error = |body: &[u8], max_bytes, max_event| {
            events(Trickle(body, 5))
                .max_bytes(max_bytes)
                .max_event_bytes(max_event)
                .find_map(Result::err)
                .map(|error| error.to_string())
        };
        let long_line = [b"data: ".as_slice(), &[b'x'; 100]].concat();
        assert_eq!(
            error(&long_line, 1000, 50).as_deref(),
            Some("an event is longer than the 50 bytes one may have")
        );
        let many_lines = b"data: xxxxxxxxxx\n".repeat(10);
        assert_eq!(
            error(&many_lines, 1000, 50).as_deref(),
            Some("an event is longer than the 50 bytes one may have")
        );
        let many_events = b"data: xxxxxxxxxx\n\n".repeat(10);
        assert_eq!(
            error(&many_events, 100, 50).as_deref(),
            Some("the stream is longer than the 100 bytes a response may have")
        );
        assert_eq!(error(&many_events, 180, 50), None);
        assert_eq!(
            error(b"data: \xff\n\n", 100, 50).as_deref(),
            Some("the stream is not UTF-8")
        );
    }
}

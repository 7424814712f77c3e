//! Server-sent events from a blocking reader: the framing of every provider's streamed
//! responses.
//!
//! The framing (lines split anywhere, `\r\n`, a byte-order mark, multi-line `data:`, comments)
//! is the `eventsource-stream` crate's; this module only drives it from a [`Read`] without an
//! async runtime, one read at a time, so events come out as soon as their bytes arrive.
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
//! ```

use std::io::{self, Read};

use eventsource_stream::{EventStreamError, Eventsource};
use futures_executor::block_on_stream;

/// One event: its name (`message` when the stream gave none) and its data.
pub type Event = eventsource_stream::Event;

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
    /// A line is not server-sent events.
    #[error("the stream is not server-sent events: {0}")]
    Framing(String),
}

/// The events of `reader`'s stream, in order, each as soon as its bytes are read.
pub fn events<R: Read>(reader: R) -> impl Iterator<Item = Result<Event, SseError>> {
    let chunks = Chunks {
        reader,
        done: false,
    };
    block_on_stream(futures_util::stream::iter(chunks).eventsource()).map(|event| {
        event.map_err(|error| match error {
            EventStreamError::Transport(error) => SseError::Read(error),
            EventStreamError::Utf8(_) => SseError::NotUtf8,
            EventStreamError::Parser(error) => SseError::Framing(error.to_string()),
        })
    })
}

/// A reader's bytes as the chunks each read returns.
struct Chunks<R> {
    reader: R,
    done: bool,
}

impl<R: Read> Iterator for Chunks<R> {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut buffer = vec![0; 16 * 1024];
        loop {
            match self.reader.read(&mut buffer) {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(read) => {
                    buffer.truncate(read);
                    return Some(Ok(buffer));
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    self.done = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

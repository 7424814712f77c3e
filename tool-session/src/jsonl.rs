//! The embedded default log: one JSON Lines file per session, append-only.
//!
//! # Format
//!
//! The first line is a header naming the format and its version:
//! `{"format":"tool-session","version":1}`. Every other line is one event,
//! `{"seq":…,"kind":"…","data":…,"time":"…"}`, with seqs from 1 and without gaps, so event `n`
//! is line `n + 1`. A line is complete when it ends with `\n`; each append writes its line with
//! one write.
//!
//! # Crashes
//!
//! A crash mid-append leaves at most a torn last line: bytes after the last `\n`. Only bytes
//! that are provably such a tail count as one: the start of the header line in a file that has
//! no complete line yet, or the start of the next event's line (`{"seq":<next>,"kind":"`) after
//! the last complete one. Opening for reading replays the complete events and reports the torn
//! tail ([`JsonlLog::torn_tail`]); opening for writing also cuts it off, and reports that. Any
//! other damage — a line that is not an event, a seq out of order, a bad time, a line longer than
//! [`MAX_LINE_BYTES`], an incomplete last line that is not the start of the next event — is an
//! error naming the file and the 1-based line number, never a skip and never a cut. A file that
//! does not start like a session log (a note, a key, a FIFO, a device) is
//! [`SessionError::NotALog`] and is left untouched. Every line is checked in full when the log
//! is opened, so a log is valid or not however it is read afterwards.
//!
//! # Writers and readers
//!
//! Opening for writing takes an exclusive lock on the file (std's file locks), so a second
//! writer, in this process or another, fails with [`SessionError::Locked`]. Readers take no lock
//! and may read a session another process is writing. Reads are bounded: a line is read into
//! memory only up to [`MAX_LINE_BYTES`], and a log is streamed, never read whole.
//!
//! # Files
//!
//! A writer never follows a symbolic link (`O_NOFOLLOW`): naming one is
//! [`SessionError::SymbolicLink`], so a link planted where a session file will be cannot turn an
//! append (or a repair) into a write elsewhere. A reader follows links, as reading cannot damage
//! anything. Only regular files are logs; anything else is refused when opened, without blocking
//! (a FIFO is opened non-blocking, then refused). New files are created exclusively
//! (`O_CREAT | O_EXCL`) with mode `0600`; [`SessionDir::create`] retries a name that exists with
//! another, never reusing a file.

use std::borrow::Cow;
use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::SessionError;
use crate::event::Event;
use crate::log::{Ack, Log, Recovered};
use crate::sync::GroupSync;
use tool_text::excerpt;

/// The header every log file starts with.
/// The first line of every JSON Lines session log.
pub const HEADER: &str = "{\"format\":\"tool-session\",\"version\":1}\n";
const FORMAT: &str = "tool-session";
const VERSION: u64 = 1;
/// One index entry every this many events, to start reads near a seq.
const INDEX_STRIDE: u64 = 256;

/// The longest line a log may have, without its `\n`: 64 MiB. A writer refuses a longer event
/// ([`SessionError::TooLarge`]) and a reader a longer line, so reading a log takes memory for one
/// line of at most this, whatever the file holds.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// When an append is acknowledged.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum Durability {
    /// Each append is written to the operating system before it returns: it survives a crash of
    /// the process, not of the machine.
    Flush,
    /// Each append is written and `fdatasync`ed before it returns: it survives a power loss.
    /// The default.
    #[default]
    Fsync,
    /// Each append is written, then waits for a grouped `fdatasync` shared with other appends
    /// ([`GroupSync`]): as durable as [`Durability::Fsync`] once it returns, at a fraction of the
    /// syncs when many appends are under way.
    Group(GroupSync),
}

/// How a log file is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Read only, without a lock: the file may be written by another process meanwhile.
    Read,
    /// Read and append, holding the file's exclusive lock; the file is created if absent and a
    /// torn tail is cut off.
    Write,
    /// A new log: like [`OpenMode::Write`], but the file must not exist yet (an
    /// [`io::ErrorKind::AlreadyExists`] error if it does).
    Create,
}

/// The incomplete last line a crash left behind.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TornTail {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based number of the torn line.
    pub line: u64,
    /// Where the torn line starts.
    pub offset: u64,
    /// How many bytes it has.
    pub len: u64,
    /// Whether it was cut off (opening for writing) or only skipped (opening for reading).
    pub repaired: bool,
}

impl fmt::Display for TornTail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "session log {}: line {} is torn ({} bytes at offset {}, from an interrupted append); {}",
            crate::error::shown(&self.path),
            self.line,
            self.len,
            self.offset,
            if self.repaired {
                "cut it off"
            } else {
                "ignored it"
            }
        )
    }
}

/// A session's JSON Lines log file. See the module docs for the format.
pub struct JsonlLog {
    path: PathBuf,
    file: Arc<File>,
    mode: OpenMode,
    durability: Durability,
    /// Where the next line goes: the end of the last complete line.
    end: u64,
    /// A reader's longest length of the file seen: a shorter file was cut under it.
    seen: std::sync::atomic::AtomicU64,
    /// Where the first event's line starts: after the header line, whatever its length.
    events_start: u64,
    /// The offset of the lines of seqs 1, 1 + INDEX_STRIDE, 1 + 2 × INDEX_STRIDE…
    index: Vec<u64>,
    next_seq: u64,
    recovered: Recovered,
    torn_tail: Option<TornTail>,
    failure: Option<String>,
}

/// The fields of an event line, borrowed from the file's bytes.
#[derive(Deserialize)]
struct Line<'a> {
    seq: u64,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, rename = "data")]
    _data: &'a RawValue,
    #[serde(borrow)]
    time: Cow<'a, str>,
}

impl<'a> Line<'a> {
    /// Reads an event line. A line as [`JsonlLog`] writes it (its members in their order, no
    /// space, strings without escapes) is read by hand, its data skipped by serde_json; any
    /// other is read by serde, which gives the same fields or the error.
    fn read(text: &'a [u8]) -> Result<Line<'a>, serde_json::Error> {
        match Line::written(text) {
            Some(line) => Ok(line),
            None => serde_json::from_slice(text),
        }
    }

    /// The line, when it is exactly as a writer writes it; `None` for any other line.
    fn written(text: &'a [u8]) -> Option<Line<'a>> {
        // Every line serde reads is UTF-8 whole: checked once here, its parts are slices of it
        // and its data is skipped without checking its bytes again.
        let text = std::str::from_utf8(text).ok()?;
        let rest = text.strip_prefix("{\"seq\":")?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        // A leading zero is not JSON; past 19 digits a seq may not fit.
        if digits == 0 || digits > 19 || (digits > 1 && rest.starts_with('0')) {
            return None;
        }
        let seq = rest[..digits].bytes().try_fold(0u64, |seq, digit| {
            seq.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
        })?;
        let rest = rest[digits..].strip_prefix(",\"kind\":\"")?;
        let (kind, rest) = plain_string(rest)?;
        let rest = rest.strip_prefix(",\"data\":")?;
        let mut data = serde_json::Deserializer::from_str(rest);
        let raw = <&RawValue>::deserialize(&mut data).ok()?;
        // The value's text is a slice of `rest`; what follows it is the time.
        let skipped = raw.get().as_ptr() as usize - rest.as_ptr() as usize + raw.get().len();
        let rest = rest.get(skipped..)?.strip_prefix(",\"time\":\"")?;
        let (time, rest) = plain_string(rest)?;
        (rest == "}").then_some(Line {
            seq,
            kind: Cow::Borrowed(kind),
            _data: raw,
            time: Cow::Borrowed(time),
        })
    }
}

/// A string's text up to its closing quote, and what follows the quote, when it has no escape
/// and no control character (which a JSON string holds only escaped).
fn plain_string(text: &str) -> Option<(&str, &str)> {
    let end = tool_text::string_stop(text.as_bytes(), 0)?;
    // The quote is ASCII, so both parts are cut between characters.
    (text.as_bytes()[end] == b'"').then(|| (&text[..end], &text[end + 1..]))
}

#[derive(Deserialize)]
struct Header<'a> {
    #[serde(borrow)]
    format: Cow<'a, str>,
    version: u64,
}

impl JsonlLog {
    /// Opens the log at `path`, reading it through once: the events are checked, the latest of
    /// each kind kept for [`Session`](super::Session) to replay, and a torn tail found (and, for
    /// [`OpenMode::Write`], cut off).
    pub fn open(
        path: impl Into<PathBuf>,
        mode: OpenMode,
        durability: Durability,
    ) -> Result<Self, SessionError> {
        let path = path.into();
        let file = open_file(&path, mode)?;
        let mut log = JsonlLog {
            path,
            file: Arc::new(file),
            mode,
            durability,
            end: 0,
            seen: std::sync::atomic::AtomicU64::new(0),
            events_start: HEADER.len() as u64,
            index: Vec::new(),
            next_seq: 1,
            recovered: Recovered::default(),
            torn_tail: None,
            failure: None,
        };
        let len = log.scan()?;
        if mode != OpenMode::Read {
            log.repair(len)?;
        }
        Ok(log)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The torn last line found on open, if there was one.
    pub fn torn_tail(&self) -> Option<&TornTail> {
        self.torn_tail.as_ref()
    }

    /// Reads the file through once, a line at a time, so opening a long log takes memory for a
    /// line, not the file: the header, the events, the torn tail. Every event line is checked in
    /// full here, so later reads of the same lines cannot fail. Returns the file's length.
    fn scan(&mut self) -> Result<u64, SessionError> {
        let io_error = |source| SessionError::Io {
            path: self.path.clone(),
            source,
        };
        let file = Arc::clone(&self.file);
        let mut lines = Lines::new(FileRange::new(&file, 0, u64::MAX));
        // For each kind, where its latest event's line is: (start, end, line number). A kind is
        // found by its place in `latest`, through `kinds` (seeded per process, as std's map is:
        // kinds come from the file) unless it is the previous line's, as most are.
        let mut kinds: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
        let mut latest: Vec<(String, (u64, u64, u64))> = Vec::new();
        let mut previous: Option<usize> = None;
        let mut offset = 0u64;
        let mut line_no = 0u64;
        loop {
            let (read, text) = match lines.next().map_err(io_error)? {
                LineRead::Eof => break,
                LineRead::Line(text) => (text.len() + 1, text),
                LineRead::TooLong if line_no == 0 => {
                    return Err(self.not_a_log(format!(
                        "its first line is longer than {MAX_LINE_BYTES} bytes"
                    )));
                }
                LineRead::TooLong => {
                    return Err(self.corrupt(
                        line_no + 1,
                        format!("longer than the {MAX_LINE_BYTES} bytes a log line may have"),
                    ));
                }
                LineRead::Partial(torn) => {
                    self.check_torn(torn, line_no)?;
                    self.torn_tail = Some(TornTail {
                        path: self.path.clone(),
                        line: line_no + 1,
                        offset,
                        len: torn.len() as u64,
                        repaired: false,
                    });
                    break;
                }
            };
            line_no += 1;
            let start = offset;
            offset += read as u64;
            if line_no == 1 {
                self.check_header(text)?;
                self.events_start = offset;
                continue;
            }
            let event = Line::read(text)
                .map_err(|error| self.corrupt(line_no, format!("not an event: {error}")))?;
            if event.seq != self.next_seq {
                return Err(self.corrupt(
                    line_no,
                    format!("expected seq {}, found {}", self.next_seq, event.seq),
                ));
            }
            // The same check an event's reader makes, so no later read can fail on this line.
            if let Err(error) = crate::event::check_time(&event.time) {
                return Err(self.corrupt(line_no, format!("bad time {:?}: {error}", event.time)));
            }
            if (event.seq - 1).is_multiple_of(INDEX_STRIDE) {
                self.index.push(start);
            }
            self.next_seq += 1;
            let slot = match previous {
                Some(slot) if latest[slot].0 == *event.kind => slot,
                _ => {
                    let slot = match kinds.get(&*event.kind) {
                        Some(&slot) => slot,
                        None => {
                            kinds.insert(event.kind.to_string(), latest.len());
                            latest.push((event.kind.into_owned(), (0, 0, 0)));
                            latest.len() - 1
                        }
                    };
                    previous = Some(slot);
                    slot
                }
            };
            latest[slot].1 = (start, offset, line_no);
        }
        self.end = offset;
        let mut latest: Vec<(u64, u64, u64)> = latest.into_iter().map(|(_, line)| line).collect();
        latest.sort_unstable();
        let mut events = Vec::with_capacity(latest.len());
        for (start, end, line_no) in latest {
            let mut text = vec![0; (end - start - 1) as usize];
            file.read_exact_at(&mut text, start).map_err(io_error)?;
            events.push(self.parse_event(&text, line_no)?);
        }
        self.recovered = Recovered::new(self.next_seq, events);
        Ok(offset + self.torn_tail.as_ref().map_or(0, |torn| torn.len))
    }

    /// Whether an incomplete last line, after `complete` complete lines, is provably what an
    /// interrupted append leaves: the start of the header in a file with no complete line, the
    /// start of the next event's line after the last one. Anything else is damage (or not a log
    /// at all), and no writer may cut it.
    fn check_torn(&self, torn: &[u8], complete: u64) -> Result<(), SessionError> {
        if complete == 0 {
            return if HEADER.as_bytes().starts_with(torn) {
                Ok(())
            } else {
                Err(self.not_a_log("it does not start with a session log header".to_owned()))
            };
        }
        let expected = format!("{{\"seq\":{},\"kind\":\"", self.next_seq);
        if expected.as_bytes().starts_with(torn) || is_cut_event(torn, expected.as_bytes()) {
            Ok(())
        } else {
            Err(self.corrupt(
                complete + 1,
                format!(
                    "the last line is incomplete and does not start like event {}, so it is not \
                     an interrupted append",
                    self.next_seq
                ),
            ))
        }
    }

    fn check_header(&self, text: &[u8]) -> Result<(), SessionError> {
        let format_error = |reason: String| SessionError::Format {
            path: self.path.clone(),
            reason,
        };
        let header: Header<'_> = serde_json::from_slice(text)
            .map_err(|_| self.not_a_log("line 1 is not a session log header".to_owned()))?;
        if header.format != FORMAT {
            return Err(self.not_a_log(format!(
                "line 1 names the format {:?}, not {FORMAT:?}",
                header.format
            )));
        }
        if header.version != VERSION {
            return Err(format_error(format!(
                "written in format version {}; this version reads version {VERSION}",
                header.version
            )));
        }
        Ok(())
    }

    /// For a writer: cuts off a torn tail, and writes the header of a new (or headerless) file.
    fn repair(&mut self, len: u64) -> Result<(), SessionError> {
        let io_error = |source| SessionError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(torn) = &mut self.torn_tail {
            self.file.set_len(self.end).map_err(io_error)?;
            torn.repaired = true;
        }
        if self.end == 0 {
            self.file
                .write_all_at(HEADER.as_bytes(), 0)
                .map_err(io_error)?;
            self.end = HEADER.len() as u64;
            self.file.sync_all().map_err(io_error)?;
            sync_parent(&self.path).map_err(io_error)?;
        } else if len != self.end {
            self.file.sync_all().map_err(io_error)?;
        }
        Ok(())
    }

    fn parse_event(&self, text: &[u8], line: u64) -> Result<Event, SessionError> {
        serde_json::from_slice(text)
            .map_err(|error| self.corrupt(line, format!("not an event: {error}")))
    }

    /// Damage at `line`; `reason` may quote the file's bytes, so it is neutralized and cut.
    fn corrupt(&self, line: u64, reason: String) -> SessionError {
        SessionError::Corrupt {
            path: self.path.clone(),
            line,
            reason: excerpt(&reason, 200),
        }
    }

    fn not_a_log(&self, reason: String) -> SessionError {
        SessionError::NotALog {
            path: self.path.clone(),
            reason: excerpt(&reason, 200),
        }
    }

    /// After a failed write or sync of one event: cuts off whatever part of its line was
    /// written, so the log is what it was before the append and the next append tries again.
    /// Only when even that fails is the log given up on.
    fn undo(&mut self, source: io::Error) -> SessionError {
        match self.file.set_len(self.end) {
            Ok(()) => SessionError::Write {
                path: self.path.clone(),
                source,
            },
            Err(cut) => {
                let reason = format!("{source}; cutting the log back failed too: {cut}");
                self.failure = Some(reason.clone());
                SessionError::Failed {
                    path: self.path.clone(),
                    reason,
                }
            }
        }
    }
}

impl Log for JsonlLog {
    fn store(&self) -> &'static str {
        "files"
    }

    fn append(&mut self, event: &Arc<Event>) -> Result<Ack, SessionError> {
        if let Some(reason) = &self.failure {
            return Err(SessionError::Failed {
                path: self.path.clone(),
                reason: reason.clone(),
            });
        }
        if self.mode == OpenMode::Read {
            return Err(SessionError::ReadOnly {
                path: self.path.clone(),
            });
        }
        let mut line = serde_json::to_vec(&**event)?;
        if line.len() > MAX_LINE_BYTES {
            return Err(SessionError::TooLarge {
                path: self.path.clone(),
                len: line.len(),
                max: MAX_LINE_BYTES,
            });
        }
        line.push(b'\n');
        // The file must end where this writer left it: a process that ignored the lock, or a
        // truncation (a log rotation's copy-and-truncate), changed it, and writing at the old end
        // would leave a hole of NULs or overwrite another's events.
        match self.file.metadata() {
            Ok(metadata) if metadata.len() == self.end => {}
            Ok(metadata) => {
                self.failure = Some(format!(
                    "the file changed under this writer: it is {} bytes, where {} were written",
                    metadata.len(),
                    self.end
                ));
                return Err(SessionError::Changed {
                    path: self.path.clone(),
                    len: metadata.len(),
                    written: self.end,
                });
            }
            Err(error) => return Err(self.undo(error)),
        }
        if let Err(error) = self.file.write_all_at(&line, self.end) {
            return Err(self.undo(error));
        }
        let ack = match &self.durability {
            Durability::Flush => Ack::durable(),
            Durability::Fsync => match self.file.sync_data() {
                Ok(()) => Ack::durable(),
                Err(error) => return Err(self.undo(error)),
            },
            Durability::Group(group) => {
                let ticket = group.enqueue(&self.file, &self.path)?;
                let group = group.clone();
                Ack::after(move || group.wait(ticket))
            }
        };
        if (event.seq - 1).is_multiple_of(INDEX_STRIDE) {
            self.index.push(self.end);
        }
        self.end += line.len() as u64;
        self.next_seq = event.seq + 1;
        Ok(ack)
    }

    fn for_each_from(
        &self,
        seq: u64,
        visit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    ) -> Result<(), SessionError> {
        let seq = seq.max(1);
        let slot = ((seq - 1) / INDEX_STRIDE) as usize;
        let (start, first_seq) = match self.index.get(slot) {
            Some(&offset) => (offset, slot as u64 * INDEX_STRIDE + 1),
            None => match self.index.last() {
                Some(&offset) => (offset, (self.index.len() as u64 - 1) * INDEX_STRIDE + 1),
                None => (self.events_start, 1),
            },
        };
        let io_error = |source| SessionError::Io {
            path: self.path.clone(),
            source,
        };
        // A reader sees what a writer in another process added since; a writer, its own lines.
        let end = match self.mode {
            OpenMode::Write | OpenMode::Create => self.end,
            OpenMode::Read => {
                let len = self.file.metadata().map_err(io_error)?.len();
                let seen = self
                    .seen
                    .fetch_max(len, std::sync::atomic::Ordering::Relaxed)
                    .max(self.end);
                if len < seen {
                    return Err(SessionError::Truncated {
                        path: self.path.clone(),
                        len,
                        seen,
                    });
                }
                len
            }
        };
        if end <= start {
            return Ok(());
        }
        let mut lines = Lines::new(FileRange::new(&self.file, start, end));
        let mut expected = first_seq;
        loop {
            let line = match lines.next().map_err(io_error)? {
                LineRead::Line(line) => line,
                // Only complete lines: an unfinished one is an append under way elsewhere.
                LineRead::Eof | LineRead::Partial(_) => break,
                LineRead::TooLong => {
                    return Err(self.corrupt(
                        expected + 1,
                        format!("longer than the {MAX_LINE_BYTES} bytes a log line may have"),
                    ));
                }
            };
            let event = self.parse_event(line, expected + 1)?;
            if event.seq != expected {
                return Err(self.corrupt(
                    expected + 1,
                    format!("expected seq {expected}, found {}", event.seq),
                ));
            }
            if event.seq >= seq && visit(event).is_break() {
                break;
            }
            expected += 1;
        }
        Ok(())
    }

    fn recover(&self) -> Result<Recovered, SessionError> {
        Ok(Recovered::new(
            self.recovered.next_seq,
            self.recovered.latest.clone(),
        ))
    }

    fn follows_another_writer(&self) -> bool {
        self.mode == OpenMode::Read
    }
}

impl fmt::Debug for JsonlLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonlLog")
            .field("path", &self.path)
            .field("mode", &self.mode)
            .field("next_seq", &self.next_seq)
            .finish_non_exhaustive()
    }
}

/// Opens a log file as `mode` says: without following a link when writing, exclusively when
/// creating, never blocking (a FIFO), and only a regular file; a writer takes the file's lock.
fn open_file(path: &Path, mode: OpenMode) -> Result<File, SessionError> {
    let io_error = |source: io::Error| match source.raw_os_error() {
        Some(libc::ELOOP) => SessionError::SymbolicLink {
            path: path.to_path_buf(),
        },
        Some(libc::EISDIR) => SessionError::NotALog {
            path: path.to_path_buf(),
            reason: "it is a directory, not a regular file".to_owned(),
        },
        _ => SessionError::Io {
            path: path.to_path_buf(),
            source,
        },
    };
    let create = || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
    };
    let file = match mode {
        OpenMode::Read => OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path),
        OpenMode::Create => create(),
        OpenMode::Write => {
            let existing = || {
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                    .open(path)
            };
            // Created by someone else between the two tries: open theirs.
            match existing() {
                Err(error) if error.kind() == io::ErrorKind::NotFound => match create() {
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => existing(),
                    created => created,
                },
                opened => opened,
            }
        }
    }
    .map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if !metadata.is_file() {
        return Err(SessionError::NotALog {
            path: path.to_path_buf(),
            reason: format!(
                "it is {}, not a regular file",
                file_kind(&metadata.file_type())
            ),
        });
    }
    if mode != OpenMode::Read {
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(SessionError::Locked {
                    path: path.to_path_buf(),
                });
            }
            Err(TryLockError::Error(error)) => return Err(io_error(error)),
        }
    }
    Ok(file)
}

/// Whether `torn` is what an interrupted append of an event starting with `start` leaves: it
/// starts so, it is UTF-8 but perhaps for a character cut at its end, and it is the beginning
/// of a JSON text, so the parser runs out of input before it finds anything wrong (or the whole
/// event, but for its newline). A NUL, a raw control character, invalid UTF-8 or anything after
/// a closed object can never be one.
fn is_cut_event(torn: &[u8], start: &[u8]) -> bool {
    if !torn.starts_with(start) {
        return false;
    }
    let text = match std::str::from_utf8(torn) {
        Ok(text) => text,
        // Only a character cut by the end of the bytes.
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&torn[..error.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        // All but the newline written: the whole event must be there.
        Ok(_) => serde_json::from_str::<Line<'_>>(text).is_ok(),
        Err(error) => error.is_eof(),
    }
}

/// What a file that is not a regular file is, for a message.
fn file_kind(kind: &fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// One line read with a bound.
enum LineRead<'a> {
    /// A complete line, without its `\n`.
    Line(&'a [u8]),
    /// The end of the file.
    Eof,
    /// An incomplete line at the end of the file.
    Partial(&'a [u8]),
    /// A line longer than [`MAX_LINE_BYTES`]; what was read of it is not a line.
    TooLong,
}

/// How much of a file [`Lines`] reads at a time, at least.
const READ_SIZE: usize = 1 << 16;

/// The lines of a file, each read in place: the file is read into one buffer in large pieces,
/// and each line is a slice of it, not a copy. The buffer grows for a line longer than itself,
/// up to [`MAX_LINE_BYTES`] and its `\n`, so reading takes memory for one line at most.
struct Lines<R> {
    source: R,
    buf: Vec<u8>,
    /// The unread bytes: `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
}

impl<R: Read> Lines<R> {
    fn new(source: R) -> Self {
        Lines {
            source,
            buf: vec![0; READ_SIZE],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    fn next(&mut self) -> io::Result<LineRead<'_>> {
        // Where the search for the line's `\n` goes on from: the bytes before it have none.
        let mut searched = self.start;
        let newline = loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                break Some(searched + at);
            }
            searched = self.end;
            if self.end - self.start > MAX_LINE_BYTES || self.eof {
                break None;
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                searched -= self.start;
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                let len = (self.buf.len() * 2).min(MAX_LINE_BYTES + 1 + READ_SIZE);
                self.buf.resize(len, 0);
            }
            match self.source.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        };
        let start = self.start;
        Ok(match newline {
            Some(newline) if newline - start > MAX_LINE_BYTES => LineRead::TooLong,
            Some(newline) => {
                self.start = newline + 1;
                LineRead::Line(&self.buf[start..newline])
            }
            None if self.end - start > MAX_LINE_BYTES => LineRead::TooLong,
            None if self.end == start => LineRead::Eof,
            None => {
                self.start = self.end;
                LineRead::Partial(&self.buf[start..self.end])
            }
        })
    }
}

/// The bytes of a file from `pos` to `end` (or its end), read at offsets: the file's cursor is
/// left alone, so readers never disturb one another.
struct FileRange<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
}

impl<'a> FileRange<'a> {
    fn new(file: &'a File, pos: u64, end: u64) -> Self {
        FileRange { file, pos, end }
    }
}

impl Read for FileRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        if want == 0 {
            return Ok(0);
        }
        let read = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += read as u64;
        Ok(read)
    }
}

/// Makes a new file's directory entry durable.
fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => File::open(parent)?.sync_all(),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Read};
    use std::time::{Duration, UNIX_EPOCH};

    use serde_json::value::RawValue;

    use super::{Line, LineRead, Lines};
    use crate::event::Event;

    /// A reader that gives at most `piece` bytes a call, as a pipe or a slow disk may.
    struct Pieces<'a> {
        bytes: &'a [u8],
        piece: usize,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.piece).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[derive(Debug, PartialEq)]
    enum Got {
        Line(Vec<u8>),
        Partial(Vec<u8>),
    }

    fn read_all(bytes: &[u8], piece: usize) -> Vec<Got> {
        let mut lines = Lines::new(Pieces { bytes, piece });
        let mut read = Vec::new();
        loop {
            match lines.next().unwrap() {
                LineRead::Line(line) => read.push(Got::Line(line.to_vec())),
                LineRead::Partial(line) => read.push(Got::Partial(line.to_vec())),
                LineRead::Eof => return read,
                LineRead::TooLong => panic!("no line here is too long"),
            }
        }
    }

    /// Each line comes out whole however the file's bytes arrive, a line longer than the
    /// buffer too, and an unfinished last line is told apart.
    #[test]
    fn lines_come_out_whole_however_the_bytes_arrive() {
        let long = "x".repeat(200_000);
        let files = [
            String::new(),
            "a".to_owned(),
            "a\n".to_owned(),
            "a\nbc".to_owned(),
            "\n\n".to_owned(),
            format!("{long}\nshort\n{long}"),
            format!("h\n{long}\n{long}\nend\n"),
        ];
        for file in &files {
            let mut expected: Vec<Got> = Vec::new();
            let mut rest = file.as_bytes();
            while let Some(at) = rest.iter().position(|&b| b == b'\n') {
                expected.push(Got::Line(rest[..at].to_vec()));
                rest = &rest[at + 1..];
            }
            if !rest.is_empty() {
                expected.push(Got::Partial(rest.to_vec()));
            }
            for piece in [1, 7, 4096, usize::MAX] {
                assert_eq!(read_all(file.as_bytes(), piece), expected, "piece {piece}");
            }
        }
    }

    /// What a line gives is what serde reads from it, or serde's error: a line as a writer
    /// writes it (read by hand) and every near variant of one (read by serde).
    #[test]
    fn a_line_reads_as_serde_reads_it() {
        let event = Event::new(
            42,
            "todo_write",
            RawValue::from_string(r#"{"todos":[{"content":"a \"b\"","status":"pending"}]}"#.into())
                .unwrap(),
            UNIX_EPOCH + Duration::from_micros(1_780_000_000_123_456),
        );
        let written = String::from_utf8(serde_json::to_vec(&event).unwrap()).unwrap();
        assert!(Line::written(written.as_bytes()).is_some(), "{written}");
        let mut lines = vec![written.clone()];
        for (from, to) in [
            (r#""seq":42"#, r#""seq":042"#),
            (r#""seq":42"#, r#""seq":18446744073709551616"#),
            (r#""seq":42"#, r#""seq":18446744073709551615"#),
            (r#""seq":42"#, r#""seq":-1"#),
            (r#""seq":42"#, r#""seq":4.2"#),
            (r#""seq":42"#, r#""seq": 42"#),
            (r#""todo_write""#, r#""todo\u005fwrite""#),
            (r#""todo_write""#, "\"todo\twrite\""),
            (r#""todo_write""#, r#""tödo""#),
            (r#""todo_write""#, r#""todo"#),
            (r#""data":{"#, r#""data":["#),
            (r#""data":{"#, r#""data": {"#),
            (r#"}]},"time""#, r#"}]} ,"time""#),
            (r#"}]},"time""#, r#"}],"time""#),
            (r#"Z"}"#, r#"Z"} "#),
            (r#"Z"}"#, r#"Z"}x"#),
            (r#"Z"}"#, r#"Z","kind":"other"}"#),
            (r#"Z"}"#, r#"Z","extra":1}"#),
            (r#""time":"#, r#""time":1,"t":"#),
        ] {
            assert!(written.contains(from), "{from}");
            lines.push(written.replacen(from, to, 1));
        }
        lines.push(r#"{"kind":"k","seq":1,"time":"t","data":null}"#.to_owned());
        let mut bytes: Vec<Vec<u8>> = lines.into_iter().map(String::into_bytes).collect();
        let mut bad_utf8 = written.clone().into_bytes();
        let at = written.find("todo_write").unwrap();
        bad_utf8[at] = 0xff;
        bytes.push(bad_utf8);
        for text in &bytes {
            let shown = String::from_utf8_lossy(text);
            let serde: Result<Line<'_>, _> = serde_json::from_slice(text);
            match (Line::read(text), serde) {
                (Ok(ours), Ok(serde)) => {
                    assert_eq!(ours.seq, serde.seq, "{shown}");
                    assert_eq!(ours.kind, serde.kind, "{shown}");
                    assert_eq!(ours._data.get(), serde._data.get(), "{shown}");
                    assert_eq!(ours.time, serde.time, "{shown}");
                }
                (Err(ours), Err(serde)) => assert_eq!(ours.to_string(), serde.to_string()),
                (ours, serde) => panic!("{shown}: {:?} against {:?}", ours.is_ok(), serde.is_ok()),
            }
        }
    }
}

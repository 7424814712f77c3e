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
//! A crash mid-append leaves at most a torn last line: bytes after the last `\n`. Opening for
//! reading replays the complete events and reports the torn tail ([`JsonlLog::torn_tail`]);
//! opening for writing also cuts it off, and reports that. Any other damage — a line that is not
//! an event, a seq out of order, an unknown format — is an error naming the file and the 1-based
//! line number, never a skip.
//!
//! # Writers and readers
//!
//! Opening for writing takes an exclusive lock on the file (std's file locks), so a second
//! writer, in this process or another, fails with [`SessionError::Locked`]. Readers take no lock
//! and may read a session another process is writing. New files are created with mode `0600`.

use std::borrow::Cow;
use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, BufRead, BufReader};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::SessionError;
use crate::event::Event;
use crate::session::{Ack, GroupSync, Log, Recovered, Session};

/// The header every log file starts with.
const HEADER: &str = "{\"format\":\"tool-session\",\"version\":1}\n";
const FORMAT: &str = "tool-session";
const VERSION: u64 = 1;
/// One index entry every this many events, to start reads near a seq.
const INDEX_STRIDE: u64 = 256;

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
            self.path.display(),
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

#[derive(Deserialize)]
struct Header<'a> {
    #[serde(borrow)]
    format: Cow<'a, str>,
    version: u64,
}

impl JsonlLog {
    /// Opens the log at `path`, reading it through once: the events are checked, the latest of
    /// each kind kept for [`Session`] to replay, and a torn tail found (and, for
    /// [`OpenMode::Write`], cut off).
    pub fn open(
        path: impl Into<PathBuf>,
        mode: OpenMode,
        durability: Durability,
    ) -> Result<Self, SessionError> {
        let path = path.into();
        let io_error = |source| SessionError::Io {
            path: path.clone(),
            source,
        };
        let file = match mode {
            OpenMode::Read => File::open(&path).map_err(io_error)?,
            OpenMode::Write => {
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(0o600)
                    .open(&path)
                    .map_err(io_error)?;
                match file.try_lock() {
                    Ok(()) => {}
                    Err(TryLockError::WouldBlock) => return Err(SessionError::Locked { path }),
                    Err(TryLockError::Error(error)) => return Err(io_error(error)),
                }
                file
            }
        };
        let mut log = JsonlLog {
            path,
            file: Arc::new(file),
            mode,
            durability,
            end: 0,
            events_start: HEADER.len() as u64,
            index: Vec::new(),
            next_seq: 1,
            recovered: Recovered::default(),
            torn_tail: None,
            failure: None,
        };
        let len = log.scan()?;
        if mode == OpenMode::Write {
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
    /// line, not the file: the header, the events, the torn tail. Returns the file's length.
    fn scan(&mut self) -> Result<u64, SessionError> {
        let io_error = |source| SessionError::Io {
            path: self.path.clone(),
            source,
        };
        let file = Arc::clone(&self.file);
        let mut reader = BufReader::with_capacity(1 << 16, &*file);
        let mut line = Vec::new();
        // For each kind, where its latest event's line is: (kind, start, end, line number).
        let mut latest: Vec<(String, u64, u64, u64)> = Vec::new();
        let mut offset = 0u64;
        let mut line_no = 0u64;
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line).map_err(io_error)?;
            if read == 0 {
                break;
            }
            if line.last() != Some(&b'\n') {
                self.torn_tail = Some(TornTail {
                    path: self.path.clone(),
                    line: line_no + 1,
                    offset,
                    len: read as u64,
                    repaired: false,
                });
                break;
            }
            line_no += 1;
            let start = offset;
            offset += read as u64;
            let text = &line[..read - 1];
            if line_no == 1 {
                self.check_header(text)?;
                self.events_start = offset;
                continue;
            }
            let event: Line<'_> = serde_json::from_slice(text)
                .map_err(|error| self.corrupt(line_no, format!("not an event: {error}")))?;
            if event.seq != self.next_seq {
                return Err(self.corrupt(
                    line_no,
                    format!("expected seq {}, found {}", self.next_seq, event.seq),
                ));
            }
            // A cheap check that the time is a timestamp; the events replay keeps are parsed in
            // full below, and `for_each_from` parses every event it gives.
            if event.time.len() < 20 || !event.time.ends_with('Z') {
                return Err(self.corrupt(line_no, format!("bad time: {:?}", event.time)));
            }
            if (event.seq - 1).is_multiple_of(INDEX_STRIDE) {
                self.index.push(start);
            }
            self.next_seq += 1;
            match latest.iter_mut().find(|(kind, ..)| *kind == event.kind) {
                Some(slot) => (slot.1, slot.2, slot.3) = (start, offset, line_no),
                None => latest.push((event.kind.into_owned(), start, offset, line_no)),
            }
        }
        self.end = offset;
        let mut events = Vec::with_capacity(latest.len());
        for (_, start, end, line_no) in latest {
            let mut text = vec![0; (end - start - 1) as usize];
            file.read_exact_at(&mut text, start).map_err(io_error)?;
            events.push(self.parse_event(&text, line_no)?);
        }
        self.recovered = Recovered::new(self.next_seq, events);
        Ok(offset + self.torn_tail.as_ref().map_or(0, |torn| torn.len))
    }

    fn check_header(&self, text: &[u8]) -> Result<(), SessionError> {
        let format_error = |reason: String| SessionError::Format {
            path: self.path.clone(),
            reason,
        };
        let header: Header<'_> = serde_json::from_slice(text)
            .map_err(|_| format_error("line 1 is not a session log header".to_owned()))?;
        if header.format != FORMAT {
            return Err(format_error(format!(
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

    fn corrupt(&self, line: u64, reason: String) -> SessionError {
        SessionError::Corrupt {
            path: self.path.clone(),
            line,
            reason,
        }
    }

    fn fail(&mut self, reason: String) -> SessionError {
        // Cut off whatever part of the line was written, so the file stays readable.
        let _ = self.file.set_len(self.end);
        self.failure = Some(reason.clone());
        SessionError::Failed {
            path: self.path.clone(),
            reason,
        }
    }
}

impl Log for JsonlLog {
    fn append(&mut self, event: &Arc<Event>) -> Result<Ack, SessionError> {
        if let Some(reason) = &self.failure {
            return Err(SessionError::Failed {
                path: self.path.clone(),
                reason: reason.clone(),
            });
        }
        if self.mode == OpenMode::Read {
            return Err(SessionError::Failed {
                path: self.path.clone(),
                reason: "the log is open for reading only".to_owned(),
            });
        }
        let mut line = serde_json::to_vec(&**event)?;
        line.push(b'\n');
        if let Err(error) = self.file.write_all_at(&line, self.end) {
            return Err(self.fail(format!("write: {error}")));
        }
        let ack = match &self.durability {
            Durability::Flush => Ack::durable(),
            Durability::Fsync => match self.file.sync_data() {
                Ok(()) => Ack::durable(),
                Err(error) => return Err(self.fail(format!("fsync: {error}"))),
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

    fn for_each_from(&self, seq: u64, visit: &mut dyn FnMut(Event)) -> Result<(), SessionError> {
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
            OpenMode::Write => self.end,
            OpenMode::Read => self.file.metadata().map_err(io_error)?.len(),
        };
        if end <= start {
            return Ok(());
        }
        let mut bytes = vec![0; (end - start) as usize];
        self.file
            .read_exact_at(&mut bytes, start)
            .map_err(io_error)?;
        // Only complete lines: an unfinished one is an append under way elsewhere.
        let lines = bytes
            .split_inclusive(|&b| b == b'\n')
            .filter(|line| line.ends_with(b"\n"));
        for (expected, line) in (first_seq..).zip(lines) {
            let event = self.parse_event(&line[..line.len() - 1], expected + 1)?;
            if event.seq != expected {
                return Err(self.corrupt(
                    expected + 1,
                    format!("expected seq {expected}, found {}", event.seq),
                ));
            }
            if event.seq >= seq {
                visit(event);
            }
        }
        Ok(())
    }

    fn recover(&self) -> Result<Recovered, SessionError> {
        Ok(Recovered::new(
            self.recovered.next_seq,
            self.recovered.latest.clone(),
        ))
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

/// Makes a new file's directory entry durable.
fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => File::open(parent)?.sync_all(),
        _ => Ok(()),
    }
}

/// A directory of session logs, one `<id>.jsonl` file per session.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("tool-runtime-doc-{}", std::process::id()));
/// use tool_runtime::session::{OpenMode, SessionDir};
///
/// let sessions = SessionDir::new(&dir).unwrap();
/// let (session, torn) = sessions.open("agent-1", OpenMode::Write).unwrap();
/// assert!(torn.is_none());
/// session.append("note/add", &"kept").unwrap();
/// drop(session);
///
/// let (session, _) = sessions.open("agent-1", OpenMode::Read).unwrap();
/// assert_eq!(session.next_seq(), 2);
/// assert!(sessions.path_of("../escape").is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct SessionDir {
    path: PathBuf,
    durability: Durability,
}

impl SessionDir {
    /// The directory at `path`, created (mode `0700`) if absent. Appends use
    /// [`Durability::Fsync`] unless [`SessionDir::with_durability`] says otherwise.
    pub fn new(path: impl Into<PathBuf>) -> Result<Self, SessionError> {
        let path = path.into();
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&path)
            .map_err(|source| SessionError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(SessionDir {
            path,
            durability: Durability::default(),
        })
    }

    /// The same directory, its logs appending under `durability`.
    #[must_use]
    pub fn with_durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file of session `id`. An id is 1 to 128 ASCII letters, digits, `.`, `_` or `-`, not
    /// starting with `.`, so it cannot name a file outside the directory.
    pub fn path_of(&self, id: &str) -> Result<PathBuf, SessionError> {
        check_id(id)?;
        Ok(self.path.join(format!("{id}.jsonl")))
    }

    /// Opens the log of session `id` (creating it when writing).
    pub fn open_log(&self, id: &str, mode: OpenMode) -> Result<JsonlLog, SessionError> {
        JsonlLog::open(self.path_of(id)?, mode, self.durability.clone())
    }

    /// Opens session `id`, replayed from its log, with the torn tail found on the way.
    pub fn open(
        &self,
        id: &str,
        mode: OpenMode,
    ) -> Result<(Session, Option<TornTail>), SessionError> {
        let log = self.open_log(id, mode)?;
        let torn = log.torn_tail().cloned();
        Ok((Session::open(id, log)?, torn))
    }
}

fn check_id(id: &str) -> Result<(), SessionError> {
    let invalid = |reason| {
        Err(SessionError::InvalidId {
            id: id.to_owned(),
            reason,
        })
    };
    if id.is_empty() {
        return invalid("it is empty");
    }
    if id.len() > 128 {
        return invalid("it is longer than 128 bytes");
    }
    if id.starts_with('.') {
        return invalid("it starts with `.`");
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
    {
        return invalid("only ASCII letters, digits, `.`, `_` and `-` may appear in it");
    }
    Ok(())
}

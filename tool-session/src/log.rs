//! The `Log` trait: where a session's events are kept, and what a backend promises.

use std::collections::HashMap;
use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::error::SessionError;
use crate::event::Event;

/// Where a session's events are kept.
///
/// What a backend (a file, SQLite, Postgres…) must guarantee:
///
/// - [`Log::append`] keeps the event after every event it kept before, and the event is
///   acknowledged when the returned [`Ack`] has been waited for without error: an acknowledged
///   event survives what the backend promises to survive (a process crash, or a power loss for a
///   backend that syncs).
/// - [`Log::for_each_from`] gives back every kept event from a seq on, in seq order, with the
///   data's JSON text as it was appended, and fails with a clear error rather than skip one.
/// - [`Log::recover`] tells, on open, where the session stands: the next seq and the latest event
///   of each kind.
///
/// The session calls a backend under its lock, so a backend sees one call at a time per session;
/// seqs are assigned by the session, from 1 and without gaps. A backend need not know any tool.
pub trait Log: Send + 'static {
    /// Keeps one event.
    fn append(&mut self, event: &Arc<Event>) -> Result<Ack, SessionError>;

    /// Calls `visit` with every kept event whose seq is `seq` or later, in seq order, until it
    /// returns [`ControlFlow::Break`]. A backend should start near `seq` rather than read from the
    /// first event, and stream: the session reads a long log a chunk at a time.
    fn for_each_from(
        &self,
        seq: u64,
        visit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    ) -> Result<(), SessionError>;

    /// Where the session stands after the kept events. The default reads every event; a backend
    /// may do better.
    fn recover(&self) -> Result<Recovered, SessionError> {
        let mut recovered = Recovered::default();
        let mut latest = HashMap::new();
        self.for_each_from(0, &mut |event| {
            recovered.next_seq = event.seq + 1;
            latest.insert(event.kind.clone(), event);
            ControlFlow::Continue(())
        })?;
        recovered.latest = latest.into_values().collect();
        Ok(recovered)
    }

    /// The latest event of `kind` whose seq is `seq` or lower: the state of that kind as it
    /// stood after `seq`. The default reads the events up to `seq`; a backend with an index
    /// may do better.
    fn latest_at(&self, kind: &str, seq: u64) -> Result<Option<Event>, SessionError> {
        let mut latest = None;
        self.for_each_from(0, &mut |event| {
            if event.seq > seq {
                return ControlFlow::Break(());
            }
            if event.kind == kind {
                latest = Some(event);
            }
            ControlFlow::Continue(())
        })?;
        Ok(latest)
    }

    /// The kind of store the log keeps its events in, as traces and metrics name it (`files`,
    /// `postgres`, `memory`…). `"custom"` unless a backend says otherwise.
    fn store(&self) -> &'static str {
        "custom"
    }

    /// Whether the log only reads events another writer keeps (a file opened for reading), so it
    /// may hold more than this session appended. `false` unless a backend says otherwise.
    fn follows_another_writer(&self) -> bool {
        false
    }

    /// Whether the log's reads and writes may block the thread (a file's write and sync, a
    /// database's round trip): the session then runs them where an async host's other tasks go
    /// on meanwhile ([`blocking`](crate::blocking)), which costs a hand-off between threads
    /// on each. `true` unless a backend says otherwise; a log that only touches memory says
    /// `false`.
    fn blocks(&self) -> bool {
        true
    }
}

/// Where a session stands after replaying its log.
#[derive(Debug)]
#[non_exhaustive]
pub struct Recovered {
    /// The seq the next event gets: 1 for an empty log.
    pub next_seq: u64,
    /// The latest event of each kind.
    pub latest: Vec<Event>,
}

impl Default for Recovered {
    fn default() -> Self {
        Recovered {
            next_seq: 1,
            latest: Vec::new(),
        }
    }
}

impl Recovered {
    /// Where a session stands: the next seq, and the latest event of each kind.
    pub fn new(next_seq: u64, latest: Vec<Event>) -> Self {
        Recovered { next_seq, latest }
    }
}

/// A log's answer to an append: the event is durable now, or will be once [`Ack::wait`] returns.
#[must_use = "an append is acknowledged only once its Ack has been waited for"]
pub struct Ack(Option<Box<dyn FnOnce() -> Result<(), SessionError> + Send>>);

impl Ack {
    /// The event is as durable as the backend makes it already.
    pub fn durable() -> Self {
        Ack(None)
    }

    /// The event is durable once `wait` returns `Ok`. The session calls it outside its lock, so
    /// other appends go on meanwhile (a grouped fsync).
    pub fn after(wait: impl FnOnce() -> Result<(), SessionError> + Send + 'static) -> Self {
        Ack(Some(Box::new(wait)))
    }

    /// Waits until the event is durable.
    pub fn wait(self) -> Result<(), SessionError> {
        match self.0 {
            None => Ok(()),
            Some(wait) => wait(),
        }
    }
}

impl fmt::Debug for Ack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Ack(pending)"
        } else {
            "Ack(durable)"
        })
    }
}

//! Sessions: an agent's append-only event log, its replayed state, and its event stream.
//!
//! A [`Session`] owns a [`Log`] (where events are kept) and keeps, for each event kind, the most
//! recent event, so replay helpers such as `tool_todo::current` answer in O(1) however long the
//! log is. Appends are totally ordered: each takes the session's lock, gets the next seq, is
//! written to the log, and is published to subscribers before the lock is released, so every
//! subscriber sees events in seq order.

mod memory;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::SessionError;
use crate::event::Event;

pub use memory::MemoryLog;

/// How many published events a subscriber may fall behind before it catches up from the log.
const LIVE_CAPACITY: usize = 1024;

/// Where a session's events are kept.
///
/// A backend must keep every event it acknowledged (returned `Ok` from [`Log::append`] for),
/// and give them back in seq order from [`Log::read_from`]. The session calls it under its lock,
/// so a backend sees one call at a time per session.
pub trait Log: Send + 'static {
    /// Keeps one event. `Ok` means the event is acknowledged.
    fn append(&mut self, event: &Event) -> Result<(), SessionError>;

    /// Every kept event whose seq is `seq` or later, in seq order.
    fn read_from(&self, seq: u64) -> Result<Vec<Event>, SessionError>;
}

/// An agent's session: its log, its current state and its event stream. Cloning is cheap and
/// shares the session.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    live: broadcast::Sender<Arc<Event>>,
}

struct State {
    log: Box<dyn Log>,
    next_seq: u64,
    latest: HashMap<String, Arc<Event>>,
}

impl Session {
    /// A session kept in memory only.
    pub fn in_memory() -> Self {
        Session::open(MemoryLog::new()).expect("an empty memory log replays")
    }

    /// Opens a session on `log`, replaying the events it holds: seqs continue after the last
    /// one, and [`Session::latest`] answers from the replayed events.
    pub fn open(log: impl Log) -> Result<Self, SessionError> {
        let events = log.read_from(0)?;
        let mut latest = HashMap::new();
        let mut next_seq = 1;
        for event in events {
            next_seq = event.seq + 1;
            latest.insert(event.kind.clone(), Arc::new(event));
        }
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        Ok(Session {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    log: Box::new(log),
                    next_seq,
                    latest,
                }),
                live,
            }),
        })
    }

    /// Appends an event of `kind` with `data` and returns its seq.
    ///
    /// ```
    /// # use tool_runtime::Session;
    /// let session = Session::in_memory();
    /// assert_eq!(session.append("note/add", &"first").unwrap(), 1);
    /// assert_eq!(session.append("note/add", &"second").unwrap(), 2);
    /// let latest = session.latest("note/add").unwrap();
    /// assert_eq!(latest.data::<String>().unwrap(), "second");
    /// ```
    pub fn append<T: Serialize + ?Sized>(&self, kind: &str, data: &T) -> Result<u64, SessionError> {
        let raw_data = serde_json::value::to_raw_value(data)?;
        let mut state = self.lock();
        let seq = state.next_seq;
        let event = Event::new(seq, kind, raw_data, now());
        state.log.append(&event)?;
        state.next_seq = seq + 1;
        let event = Arc::new(event);
        state.latest.insert(event.kind.clone(), Arc::clone(&event));
        // No receiver is not an error: nobody is watching.
        let _ = self.shared.live.send(event);
        Ok(seq)
    }

    /// The most recent event of `kind`, if there is one.
    pub fn latest(&self, kind: &str) -> Option<Arc<Event>> {
        self.lock().latest.get(kind).cloned()
    }

    /// The seq the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.lock().next_seq
    }

    /// Every event whose seq is `seq` or later, read from the log.
    pub fn events_from(&self, seq: u64) -> Result<Vec<Event>, SessionError> {
        self.lock().log.read_from(seq)
    }

    /// Subscribes to the events appended from now on.
    pub fn subscribe(&self) -> Subscription {
        let state = self.lock();
        let next = state.next_seq;
        self.subscription(&state, next)
    }

    /// Subscribes to every event from `seq` on: the ones already in the log first, then the ones
    /// appended from now on, without a gap or a repeat.
    pub fn subscribe_from(&self, seq: u64) -> Subscription {
        let state = self.lock();
        self.subscription(&state, seq)
    }

    fn subscription(&self, state: &State, next: u64) -> Subscription {
        Subscription {
            session: self.clone(),
            live: self.shared.live.subscribe(),
            next,
            head: state.next_seq,
            backlog: VecDeque::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the state half-written: every field is
        // updated only after the log accepted the event.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("next_seq", &self.next_seq())
            .finish_non_exhaustive()
    }
}

/// The current time, to the microsecond the log keeps.
fn now() -> SystemTime {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let micros = Duration::from_micros(since_epoch.as_micros().try_into().unwrap_or(u64::MAX));
    UNIX_EPOCH + micros
}

/// A stream of a session's events in seq order.
///
/// A subscriber that falls behind the live stream does not lose events: it reads what it missed
/// from the session's log, then continues live.
pub struct Subscription {
    session: Session,
    live: broadcast::Receiver<Arc<Event>>,
    /// The seq of the next event to yield.
    next: u64,
    /// Events before this seq were in the log when the subscription started.
    head: u64,
    backlog: VecDeque<Arc<Event>>,
}

impl Subscription {
    /// The next event if one is ready, without waiting. `Ok(None)` means none is ready yet.
    pub fn try_next(&mut self) -> Result<Option<Arc<Event>>, SessionError> {
        loop {
            if let Some(event) = self.pop_backlog()? {
                return Ok(Some(event));
            }
            match self.live.try_recv() {
                Ok(event) => {
                    if let Some(event) = self.accept(event)? {
                        return Ok(Some(event));
                    }
                }
                Err(broadcast::error::TryRecvError::Empty) => return Ok(None),
                Err(broadcast::error::TryRecvError::Lagged(_)) => self.catch_up()?,
                Err(broadcast::error::TryRecvError::Closed) => return Ok(None),
            }
        }
    }

    /// Waits for the next event.
    pub async fn next(&mut self) -> Result<Arc<Event>, SessionError> {
        loop {
            if let Some(event) = self.pop_backlog()? {
                return Ok(event);
            }
            match self.live.recv().await {
                Ok(event) => {
                    if let Some(event) = self.accept(event)? {
                        return Ok(event);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up()?,
                Err(broadcast::error::RecvError::Closed) => {
                    unreachable!("the subscription holds its session, so the sender lives")
                }
            }
        }
    }

    /// The seq of the next event this subscription yields.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    fn pop_backlog(&mut self) -> Result<Option<Arc<Event>>, SessionError> {
        if self.backlog.is_empty() && self.next < self.head {
            self.catch_up()?;
        }
        while let Some(event) = self.backlog.pop_front() {
            if event.seq >= self.next {
                self.next = event.seq + 1;
                return Ok(Some(event));
            }
        }
        Ok(None)
    }

    /// Takes a live event: yields it if it is the next one, skips it if it was already yielded,
    /// and reads the gap from the log if events were missed.
    fn accept(&mut self, event: Arc<Event>) -> Result<Option<Arc<Event>>, SessionError> {
        if event.seq < self.next {
            return Ok(None);
        }
        if event.seq > self.next {
            self.head = self.head.max(event.seq);
            self.catch_up()?;
            self.backlog.push_back(event);
            return self.pop_backlog();
        }
        self.next = event.seq + 1;
        Ok(Some(event))
    }

    fn catch_up(&mut self) -> Result<(), SessionError> {
        let missed = self.session.events_from(self.next)?;
        if let Some(last) = missed.last() {
            self.head = self.head.max(last.seq + 1);
        }
        self.backlog.extend(missed.into_iter().map(Arc::new));
        Ok(())
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

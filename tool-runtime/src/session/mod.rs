//! Sessions: an agent's append-only event log, its replayed state, and its event stream.
//!
//! A [`Session`] owns a [`Log`] (where events are kept) and keeps, for each event kind, the most
//! recent event, so replay helpers such as `tool_todo::current` answer in O(1) however long the
//! log is, and a session's memory is bounded by its kinds, not its length. Appends are totally
//! ordered: each takes the session's lock, gets the next seq, is written to the log, and is
//! published to subscribers before the lock is released, so every subscriber sees events in seq
//! order. Under a grouped-fsync policy the append then waits, outside the lock, until its event is
//! durable, so several appends share one fsync.
//!
//! Logs: [`MemoryLog`] for tests, [`JsonlLog`] (one JSON Lines file per session, the embedded
//! default) through a [`SessionDir`]. [`SessionHub`] gathers the sessions of a host so it can
//! subscribe to all of them at once.

mod follow;
mod hub;
mod jsonl;
mod memory;
mod order;
mod sync;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::SessionError;
use crate::event::Event;

pub use hub::{HubEvent, HubSubscription, SessionHub};
pub use jsonl::{Durability, JsonlLog, MAX_LINE_BYTES, OpenMode, SessionDir, TornTail};
pub use memory::MemoryLog;
pub(crate) use order::{Gate, Turn};
pub use sync::GroupSync;

/// How many published events a subscriber may fall behind before it catches up from the log.
const LIVE_CAPACITY: usize = 1024;

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

    /// Whether the log only reads events another writer keeps (a file opened for reading), so it
    /// may hold more than this session appended. `false` unless a backend says otherwise.
    fn follows_another_writer(&self) -> bool {
        false
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

/// An agent's session: its id, log, current state and event stream. Cloning is cheap and shares
/// the session.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
    /// Set on the handles a call batch gives its calls: appends wait for the call's turn.
    turn: Option<order::Turn>,
}

struct Shared {
    id: Arc<str>,
    state: Mutex<State>,
    live: broadcast::Sender<Arc<Event>>,
    hub: Option<hub::Link>,
}

struct State {
    log: Box<dyn Log>,
    next_seq: u64,
    latest: HashMap<String, Arc<Event>>,
}

impl Session {
    /// A session kept in memory only, with a fresh id (`memory-1`, `memory-2`…).
    pub fn in_memory() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = format!("memory-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        Session::open(id, MemoryLog::new()).expect("an empty memory log recovers")
    }

    /// Opens the session `id` on `log`, replaying the events it holds: seqs continue after the
    /// last one, and [`Session::latest`] answers from the replayed events.
    pub fn open(id: impl Into<Arc<str>>, log: impl Log) -> Result<Self, SessionError> {
        Session::open_with(id.into(), Box::new(log), None)
    }

    fn open_with(
        id: Arc<str>,
        log: Box<dyn Log>,
        hub: Option<hub::Link>,
    ) -> Result<Self, SessionError> {
        let recovered = log.recover()?;
        let latest = recovered
            .latest
            .into_iter()
            .map(|event| (event.kind.clone(), Arc::new(event)))
            .collect();
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        Ok(Session {
            shared: Arc::new(Shared {
                id,
                state: Mutex::new(State {
                    log,
                    next_seq: recovered.next_seq,
                    latest,
                }),
                live,
                hub,
            }),
            turn: None,
        })
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.shared.id
    }

    /// Appends an event of `kind` with `data` and returns its seq once the event is
    /// acknowledged by the log.
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
        self.append_event(|seq| Event::new(seq, kind, raw_data, now()))
    }

    /// Appends an event of `kind` that keeps `data` itself, and returns its seq once the event
    /// is acknowledged. The data's JSON text is written only when something needs it — a log
    /// file, a subscriber reading [`Event::raw_data`] — so with a memory log an append costs no
    /// encoding, and [`Event::value`] gives `data` back as it was.
    ///
    /// ```
    /// # use tool_runtime::Session;
    /// let session = Session::in_memory();
    /// session.append_value("note/add", vec!["first".to_owned()]).unwrap();
    /// let latest = session.latest("note/add").unwrap();
    /// assert_eq!(latest.value::<Vec<String>>().unwrap(), &["first"]);
    /// assert_eq!(latest.raw_data().unwrap().get(), r#"["first"]"#);
    /// ```
    pub fn append_value<T: Serialize + Send + Sync + 'static>(
        &self,
        kind: &str,
        data: T,
    ) -> Result<u64, SessionError> {
        self.append_event(|seq| Event::with_value(seq, kind, data, now()))
    }

    fn append_event(&self, event: impl FnOnce(u64) -> Event) -> Result<u64, SessionError> {
        if let Some(turn) = &self.turn {
            turn.wait();
        }
        let (seq, ack) = {
            let mut state = self.lock();
            let seq = state.next_seq;
            let event = Arc::new(event(seq));
            let kind = event.kind.as_str();
            let ack = state.log.append(&event)?;
            state.next_seq = seq + 1;
            match state.latest.get_mut(kind) {
                Some(latest) => *latest = Arc::clone(&event),
                None => {
                    state.latest.insert(kind.to_owned(), Arc::clone(&event));
                }
            }
            if let Some(hub) = &self.shared.hub {
                hub.publish(&self.shared.id, &event);
            }
            // No receiver is not an error: nobody is watching.
            let _ = self.shared.live.send(event);
            (seq, ack)
        };
        ack.wait()?;
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

    /// Calls `visit` with every event whose seq is `seq` or later, read from the log: the events
    /// there when it was called (and, on a log another process writes, the ones it has written
    /// meanwhile).
    ///
    /// The log is read a chunk of events at a time under the session's lock, and `visit` runs
    /// outside it: a visitor may append to the session, or take its time, without holding up
    /// other appends; what it appends is not visited.
    ///
    /// ```
    /// # use tool_runtime::Session;
    /// let session = Session::in_memory();
    /// session.append("note/add", &"first").unwrap();
    /// let mut seen = Vec::new();
    /// session
    ///     .for_each_from(1, &mut |event| {
    ///         seen.push(event.seq);
    ///         session.append("note/seen", &event.seq).unwrap();
    ///     })
    ///     .unwrap();
    /// assert_eq!((seen, session.next_seq()), (vec![1], 3));
    /// ```
    pub fn for_each_from(
        &self,
        seq: u64,
        visit: &mut dyn FnMut(Event),
    ) -> Result<(), SessionError> {
        const CHUNK: usize = 256;
        let (head, follows) = {
            let state = self.lock();
            (state.next_seq, state.log.follows_another_writer())
        };
        let end = if follows { u64::MAX } else { head };
        let mut next = seq.max(1);
        let mut chunk = Vec::with_capacity(CHUNK);
        while next < end {
            self.lock().log.for_each_from(next, &mut |event| {
                if event.seq >= end {
                    return ControlFlow::Break(());
                }
                chunk.push(event);
                if chunk.len() == CHUNK {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })?;
            let full = chunk.len() == CHUNK;
            let Some(last) = chunk.last() else {
                break;
            };
            next = last.seq + 1;
            chunk.drain(..).for_each(&mut *visit);
            if !full {
                break;
            }
        }
        Ok(())
    }

    /// Every event whose seq is `seq` or later, read from the log.
    pub fn events_from(&self, seq: u64) -> Result<Vec<Event>, SessionError> {
        let mut events = Vec::new();
        self.for_each_from(seq, &mut |event| events.push(event))?;
        Ok(events)
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

    /// This session as one call of a batch sees it: its appends wait for the call's turn.
    pub(crate) fn in_turn(&self, turn: order::Turn) -> Session {
        Session {
            shared: Arc::clone(&self.shared),
            turn: Some(turn),
        }
    }

    fn subscription(&self, state: &State, next: u64) -> Subscription {
        Subscription {
            session: Session {
                shared: Arc::clone(&self.shared),
                turn: None,
            },
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
            .field("id", &self.shared.id)
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
        follow::try_next(self)
    }

    /// Waits for the next event.
    pub async fn next(&mut self) -> Result<Arc<Event>, SessionError> {
        follow::next(self).await
    }

    /// The seq of the next event this subscription yields.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The session this subscription follows.
    pub fn session(&self) -> &Session {
        &self.session
    }
}

impl follow::Follow for Subscription {
    type Item = Arc<Event>;

    fn live(&mut self) -> &mut broadcast::Receiver<Arc<Event>> {
        &mut self.live
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
        let backlog = &mut self.backlog;
        let mut last = None;
        self.session.for_each_from(self.next, &mut |event| {
            last = Some(event.seq);
            backlog.push_back(Arc::new(event));
        })?;
        if let Some(last) = last {
            self.head = self.head.max(last + 1);
        }
        Ok(())
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("session", &self.session.id())
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

//! An agent's session ([`Session`]): its id, its log, the latest event of each kind, and its
//! event stream.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::broadcast;

use crate::error::SessionError;
use crate::event::Event;
use crate::log::Log;
use crate::memory::MemoryLog;
use crate::order::Turn;
use crate::publish;

/// How many published events a subscriber may fall behind before it catches up from the log.
pub(crate) const LIVE_CAPACITY: usize = 1024;

/// An agent's session: its id, log, current state and event stream. Cloning is cheap and shares
/// the session.
#[derive(Clone)]
pub struct Session {
    pub(crate) shared: Arc<Shared>,
    /// Set on the handles a call batch gives its calls: appends wait for the call's turn.
    pub(crate) turn: Option<Turn>,
}

pub(crate) struct Shared {
    pub(crate) id: Arc<str>,
    pub(crate) state: Mutex<State>,
    /// The seq the next event gets: written only under `state`'s lock, read without it (a
    /// call's dispatch reads it before every call).
    pub(crate) next_seq: AtomicU64,
    pub(crate) live: broadcast::Sender<Arc<Event>>,
    pub(crate) hub: Option<publish::HubLink>,
    /// What the log says of itself ([`Log::blocks`]).
    pub(crate) log_blocks: bool,
}

pub(crate) struct State {
    log: Box<dyn Log>,
    // Seeded per process, as std's is: kinds read back from a log are not chosen by the code.
    latest: foldhash::HashMap<String, Arc<Event>>,
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

    pub(crate) fn open_with(
        id: Arc<str>,
        log: Box<dyn Log>,
        hub: Option<publish::HubLink>,
    ) -> Result<Self, SessionError> {
        let log_blocks = log.blocks();
        let recovered = blocking_if(log_blocks, || log.recover())?;
        let latest = recovered
            .latest
            .into_iter()
            .map(|event| (event.kind.clone(), Arc::new(event)))
            .collect();
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        Ok(Session {
            shared: Arc::new(Shared {
                id,
                state: Mutex::new(State { log, latest }),
                next_seq: AtomicU64::new(recovered.next_seq),
                live,
                hub,
                log_blocks,
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
    /// # use tool_session::Session;
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
    /// is acknowledged. [`Event::value`] gives `data` back as it was, with no decoding. Its JSON
    /// text is written only when something needs it — a log file, a reader of
    /// [`Event::raw_data`] — so with a memory log an append costs no encoding; a value serde
    /// cannot encode (a map whose keys are not strings, say) fails here all the same, on every
    /// log, and is never kept.
    ///
    /// ```
    /// # use tool_session::Session;
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
        crate::encodable::check(&data)?;
        self.append_event(|seq| Event::with_value(seq, kind, data, now()))
    }

    fn append_event(&self, event: impl FnOnce(u64) -> Event) -> Result<u64, SessionError> {
        // The log's write and the wait for the batch's turn block; the lock is held only as
        // long as a log's write.
        blocking_if(self.shared.log_blocks || self.turn.is_some(), || {
            self.append_blocking(event)
        })
    }

    /// Runs `read`, a read of the log, as the log needs ([`Log::blocks`]).
    fn reading<R>(&self, read: impl FnOnce() -> R) -> R {
        blocking_if(self.shared.log_blocks, read)
    }

    fn append_blocking(&self, event: impl FnOnce(u64) -> Event) -> Result<u64, SessionError> {
        // From the wait for the batch's turn to the log's acknowledgement: what an append costs
        // its caller.
        #[cfg(feature = "tracing")]
        let span = tracing::info_span!(
            "session.append",
            toolhost.session.store = tracing::field::Empty,
            toolhost.session.seq = tracing::field::Empty,
            gen_ai.conversation.id = self.id(),
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        #[cfg(feature = "tracing")]
        let _entered = span.enter();
        if let Some(turn) = &self.turn {
            turn.wait();
        }
        let (seq, ack) = {
            let mut state = self.lock();
            let seq = self.shared.next_seq.load(Ordering::Relaxed);
            #[cfg(feature = "tracing")]
            if !span.is_disabled() {
                span.record("toolhost.session.store", state.log.store());
                // As an integer: OpenTelemetry has no unsigned ones.
                span.record(
                    "toolhost.session.seq",
                    i64::try_from(seq).unwrap_or(i64::MAX),
                );
            }
            let event = Arc::new(event(seq));
            let kind = event.kind.as_str();
            let ack = state.log.append(&event)?;
            self.shared.next_seq.store(seq + 1, Ordering::Release);
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
        let acknowledged = ack.wait();
        #[cfg(feature = "tracing")]
        if acknowledged.is_err() {
            span.record("error.type", "session_error");
            span.record("otel.status_code", "error");
        }
        acknowledged?;
        Ok(seq)
    }

    /// The most recent event of `kind`, if there is one.
    pub fn latest(&self, kind: &str) -> Option<Arc<Event>> {
        self.lock().latest.get(kind).cloned()
    }

    /// Whether its log's reads and writes block their thread ([`Log::blocks`]): a file made
    /// durable, a database's round trip; not a log in memory.
    pub fn blocks(&self) -> bool {
        self.shared.log_blocks
    }

    /// The seq the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.shared.next_seq.load(Ordering::Acquire)
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
    /// # use tool_session::Session;
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
            (self.next_seq(), state.log.follows_another_writer())
        };
        let end = if follows { u64::MAX } else { head };
        let mut next = seq.max(1);
        let mut chunk = Vec::with_capacity(CHUNK);
        while next < end {
            self.reading(|| {
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
                })
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

    /// The latest event of `kind` as the session stood after `seq` (its seq is `seq` or lower):
    /// from the replayed state when nothing of `kind` came after `seq`, else asked of the log.
    ///
    /// ```
    /// # use tool_session::Session;
    /// let session = Session::in_memory();
    /// session.append("note/add", &"first").unwrap();
    /// session.append("other", &0).unwrap();
    /// session.append("note/add", &"second").unwrap();
    /// let at = |seq| session.latest_at("note/add", seq).unwrap().map(|e| e.seq);
    /// assert_eq!((at(0), at(1), at(2), at(3), at(99)), (None, Some(1), Some(1), Some(3), Some(3)));
    /// ```
    pub fn latest_at(&self, kind: &str, seq: u64) -> Result<Option<Arc<Event>>, SessionError> {
        self.reading(|| self.latest_at_blocking(kind, seq))
    }

    fn latest_at_blocking(&self, kind: &str, seq: u64) -> Result<Option<Arc<Event>>, SessionError> {
        let state = self.lock();
        match state.latest.get(kind) {
            Some(latest) if latest.seq <= seq => return Ok(Some(Arc::clone(latest))),
            None if !state.log.follows_another_writer() => return Ok(None),
            _ => {}
        }
        Ok(state.log.latest_at(kind, seq)?.map(Arc::new))
    }

    /// Takes in the events another writer appended to the log since this session last looked
    /// (a log opened to follow another process or host): each updates the replayed state and is
    /// published to subscribers, in seq order, as an append of this session's would be. Returns
    /// how many there were; always 0 on a log this session writes itself.
    pub fn refresh(&self) -> Result<usize, SessionError> {
        self.reading(|| self.refresh_blocking())
    }

    fn refresh_blocking(&self) -> Result<usize, SessionError> {
        let mut state = self.lock();
        if !state.log.follows_another_writer() {
            return Ok(0);
        }
        let from = self.next_seq();
        let mut events = Vec::new();
        state.log.for_each_from(from, &mut |event| {
            events.push(event);
            ControlFlow::Continue(())
        })?;
        let mut taken = 0;
        for event in events {
            // Only the next seq is taken: a gap (an event not visible yet) waits for the next
            // refresh, so nothing is skipped and nothing is taken twice.
            if event.seq != self.next_seq() {
                break;
            }
            let event = Arc::new(event);
            self.shared.next_seq.store(event.seq + 1, Ordering::Release);
            state.latest.insert(event.kind.clone(), Arc::clone(&event));
            if let Some(hub) = &self.shared.hub {
                hub.publish(&self.shared.id, &event);
            }
            let _ = self.shared.live.send(event);
            taken += 1;
        }
        Ok(taken)
    }

    /// This session as one call of a batch sees it: its appends wait for the call's turn (see
    /// [`Gate`](crate::Gate)).
    pub fn in_turn(&self, turn: Turn) -> Session {
        Session {
            shared: Arc::clone(&self.shared),
            turn: Some(turn),
        }
    }

    /// This session's live stream, subscribed to under the session's lock, and the seq the
    /// next append gets: every event from that seq on reaches the stream.
    pub(crate) fn watch(&self) -> (broadcast::Receiver<Arc<Event>>, u64) {
        let _state = self.lock();
        (self.shared.live.subscribe(), self.next_seq())
    }

    /// Another handle on this session, outside any batch.
    pub(crate) fn handle(&self) -> Session {
        Session {
            shared: Arc::clone(&self.shared),
            turn: None,
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
    // Whole microseconds, without the 128-bit division `as_micros` costs.
    UNIX_EPOCH + Duration::new(since_epoch.as_secs(), since_epoch.subsec_micros() * 1_000)
}

/// Runs `work` under [`blocking`](crate::blocking()) when it `blocks`, else as it is.
fn blocking_if<R>(blocks: bool, work: impl FnOnce() -> R) -> R {
    if blocks {
        crate::blocking::blocking(work)
    } else {
        work()
    }
}

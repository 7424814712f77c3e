//! Every session of a host, and one event stream over all of them.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::sync::broadcast;

use crate::error::SessionError;
use crate::follow;
use crate::log::Log;
use crate::publish::{HubEvent, HubLink};
use crate::session::{LIVE_CAPACITY, Session, Shared};

/// The sessions of a host, and one stream of all their events.
///
/// Sessions opened through a hub publish their events to it as well as to their own
/// subscribers. A [`HubSubscription`] sees every session's events in each session's seq order;
/// when it falls behind, it catches up from each session's log.
#[derive(Clone)]
pub struct SessionHub {
    inner: Arc<HubInner>,
}

struct HubInner {
    live: broadcast::Sender<HubEvent>,
    sessions: Mutex<Vec<Registered>>,
}

struct Registered {
    id: Arc<str>,
    shared: Weak<Shared>,
    /// The seq of the session's first event after it was opened.
    opened_at: u64,
}

impl SessionHub {
    /// A hub with no sessions.
    pub fn new() -> Self {
        let (live, _) = broadcast::channel(LIVE_CAPACITY);
        SessionHub {
            inner: Arc::new(HubInner {
                live,
                sessions: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Opens the session `id` on `log` as one of the hub's sessions. A session of that id that is
    /// open already is refused: two handles appending to one log would break its order.
    pub fn open(&self, id: impl Into<Arc<str>>, log: impl Log) -> Result<Session, SessionError> {
        let id = id.into();
        let mut sessions = self.lock();
        sessions.retain(|registered| registered.shared.strong_count() > 0);
        if sessions.iter().any(|registered| registered.id == id) {
            return Err(SessionError::AlreadyOpen { id: id.to_string() });
        }
        let link = HubLink::new(self.inner.live.clone());
        let session = Session::open_with(Arc::clone(&id), Box::new(log), Some(link))?;
        sessions.push(Registered {
            id,
            shared: Arc::downgrade(&session.shared),
            opened_at: session.next_seq(),
        });
        Ok(session)
    }

    /// The open session of this id.
    pub fn get(&self, id: &str) -> Option<Session> {
        self.lock()
            .iter()
            .find(|registered| &*registered.id == id)
            .and_then(|registered| registered.shared.upgrade())
            .map(|shared| Session { shared, turn: None })
    }

    /// Every open session.
    pub fn sessions(&self) -> Vec<Session> {
        self.lock()
            .iter()
            .filter_map(|registered| registered.shared.upgrade())
            .map(|shared| Session { shared, turn: None })
            .collect()
    }

    /// Subscribes to the events every session appends from now on, and those of sessions opened
    /// later.
    pub fn subscribe(&self) -> HubSubscription {
        // Subscribe first, then note where each session stands: an event in between is both in
        // the stream and before the mark, and is skipped once.
        let live = self.inner.live.subscribe();
        let next = self
            .sessions()
            .into_iter()
            .map(|session| (Arc::clone(&session.shared.id), session.next_seq()))
            .collect();
        HubSubscription {
            hub: self.clone(),
            live,
            next,
            backlog: VecDeque::new(),
        }
    }

    fn opened_at(&self, id: &str) -> u64 {
        self.lock()
            .iter()
            .find(|registered| &*registered.id == id)
            .map_or(1, |registered| registered.opened_at)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Registered>> {
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for SessionHub {
    fn default() -> Self {
        SessionHub::new()
    }
}

impl fmt::Debug for SessionHub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<String> = self.lock().iter().map(|r| r.id.to_string()).collect();
        f.debug_struct("SessionHub")
            .field("sessions", &ids)
            .finish()
    }
}

/// A stream of the events of every session of a hub, each session's in seq order.
pub struct HubSubscription {
    hub: SessionHub,
    live: broadcast::Receiver<HubEvent>,
    /// For each session seen, the seq of its next event to yield.
    next: HashMap<Arc<str>, u64>,
    backlog: VecDeque<HubEvent>,
}

impl HubSubscription {
    /// The next event if one is ready, without waiting.
    pub fn try_next(&mut self) -> Result<Option<HubEvent>, SessionError> {
        follow::try_next(self)
    }

    /// Waits for the next event.
    pub async fn next(&mut self) -> Result<HubEvent, SessionError> {
        follow::next(self).await
    }

    fn next_of(&mut self, session: &Arc<str>) -> &mut u64 {
        if !self.next.contains_key(session) {
            let opened_at = self.hub.opened_at(session);
            self.next.insert(Arc::clone(session), opened_at);
        }
        self.next.get_mut(session).expect("inserted above")
    }
}

impl follow::Follow for HubSubscription {
    type Item = HubEvent;

    fn live(&mut self) -> &mut broadcast::Receiver<HubEvent> {
        &mut self.live
    }

    fn pop_backlog(&mut self) -> Result<Option<HubEvent>, SessionError> {
        Ok(self.pop_event())
    }

    fn accept(&mut self, event: HubEvent) -> Result<Option<HubEvent>, SessionError> {
        self.accept_event(event)
    }

    fn catch_up(&mut self) -> Result<(), SessionError> {
        self.catch_up_all()
    }
}

impl HubSubscription {
    fn pop_event(&mut self) -> Option<HubEvent> {
        while let Some(event) = self.backlog.pop_front() {
            let next = self.next_of(&event.session);
            if event.event.seq >= *next {
                *next = event.event.seq + 1;
                return Some(event);
            }
        }
        None
    }

    fn accept_event(&mut self, event: HubEvent) -> Result<Option<HubEvent>, SessionError> {
        let next = *self.next_of(&event.session);
        if event.event.seq < next {
            return Ok(None);
        }
        if event.event.seq > next {
            self.catch_up(&event.session, next)?;
            self.backlog.push_back(event);
            return Ok(self.pop_event());
        }
        *self.next_of(&event.session) = next + 1;
        Ok(Some(event))
    }

    fn catch_up(&mut self, id: &Arc<str>, from: u64) -> Result<(), SessionError> {
        let Some(session) = self.hub.get(id) else {
            return Ok(());
        };
        let backlog = &mut self.backlog;
        session.for_each_from(from, &mut |event| {
            backlog.push_back(HubEvent {
                session: Arc::clone(id),
                event: Arc::new(event),
            });
        })
    }

    fn catch_up_all(&mut self) -> Result<(), SessionError> {
        for session in self.hub.sessions() {
            let id = Arc::clone(&session.shared.id);
            let from = *self.next_of(&id);
            self.catch_up(&id, from)?;
        }
        Ok(())
    }
}

impl fmt::Debug for HubSubscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HubSubscription")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

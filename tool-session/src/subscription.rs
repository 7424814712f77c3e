//! A stream of one session's events, lossless: live, or caught up from the log.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use tokio::sync::broadcast;

use crate::error::SessionError;
use crate::event::Event;
use crate::follow;
use crate::session::Session;

impl Session {
    /// Subscribes to the events appended from now on.
    pub fn subscribe(&self) -> Subscription {
        let (live, head) = self.watch();
        Subscription::new(self.handle(), live, head, head)
    }

    /// Subscribes to every event from `seq` on: the ones already in the log first, then the ones
    /// appended from now on, without a gap or a repeat.
    pub fn subscribe_from(&self, seq: u64) -> Subscription {
        let (live, head) = self.watch();
        Subscription::new(self.handle(), live, seq, head)
    }
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
    /// A subscription yielding `next` on; events before `head` are in the log already.
    fn new(session: Session, live: broadcast::Receiver<Arc<Event>>, next: u64, head: u64) -> Self {
        Subscription {
            session,
            live,
            next,
            head,
            backlog: VecDeque::new(),
        }
    }

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

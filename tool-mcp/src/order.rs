//! Arrival order for the calls of one connection.
//!
//! rmcp runs every request in a task of its own, so two `tools/call`s sent one after the other
//! could otherwise reach the session in either order. The transport hands each `tools/call` a
//! [`Ticket`] as it reads it; the handler waits for its ticket's turn (every earlier ticket
//! finished), runs the call and finishes its ticket. A ticket finishes when it is dropped too, so
//! a request rmcp never dispatches (it answers some requests itself) holds nothing up.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;

/// The tickets of one connection.
#[derive(Debug)]
pub(crate) struct Arrivals {
    state: Mutex<State>,
    /// Every ticket below this number is finished.
    finished_below: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    /// Finished tickets at or above `finished_below`.
    finished: BTreeSet<u64>,
    finished_below: u64,
}

impl Arrivals {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Arrivals {
            state: Mutex::new(State::default()),
            finished_below: watch::Sender::new(0),
        })
    }

    /// The next ticket, in arrival order.
    pub(crate) fn ticket(self: &Arc<Self>) -> Ticket {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let number = state.next;
        state.next += 1;
        Ticket {
            arrivals: Arc::clone(self),
            number,
            finished: AtomicBool::new(false),
        }
    }

    fn finish(&self, number: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.finished.insert(number);
        let mut below = state.finished_below;
        while state.finished.remove(&below) {
            below += 1;
        }
        state.finished_below = below;
        self.finished_below.send_if_modified(|current| {
            let changed = *current != below;
            *current = below;
            changed
        });
    }
}

/// One call's place in its connection's order.
#[derive(Debug)]
pub(crate) struct Ticket {
    arrivals: Arc<Arrivals>,
    number: u64,
    finished: AtomicBool,
}

impl Ticket {
    /// Waits until every earlier ticket of the connection is finished.
    pub(crate) async fn turn(&self) {
        let mut finished_below = self.arrivals.finished_below.subscribe();
        // The sender lives in `self.arrivals`, so waiting ends only by the condition.
        let _ = finished_below.wait_for(|below| *below >= self.number).await;
    }

    /// Marks the ticket finished, letting the next one have its turn. Dropping it does too.
    pub(crate) fn finish(&self) {
        if !self.finished.swap(true, Ordering::AcqRel) {
            self.arrivals.finish(self.number);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ready(ticket: &Ticket) -> bool {
        let turn = std::pin::pin!(ticket.turn());
        let waker = std::task::Waker::noop();
        turn.poll(&mut std::task::Context::from_waker(waker))
            .is_ready()
    }

    use std::future::Future;

    #[test]
    fn a_ticket_waits_for_every_earlier_one() {
        let arrivals = Arrivals::new();
        let first = arrivals.ticket();
        let second = arrivals.ticket();
        let third = arrivals.ticket();
        assert!(ready(&first));
        assert!(!ready(&second));
        // Finished out of order: the third still waits for the second.
        first.finish();
        assert!(ready(&second));
        assert!(!ready(&third));
        drop(second);
        assert!(ready(&third));
        third.finish();
        third.finish();
        assert!(ready(&arrivals.ticket()));
    }

    #[tokio::test]
    async fn a_dropped_ticket_releases_the_next() {
        let arrivals = Arrivals::new();
        let first = arrivals.ticket();
        let second = arrivals.ticket();
        let waiting = tokio::spawn(async move { second.turn().await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiting.is_finished());
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
    }
}

//! The order of the calls of one batch: each call's appends wait until every earlier call of the
//! batch has finished, so a model message's calls land in the model's order however they run.

use std::sync::{Arc, Condvar, Mutex};

/// The turns of one batch of calls: a host that runs a model message's calls at once gives
/// each call its session [`in_turn`](crate::Session::in_turn), and the calls' appends land in
/// the model's order.
#[derive(Debug)]
pub struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug)]
struct GateState {
    /// Every call before this one has finished.
    next: usize,
    finished: Vec<bool>,
}

impl Gate {
    /// The gate of a batch of `calls` calls, none finished.
    pub fn new(calls: usize) -> Arc<Self> {
        Arc::new(Gate {
            state: Mutex::new(GateState {
                next: 0,
                finished: vec![false; calls],
            }),
            changed: Condvar::new(),
        })
    }

    /// The turn of call `index`.
    pub fn turn(self: &Arc<Self>, index: usize) -> Turn {
        Turn {
            gate: Arc::clone(self),
            index,
        }
    }

    /// Marks call `index` finished, whether it appended or not.
    pub fn finish(&self, index: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.finished[index] = true;
        while state.next < state.finished.len() && state.finished[state.next] {
            state.next += 1;
        }
        self.changed.notify_all();
    }
}

/// One call's place in its batch.
#[derive(Clone, Debug)]
pub struct Turn {
    gate: Arc<Gate>,
    index: usize,
}

impl Turn {
    /// Waits until every earlier call of the batch has finished.
    pub fn wait(&self) {
        let mut state = self.gate.state.lock().unwrap_or_else(|p| p.into_inner());
        while state.next < self.index {
            state = self
                .gate
                .changed
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

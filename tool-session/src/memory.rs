//! A log kept in memory, for tests and for sessions that need not outlive the process.

use std::ops::ControlFlow;
use std::sync::Arc;

use crate::error::SessionError;
use crate::event::Event;
use crate::log::{Ack, Log};

/// A [`Log`] that keeps every event in memory. Nothing survives the process.
#[derive(Debug, Default)]
pub struct MemoryLog {
    events: Vec<Arc<Event>>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> Self {
        MemoryLog::default()
    }
}

impl Log for MemoryLog {
    fn store(&self) -> &'static str {
        "memory"
    }

    fn blocks(&self) -> bool {
        false
    }

    fn append(&mut self, event: &Arc<Event>) -> Result<Ack, SessionError> {
        self.events.push(Arc::clone(event));
        Ok(Ack::durable())
    }

    fn for_each_from(
        &self,
        seq: u64,
        visit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    ) -> Result<(), SessionError> {
        let start = self.events.partition_point(|event| event.seq < seq);
        for event in &self.events[start..] {
            if visit(Event::clone(event)).is_break() {
                break;
            }
        }
        Ok(())
    }
}

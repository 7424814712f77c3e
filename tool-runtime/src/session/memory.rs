//! A log kept in memory, for tests and for sessions that need not outlive the process.

use crate::SessionError;
use crate::event::Event;
use crate::session::Log;

/// A [`Log`] that keeps every event in memory. Nothing survives the process.
#[derive(Debug, Default)]
pub struct MemoryLog {
    events: Vec<Event>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> Self {
        MemoryLog::default()
    }
}

impl Log for MemoryLog {
    fn append(&mut self, event: &Event) -> Result<(), SessionError> {
        self.events.push(event.clone());
        Ok(())
    }

    fn read_from(&self, seq: u64) -> Result<Vec<Event>, SessionError> {
        let start = self.events.partition_point(|event| event.seq < seq);
        Ok(self.events[start..].to_vec())
    }
}

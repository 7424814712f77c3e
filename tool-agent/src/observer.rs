//! What a host shows of an agent's loop as it runs ([`Observer`]), and what it is told of a retry.

use std::time::Duration;

use tool_runtime::ToolOutput;
use tool_wire::ModelTurn;

use crate::conversation::Compaction;

/// A retry the client is about to make.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Retry {
    /// The attempt that failed, from 1.
    pub attempt: u32,
    /// How long the client waits before the next.
    pub wait: Duration,
    /// What went wrong (`429 Too Many Requests: …`, `connection refused`).
    pub reason: String,
}

/// What a host shows of a loop as it runs. Every method does nothing by default; `()` is an
/// observer that shows nothing.
pub trait Observer {
    /// Text the model wrote: each piece as it streams in, or a whole turn's at once.
    fn text(&mut self, _text: &str) {}
    /// The model's turn is complete and its calls are about to run.
    fn calls(&mut self, _turn: &ModelTurn) {}
    /// The calls ran; `outputs` pairs with `turn.calls`.
    fn results(&mut self, _turn: &ModelTurn, _outputs: &[ToolOutput]) {}
    /// A request failed and is about to be retried.
    fn retrying(&mut self, _retry: &Retry) {}
    /// The conversation was compacted before a request.
    fn compacted(&mut self, _compaction: &Compaction) {}
}

impl Observer for () {}

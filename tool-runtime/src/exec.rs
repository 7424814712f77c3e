//! The per-call context a host builds for each model tool call.

use crate::agent::Agent;

/// The context of one tool call, built by the host: who called and which call it is.
///
/// Nothing in it comes from the model's arguments, so the model can never choose the session a
/// tool writes to.
///
/// ```
/// # use tool_runtime::{Agent, Exec, Session};
/// let agent = Agent::new("agent-1", Session::in_memory());
/// let exec = Exec::for_agent(agent).with_call_id("call_42");
/// assert_eq!(exec.agent.as_ref().map(|a| a.id()), Some("agent-1"));
/// assert_eq!(exec.call_id.as_deref(), Some("call_42"));
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Exec {
    /// The agent that owns the call, if any. Tools that take an `Agent` parameter reject calls
    /// without one.
    pub agent: Option<Agent>,
    /// The provider's id for this tool call, if the host has one.
    pub call_id: Option<String>,
}

impl Exec {
    /// A call with no owning agent.
    pub fn new() -> Self {
        Exec::default()
    }

    /// A call owned by `agent`.
    pub fn for_agent(agent: Agent) -> Self {
        Exec {
            agent: Some(agent),
            call_id: None,
        }
    }

    /// The same context with the provider's call id set.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }
}

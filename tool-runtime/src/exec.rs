//! The per-call context a host builds for each model tool call.

use std::fmt;
use std::sync::Arc;

use crate::agent::Agent;
use crate::cancel::Cancel;
use crate::logger::{LogMessage, LogSink};
use crate::principal::Principal;
use crate::progress::{ProgressSink, ProgressUpdate};

/// What a host is told of a tool's panic: its message ([`Exec::with_panic_hook`]).
pub type PanicHook = Arc<dyn Fn(&str) + Send + Sync>;

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
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Exec {
    /// The agent that owns the call, if any. Tools that take an `Agent` parameter reject calls
    /// without one.
    pub agent: Option<Agent>,
    /// The provider's id for this tool call, if the host has one.
    pub call_id: Option<String>,
    /// The call's cancellation: the host cancels it, the call answers
    /// `Error: <tool> was cancelled`, and a tool that takes a [`Cancel`] sees it.
    pub cancel: Cancel,
    /// Who hears the progress a tool reports (see [`Progress`](crate::Progress)), if anyone.
    pub progress: Option<ProgressSink>,
    /// Who hears the messages its tool logs (see [`Logger`](crate::Logger)), if anyone.
    pub log: Option<LogSink>,
    /// Who carries the questions its tool asks (see [`Ask`](crate::Ask)), if anyone.
    pub ask: Option<Arc<dyn crate::ask::Asker>>,
    /// Who turns the call into a task where its tool says so (see [`Detach`](crate::Detach)),
    /// if anyone.
    pub detach: Option<Arc<dyn crate::detach::Detacher>>,
    /// Who is told when the tool panics, if anyone ([`Exec::with_panic_hook`]).
    pub panic_hook: Option<PanicHook>,
    /// Who made the call, when the host checked it; the local user when not (see
    /// [`Exec::principal`]).
    pub principal: Option<Principal>,
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
            ..Exec::default()
        }
    }

    /// The same context with the provider's call id set.
    #[must_use]
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// The same context for a call made by `principal`, whom the host checked (an HTTP
    /// endpoint's caller, by its token).
    #[must_use]
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// Who made the call: the caller the host checked, else the local user.
    pub fn principal(&self) -> Principal {
        self.principal.clone().unwrap_or_else(Principal::local)
    }

    /// The same context, cancelled through `cancel` (a clone the host keeps).
    #[must_use]
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = cancel;
        self
    }

    /// The same context, with the progress its tool reports going to `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// The same context, with the messages its tool logs going to `sink`.
    #[must_use]
    pub fn with_log(mut self, sink: impl Fn(LogMessage) + Send + Sync + 'static) -> Self {
        self.log = Some(Arc::new(sink));
        self
    }

    /// The same context, with the questions its tool asks carried by `asker`.
    #[must_use]
    pub fn with_ask(mut self, asker: Arc<dyn crate::ask::Asker>) -> Self {
        self.ask = Some(asker);
        self
    }

    /// The same context, `hook` told of the tool's panic with its message. The call still
    /// answers as any panicked call does (`Error: <tool> panicked: …`); a host that tells the
    /// server's failures from a tool's errors (MCP's tasks: `failed`, not `completed`) learns
    /// it was one.
    #[must_use]
    pub fn with_panic_hook(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.panic_hook = Some(Arc::new(hook));
        self
    }

    /// The same context, turned into a task by `detacher` where its tool says
    /// [`Detach::now`](crate::Detach::now).
    #[must_use]
    pub fn with_detach(mut self, detacher: Arc<dyn crate::detach::Detacher>) -> Self {
        self.detach = Some(detacher);
        self
    }
}

impl fmt::Debug for Exec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exec")
            .field("agent", &self.agent)
            .field("call_id", &self.call_id)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("ask", &self.ask.is_some())
            .field("detach", &self.detach.is_some())
            .field("panic_hook", &self.panic_hook.is_some())
            .field("principal", &self.principal.as_ref().map(|p| &p.subject))
            .finish()
    }
}

//! Where a call becomes a task: the [`Detach`] context parameter.

use std::fmt;
use std::sync::Arc;

/// Where a tool's call becomes a task (MCP's tasks extension): a tool declared
/// `#[tool(task)]` that takes a `Detach` runs as an ordinary call until it says
/// [`Detach::now`] — its questions until then go the way any call's do (in the stateless era,
/// as rounds the client answers) — and from there on as a task: the client gets the task's
/// handle at once and polls for the result, and the questions it asks go on the task.
///
/// A tool without a `Detach` parameter is a task from its start. Where the call runs as no
/// task (a client without the extension, an agent loop, the REPL), `now` does nothing.
///
/// ```
/// use tool_runtime::{Ask, Detach, tool};
///
/// /// Asks whose report it is, then writes it, which takes a while.
/// #[tool(task)]
/// async fn write_report(ask: Ask, detach: Detach) -> String {
///     let _ = ask;
///     detach.now();
///     "written".into()
/// }
/// ```
#[derive(Clone, Default)]
pub struct Detach(Option<Arc<dyn Detacher>>);

/// What a host does when a call detaches ([`Detach::now`]); given to a call with
/// [`Exec::with_detach`](crate::Exec::with_detach).
pub trait Detacher: Send + Sync {
    /// The call goes on as a task from here: the host answers its request with the task's
    /// handle. Called at most once per call that matters; later calls do nothing.
    fn detach(&self);
}

impl Detach {
    /// The parameter of a call whose host detaches it through `detacher`, if any.
    pub fn new(detacher: Option<&Arc<dyn Detacher>>) -> Self {
        Detach(detacher.cloned())
    }

    /// From here on the call goes on as a task, where its host runs it as one; returns whether
    /// it does. Saying it again does nothing more.
    pub fn now(&self) -> bool {
        match &self.0 {
            Some(detacher) => {
                detacher.detach();
                true
            }
            None => false,
        }
    }
}

impl fmt::Debug for Detach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Detach").field(&self.0.is_some()).finish()
    }
}

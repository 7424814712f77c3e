//! Context parameters: what a tool function receives from the call and the host, not the model.

use crate::agent::Agent;
use crate::ask::Ask;
use crate::cancel::Cancel;
use crate::detach::Detach;
use crate::exec::Exec;
use crate::logger::Logger;
use crate::output::ToolOutput;
use crate::principal::Principal;
use crate::progress::Progress;
use crate::refusal;
use crate::service::Service;
use crate::tool::Invocation;

/// A parameter of a `#[tool]` function that comes from the call or the host, never from the
/// model's arguments, and never appears in the schema.
///
/// Implemented for `&Exec` (the call's context), `Agent` (the owning agent; a call without one is
/// rejected), `Cancel` (the call's cancellation), `Progress` (where it reports progress), `Logger` (where it logs), `Ask` (where it asks the person or the client's model), `Detach` (where its call becomes a task),
/// `Principal` (who made the call),
/// `Option<Agent>`, `Service<T>` (a host service, which the tool's plugin injects) and
/// `Option<Service<T>>` (a host service the tool can do without: not injected, `None` when the
/// host provides none). Resolution fails with a value, never a panic.
///
/// The trait is sealed: `#[tool]` tells context parameters from model arguments by how their
/// types are spelled, so an implementation for another type could never be used. A value a tool
/// needs from its host is a [`Service<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a context parameter of a #[tool] function",
    note = "context parameters are `&Exec`, `Agent`, `Cancel`, `Progress`, `Logger`, `Ask`, `Detach`, `Principal`, `Option<Agent>`, `Service<T>` and `Option<Service<T>>`, spelled that way; every other parameter is a model argument"
)]
pub trait FromCall<'a>: Sized + sealed::Sealed {
    /// Whether a call cannot resolve the parameter without an owning agent (`Agent`): the
    /// tool's [`Definition::requires_agent`](crate::Definition::requires_agent).
    #[doc(hidden)]
    const REQUIRES_AGENT: bool = false;

    /// Whether the parameter says where the call becomes a task (`Detach`): the tool's
    /// [`Definition::detaches`](crate::Definition::detaches).
    #[doc(hidden)]
    const DETACHES: bool = false;

    /// Resolves the parameter for this call.
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput>;
}

impl<'a> FromCall<'a> for &'a Exec {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(call.exec)
    }
}

impl<'a> FromCall<'a> for Principal {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(call.exec.principal())
    }
}

impl<'a> FromCall<'a> for Cancel {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(call.cancel.clone())
    }
}

impl<'a> FromCall<'a> for Progress {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(Progress::new(
            call.exec.progress.as_ref(),
            call.tool,
            call.exec.call_id.as_deref(),
        ))
    }
}

impl<'a> FromCall<'a> for Logger {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(Logger::new(
            call.exec.log.as_ref(),
            call.tool,
            call.exec.call_id.as_deref(),
        ))
    }
}

impl<'a> FromCall<'a> for Ask {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(Ask::new(call.exec.ask.as_ref()))
    }
}

impl<'a> FromCall<'a> for Detach {
    const DETACHES: bool = true;

    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(Detach::new(call.exec.detach.as_ref()))
    }
}

impl<'a> FromCall<'a> for Agent {
    const REQUIRES_AGENT: bool = true;

    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        call.exec
            .agent
            .clone()
            .ok_or_else(|| refusal::requires_agent(call.tool))
    }
}

impl<'a> FromCall<'a> for Option<Agent> {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(call.exec.agent.clone())
    }
}

impl<'a, T: Send + Sync + 'static> FromCall<'a> for Service<T> {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        call.services
            .get::<T>()
            .ok_or_else(|| refusal::missing_service(call.tool, std::any::type_name::<T>()))
    }
}

impl<'a, T: Send + Sync + 'static> FromCall<'a> for Option<Service<T>> {
    fn from_call(call: &Invocation<'a>) -> Result<Self, ToolOutput> {
        Ok(call.services.get::<T>())
    }
}

mod sealed {
    use crate::agent::Agent;
    use crate::ask::Ask;
    use crate::cancel::Cancel;
    use crate::detach::Detach;
    use crate::exec::Exec;
    use crate::logger::Logger;
    use crate::principal::Principal;
    use crate::progress::Progress;
    use crate::service::Service;

    /// Only the context parameters `#[tool]` recognizes implement [`FromCall`](super::FromCall).
    pub trait Sealed {}

    impl Sealed for &Exec {}
    impl Sealed for Agent {}
    impl Sealed for Cancel {}
    impl Sealed for Progress {}
    impl Sealed for Logger {}
    impl Sealed for Ask {}
    impl Sealed for Detach {}
    impl Sealed for Principal {}
    impl Sealed for Option<Agent> {}
    impl<T: ?Sized> Sealed for Service<T> {}
    impl<T: ?Sized> Sealed for Option<Service<T>> {}
}

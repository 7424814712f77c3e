//! Context parameters: what a tool function receives from the call and the host, not the model.

use crate::{Agent, Call, Exec, Service, ToolOutput};

/// A parameter of a `#[tool]` function that comes from the call or the host, never from the
/// model's arguments, and never appears in the schema.
///
/// Implemented for `&Exec` (the call's context), `Agent` (the owning agent; a call without one is
/// rejected), `Option<Agent>`, `Service<T>` (a host service, which the tool's plugin injects) and
/// `Option<Service<T>>` (a host service the tool can do without: not injected, `None` when the
/// host provides none). Resolution fails with a value, never a panic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a context parameter of a #[tool] function",
    note = "context parameters are `&Exec`, `Agent`, `Option<Agent>`, `Service<T>` and `Option<Service<T>>`, spelled that way; every other parameter is a model argument"
)]
pub trait FromCall<'a>: Sized {
    /// Resolves the parameter for this call.
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput>;
}

impl<'a> FromCall<'a> for &'a Exec {
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput> {
        Ok(call.exec)
    }
}

impl<'a> FromCall<'a> for Agent {
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput> {
        call.exec.agent.clone().ok_or_else(|| {
            ToolOutput::error(format_args!(
                "{} requires an owning agent session",
                call.tool
            ))
        })
    }
}

impl<'a> FromCall<'a> for Option<Agent> {
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput> {
        Ok(call.exec.agent.clone())
    }
}

impl<'a, T: Send + Sync + 'static> FromCall<'a> for Service<T> {
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput> {
        call.services.get::<T>().ok_or_else(|| {
            ToolOutput::error(format_args!(
                "{} needs the host service `{}`, which this host does not provide",
                call.tool,
                std::any::type_name::<T>()
            ))
        })
    }
}

impl<'a, T: Send + Sync + 'static> FromCall<'a> for Option<Service<T>> {
    fn from_call(call: &Call<'a>) -> Result<Self, ToolOutput> {
        Ok(call.services.get::<T>())
    }
}

//! The `Tool` trait, and one invocation of a tool as it receives it.

use std::fmt;

use crate::cancel::Cancel;
use crate::exec::Exec;
use crate::future::ToolFuture;
use crate::output::ToolOutput;
use crate::refusal;
use crate::service::Services;
use tool_schema::Definition;

/// A model-facing tool. `#[tool]` implements it; a host rarely does.
pub trait Tool: Send + Sync + 'static {
    /// The tool's name, description and input schema, computed once.
    fn definition(&self) -> &Definition;

    /// Runs one call. The registry has checked the tool name and the size of the arguments; the
    /// tool resolves its context parameters, parses the arguments and runs.
    fn call<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a>;

    /// Where the tool came from, when its type does not tell (a runtime-defined tool's source:
    /// a config file, another MCP server): a refusal of two tools of one name says it. `None`
    /// (the tool's type names it) by default.
    fn source(&self) -> Option<&str> {
        None
    }

    /// Checks `args`, a call's JSON text, against the tool's input schema without running it:
    /// the refusal a call would answer (`Error: invalid arguments: …`), or `None` when they pass
    /// — for a host that vets arguments a person edited before the call is made.
    fn check_args(&self, args: &str) -> Option<ToolOutput> {
        let value: serde_json::Value = match serde_json::from_str(args) {
            Ok(value) => value,
            Err(error) => return Some(refusal::malformed_args(&error)),
        };
        tool_schema::validate::first_violation(self.definition().checked_schema(), &value)
            .map(|violation| refusal::invalid_args(&violation.path, violation.message))
    }
}

/// One invocation of a tool, as [`Tool::call`] receives it: the host's context for the call and
/// the model's raw arguments.
#[derive(Clone)]
pub struct Invocation<'a> {
    /// The host's context for the call.
    pub exec: &'a Exec,
    /// The model's raw JSON arguments.
    pub args: &'a str,
    pub(crate) services: &'a Services,
    pub(crate) tool: &'a str,
    /// The call's own cancellation: the host's, or a child of it when the call has a deadline.
    pub(crate) cancel: Cancel,
}

impl<'a> Invocation<'a> {
    /// The name of the tool being called.
    pub fn tool(&self) -> &'a str {
        self.tool
    }
}

impl fmt::Debug for Invocation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invocation")
            .field("tool", &self.tool)
            .field("exec", &self.exec)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// A shared tool is a tool: one value registered in several registries (a host's, and a copy
/// with more tools beside).
impl<T: Tool + ?Sized> Tool for std::sync::Arc<T> {
    fn definition(&self) -> &Definition {
        (**self).definition()
    }

    fn call<'a>(&'a self, call: Invocation<'a>) -> ToolFuture<'a> {
        (**self).call(call)
    }

    fn source(&self) -> Option<&str> {
        (**self).source()
    }
}

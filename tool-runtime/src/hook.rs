//! Policy hooks around every dispatch: [`Hook`].
//!
//! A hook sits between the model and the tools, in the registry, so every host that dispatches
//! through it — the MCP server, the agent loop, the REPL, `call` — passes through it. Before a
//! call it allows it, denies it with a reason the model reads, or rewrites its arguments (which
//! the tool then checks against its schema, as it checks any). After a call it may replace the
//! result (redact a secret, say).
//!
//! Hooks run in the order they were added before a call (the first denial stops the call; each
//! sees the arguments the hooks before it left), and in the reverse order after it, as layers
//! around the tool. A call a hook denied runs no after hook.
//!
//! ```
//! use serde_json::{Value, json};
//! use tool_runtime::hook::{self, Before};
//! use tool_runtime::{Ctx, DynamicTool, Exec};
//!
//! let plan = DynamicTool::builder(
//!     "plan",
//!     "Plans tasks.",
//!     json!({"type": "object", "properties": {"tasks": {"type": "array",
//!         "items": {"type": "string"}}}, "required": ["tasks"]}),
//! )
//! .handler(|_, args: Value| format!("planned {}", args["tasks"].as_array().unwrap().len()))
//! .unwrap();
//! let mut ctx = Ctx::new();
//! ctx.tool(plan).unwrap();
//! // A policy: no plan of more than two tasks.
//! ctx.tools.hook(hook::before_call(|call| {
//!     let args: Value = serde_json::from_str(call.args()).unwrap_or_default();
//!     match args["tasks"].as_array() {
//!         Some(tasks) if tasks.len() > 2 => Before::Deny("plan at most two tasks".into()),
//!         _ => Before::Allow,
//!     }
//! }));
//! let call = |args: &str| ctx.tools.call("plan", &Exec::new(), args).wait().text;
//! assert_eq!(call(r#"{"tasks": ["a", "b"]}"#), "planned 2");
//! assert_eq!(call(r#"{"tasks": ["a", "b", "c"]}"#), "Error: plan at most two tasks");
//! ```

use std::fmt;

use crate::exec::Exec;
use crate::output::ToolOutput;
use tool_schema::Definition;

/// A policy around every call a registry dispatches: see the [module](self).
pub trait Hook: Send + Sync + 'static {
    /// Decides on a call before it runs. [`Before::Allow`] by default.
    fn before(&self, call: &HookCall<'_>) -> Before {
        let _ = call;
        Before::Allow
    }

    /// The result the model reads of a call that ran: `output` as it is by default.
    fn after(&self, call: &HookCall<'_>, output: ToolOutput) -> ToolOutput {
        let _ = call;
        output
    }
}

/// What a hook decides before a call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Before {
    /// The call goes on.
    Allow,
    /// The call does not run; the model reads `Error: ` and the reason.
    Deny(String),
    /// The call goes on with these arguments (a JSON object's text) instead, checked against
    /// the tool's schema as any arguments are.
    Rewrite(String),
}

/// A call as a hook sees it: the tool, the arguments, the host's context.
#[derive(Clone, Copy)]
pub struct HookCall<'a> {
    pub(crate) definition: &'a Definition,
    pub(crate) args: &'a str,
    pub(crate) exec: &'a Exec,
}

impl<'a> HookCall<'a> {
    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.definition.name()
    }

    /// The tool's definition: its annotations (read-only, destructive…) among the rest.
    pub fn definition(&self) -> &'a Definition {
        self.definition
    }

    /// The arguments' JSON text, as the model sent them or as an earlier hook rewrote them.
    pub fn args(&self) -> &'a str {
        self.args
    }

    /// The host's context for the call: its agent, its principal.
    pub fn exec(&self) -> &'a Exec {
        self.exec
    }
}

impl fmt::Debug for HookCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookCall")
            .field("tool", &self.tool())
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// A hook that decides before each call with `decide`.
pub fn before_call<F>(decide: F) -> impl Hook
where
    F: Fn(&HookCall<'_>) -> Before + Send + Sync + 'static,
{
    BeforeCall(decide)
}

/// A hook that passes each result of a call that ran through `replace`.
pub fn after_call<F>(replace: F) -> impl Hook
where
    F: Fn(&HookCall<'_>, ToolOutput) -> ToolOutput + Send + Sync + 'static,
{
    AfterCall(replace)
}

struct BeforeCall<F>(F);

impl<F> Hook for BeforeCall<F>
where
    F: Fn(&HookCall<'_>) -> Before + Send + Sync + 'static,
{
    fn before(&self, call: &HookCall<'_>) -> Before {
        (self.0)(call)
    }
}

struct AfterCall<F>(F);

impl<F> Hook for AfterCall<F>
where
    F: Fn(&HookCall<'_>, ToolOutput) -> ToolOutput + Send + Sync + 'static,
{
    fn after(&self, call: &HookCall<'_>, output: ToolOutput) -> ToolOutput {
        (self.0)(call, output)
    }
}

/// Plan mode: only tools that declare themselves read-only run, and the ones named allowed; any
/// other call is denied with a reason that tells the model to present its plan instead.
///
/// ```
/// use tool_runtime::hook::PlanMode;
/// use tool_runtime::{Annotations, Ctx, DynamicTool, Exec};
///
/// let tool = |name: &str, annotations: Annotations| {
///     DynamicTool::builder(name, "A tool.", serde_json::json!({"type": "object"}))
///         .annotations(annotations)
///         .handler(|_, _| "ran")
///         .unwrap()
/// };
/// let mut ctx = Ctx::new();
/// ctx.tool(tool("read", Annotations::new().with_read_only(true))).unwrap();
/// ctx.tool(tool("delete", Annotations::new().with_destructive(true))).unwrap();
/// ctx.tool(tool("todo_write", Annotations::new())).unwrap();
/// // The plan itself is written with todo_write, which is not read-only.
/// ctx.tools.hook(PlanMode::new().allow("todo_write"));
/// let call = |name: &str| ctx.tools.call(name, &Exec::new(), "{}").wait().text;
/// assert_eq!(call("read"), "ran");
/// assert_eq!(call("todo_write"), "ran");
/// assert!(call("delete").starts_with("Error: delete is not run in plan mode"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct PlanMode {
    allowed: Vec<String>,
}

impl PlanMode {
    /// Read-only tools only.
    pub fn new() -> Self {
        PlanMode::default()
    }

    /// The tool `name` runs too.
    #[must_use]
    pub fn allow(mut self, name: impl Into<String>) -> Self {
        self.allowed.push(name.into());
        self
    }
}

impl Hook for PlanMode {
    fn before(&self, call: &HookCall<'_>) -> Before {
        let name = call.tool();
        if call.definition.annotations().read_only() == Some(true)
            || self.allowed.iter().any(|allowed| allowed == name)
        {
            Before::Allow
        } else {
            Before::Deny(format!(
                "{name} is not run in plan mode, which runs only read-only tools; present the \
                 plan and let the user approve it first"
            ))
        }
    }
}

//! The runtime for `#[tool]` functions: the tools an LLM agent calls.
//!
//! A tool author writes a plain Rust function and puts [`#[tool]`](tool) on it. The runtime
//! gives hosts what they need to use it: a [`Ctx`] that loads [`Plugin`]s and holds the
//! [`ToolRegistry`], a model-facing [`Definition`] per tool, dispatch of one model tool call to a
//! [`ToolOutput`] (`ctx.tools.call(name, &exec, args)`), and agent [`Session`]s with their event
//! logs and [`Subscription`]s.
//!
//! ```
//! use tool_runtime::{Agent, Ctx, Exec, Session, ToolError, tool};
//!
//! /// Adds a note to the agent's session.
//! #[tool]
//! fn note(
//!     agent: Agent,
//!     /// The note, one line.
//!     text: String,
//! ) -> Result<String, ToolError> {
//!     if text.trim().is_empty() {
//!         return Err(ToolError::new("a note needs text"));
//!     }
//!     agent
//!         .session()
//!         .append("note/add", &text)
//!         .map_err(|error| ToolError::new(error.to_string()))?;
//!     Ok("Noted".into())
//! }
//!
//! let mut ctx = Ctx::new();
//! ctx.plugin::<Note>().unwrap();
//!
//! let agent = Agent::new("agent-1", Session::in_memory());
//! let exec = Exec::for_agent(agent.clone());
//! let out = ctx.tools.call("note", &exec, r#"{"text": "buy milk"}"#).wait();
//! assert_eq!((out.text.as_str(), out.is_error), ("Noted", false));
//!
//! let out = ctx.tools.call("note", &exec, r#"{"text": 5}"#).wait();
//! assert_eq!(out.text, "Error: invalid arguments: text: expected a string, got 5");
//! ```
//!
//! # Sync and async hosts
//!
//! One rule joins blocking work to async hosts: **blocking code stays blocking, and steps off an
//! async worker where it blocks.** A host may be synchronous (a thread that calls
//! [`ToolFuture::wait`]) or a tokio runtime of either flavor (`.await`); every tool and every
//! store works from each:
//!
//! - A [`Session`] runs every read and write of its log through [`blocking`]: on a worker of a
//!   multi-threaded runtime the worker hands its other tasks on (`block_in_place`) while the
//!   log writes, fsyncs or asks its database, so a slow store slows only the calls waiting on it.
//!   A tool that appends to its session needs nothing of its own, sync or async.
//! - A store whose driver cannot run inside a runtime (the blocking PostgreSQL client drives a
//!   runtime of its own) keeps each connection on a thread of its own and sends it the work, so
//!   it opens, writes and drops from any thread (see the `tool-session-pg` crate).
//! - A tool that blocks on I/O of its own says `#[tool(blocking)]` and runs on the runtime's
//!   blocking pool when awaited.
//! - On a current-thread runtime there is no other worker to hand tasks to: a store's I/O runs
//!   on that thread, correctly, and holds it meanwhile.
//!
//! # The room
//!
//! The framework's centre: what a tool is and how a call runs. It uses `tool-macros` (the
//! attribute it re-exports), `tool-schema` (definitions and the checks of every call),
//! `tool-session` (sessions and events) and `tool-text`, and re-exports what an author names
//! (`Definition`, `Session`, `Event`, [`text`], [`session`]), so an author depends on this crate
//! alone. It knows nothing of HTTP, databases, providers' wire formats (`tool-wire`) or MCP
//! (`tool-mcp`): a store, a provider or a transport is something a host plugs in.
//!
//! # Platforms
//!
//! Unix only: session logs rely on Unix file semantics (`O_NOFOLLOW`, modes `0600`/`0700`,
//! positioned reads). Building for another target is a compile error saying so.
//!
//! # Argument errors
//!
//! Every tool reports bad arguments in one format, checked before the tool runs:
//!
//! ```text
//! Error: invalid arguments: <path>: <problem>
//! ```
//!
//! `<path>` locates the first failing value, in the order the model sent the members: object
//! members as `.name` (or `["odd name"]`), array items as `[index]`, as in `todos[1].status`. It
//! and its colon are left out when the problem is the arguments as a whole. `<problem>` is one of:
//!
//! - `expected <what the schema allows>, got <what was sent>`, such as
//!   `expected one of "pending", "in_progress", "completed", got "done"`,
//!   `expected an object, got an array` or `expected an integer from 0 to 255, got 300`;
//! - `missing field "<name>"` (after the object's members were checked);
//! - `unknown field "<name>", expected one of "<name>", …` (or `expected "<name>"`, or
//!   `expected no fields`);
//! - `malformed JSON: <what the JSON parser says> at line <l> column <c>`;
//! - `<n> bytes is more than the limit of <max> bytes`, for arguments over the host's cap
//!   ([`ToolRegistry::set_max_args_bytes`]).
//!
//! Strings the model sent are quoted as JSON string literals, cut to 48 characters with `…`.
//! The words come from the tool's input schema, so they never name a Rust type.
//!
//! Other errors of the runtime: `Error: unknown tool "<name>"; available tools: <names>`,
//! `Error: <tool> requires an owning agent session` (a tool with an `Agent` parameter called with
//! no owning agent), and `Error: <tool> panicked: <message>`.

#[cfg(not(unix))]
compile_error!(
    "tool-runtime runs on Unix: session logs rely on Unix file semantics (O_NOFOLLOW, file modes, positioned reads)"
);

// The host's side: a context that loads plugins, the services it provides, and the registry that
// dispatches calls.
mod ctx;
mod registry;
mod service;
// One call: the host's per-call context, the tool it reaches, its context parameters and model
// arguments, and what comes back.
mod args;
mod ask;
mod batch;
mod cancel;
mod detach;
mod exec;
mod from_call;
mod future;
pub mod hook;
mod logger;
mod output;
mod principal;
mod progress;
mod prompt;
mod refusal;
mod resource;
mod role;
mod tool;
// Agents and the tools defined at run time.
mod agent;
mod dynamic;
// Shared: errors.
mod error;

/// Sessions, their logs and events: the `tool-session` crate, whose [`Session`], [`Event`] and
/// [`SessionError`] this crate names at its root.
pub use tool_session as session;
/// Text from models and files made safe to show: the `tool-text` crate.
pub use tool_text as text;

pub use agent::Agent;
pub use args::ModelArg;
pub use ask::{
    Answer, Ask, AskError, Asker, Form, NO_FORM, NO_MODEL, NO_ROOTS, Question, Reply, Replying,
    Root, Sampled, Sampling,
};
pub use batch::ToolCall;
pub use cancel::Cancel;
pub use ctx::{Ctx, Plugin};
pub use detach::{Detach, Detacher};
pub use dynamic::{Call, DynamicTool, DynamicToolBuilder};
pub use error::{LoadError, ToolError};
pub use exec::{Exec, PanicHook};
pub use from_call::FromCall;
pub use future::ToolFuture;
pub use logger::{LogLevel, LogMessage, LogSink, Logger};
pub use output::{
    Attachment, Audio, Body, DONE, EmbeddedResource, Image, IntoToolOutput, StructuredOutput,
    ToolOutput,
};
pub use principal::{OWNER_EVENT, Owner, Principal};
pub use progress::{Progress, ProgressSink, ProgressUpdate};
pub use prompt::{
    Prompt, PromptArgument, PromptContent, PromptError, PromptMessage, Prompts, Role,
};
pub use registry::{
    DEFAULT_MAX_ARGS_BYTES, DEFAULT_MAX_PARALLEL, DEFAULT_MAX_RESULT_BYTES, ToolRegistry,
};
pub use resource::{About, ReadError, Resource, ResourceChanges, ResourceTemplate, Resources};
pub use service::{Service, ServiceKey};
pub use tool::{Invocation, Tool};
pub use tool_schema::{
    Annotations, Asks, Concurrency, Definition, Dialect, DialectError, TaskSupport,
};
pub use tool_session::{Event, Session, SessionError, SessionHub, Subscription, blocking};

/// Turns a function into a model-facing tool.
///
/// ```
/// use tool_runtime::{Agent, ToolError, tool};
///
/// /// Counts the words in a text.
/// #[tool(name = "count_words")]
/// pub fn count_words(
///     /// The text to count.
///     text: String,
///     /// Count only words at least this long.
///     min_len: Option<usize>,
/// ) -> String {
///     let min_len = min_len.unwrap_or(0);
///     text.split_whitespace().filter(|w| w.len() >= min_len).count().to_string()
/// }
///
/// // The function stays an ordinary function.
/// assert_eq!(count_words("a bb ccc".into(), Some(2)), "2");
///
/// // And `CountWords` is the tool.
/// use tool_runtime::Tool;
/// let definition = CountWords.definition();
/// assert_eq!(definition.name(), "count_words");
/// assert_eq!(definition.description(), "Counts the words in a text.");
/// assert_eq!(definition.input_schema()["required"], serde_json::json!(["text"]));
/// ```
///
/// # Parameters
///
/// Parameters of these types are **context parameters**, filled by the host for each call and
/// never part of the schema: `&Exec` (the call's context), `Agent` (the owning agent; a call
/// without one is rejected with `Error: <tool> requires an owning agent session`; the tool's
/// definition says it needs one, [`Definition::requires_agent`], so a host serving a call that
/// names no session can begin one for it),
/// `Option<Agent>`, [`Cancel`] (the call's cancellation), [`Progress`] (where it reports how far
/// it is), [`Logger`] (where it logs, for the host to pass on), [`Ask`] (where it asks
/// the person to fill in a form, or the client's model to write, for the host to carry),
/// [`Principal`] (who called: the
/// checked caller of an HTTP endpoint, else the local user), `Service<T>` (a host service, which the tool's plugin then injects) and
/// `Option<Service<T>>` (a host service the tool can do without). They are recognized by how they
/// are spelled, so a type alias of one is read as a model argument and
/// refused at compile time.
///
/// Every other parameter is a **model argument**: one property of the input schema, named after
/// the parameter, required unless its type is an `Option`. Its type must implement
/// `serde::Deserialize` and `schemars::JsonSchema`, and own its data (`String`, not `&str`).
/// Doc comments on a model argument become the property's `description`; doc comments and serde
/// attributes on the argument types reach the schema through schemars.
///
/// # Constraints
///
/// Every validation keyword in the input schema is enforced before the tool runs, and refused in
/// the schema's words (see the crate's "Argument errors"). Every object that declares members is
/// closed (`additionalProperties: false`) unless it is a map. A model argument takes the
/// attributes a struct field does, with the same meaning: `#[serde(rename = "…")]`,
/// `#[serde(default)]`, `#[serde(default = "path")]`, and `#[schemars(…)]` with `range`,
/// `length`, `regex`, `pattern`, `contains`, `inner`, `email`, `url`, `example` or `extend`.
/// Any other key is a compile error naming these. `format` is an annotation, not asserted.
///
/// ```
/// use tool_runtime::{Ctx, Exec, tool};
///
/// /// Rolls dice.
/// #[tool]
/// fn roll(
///     /// How many dice.
///     #[schemars(range(min = 1, max = 10))]
///     count: u8,
///     #[serde(rename = "sidesEach", default = "six")]
///     sides_each: u32,
/// ) -> String {
///     format!("{count}d{sides_each}")
/// }
///
/// fn six() -> u32 {
///     6
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Roll>().unwrap();
/// let call = |args| ctx.tools.call("roll", &Exec::new(), args).wait().text;
/// assert_eq!(call(r#"{"count": 2}"#), "2d6");
/// assert_eq!(call(r#"{"count": 2, "sidesEach": 20}"#), "2d20");
/// assert_eq!(
///     call(r#"{"count": 11}"#),
///     "Error: invalid arguments: count: expected an integer from 1 to 10, got 11"
/// );
/// ```
///
/// # Description
///
/// The tool's description is `description = <expr>` when given (a string literal, or
/// `include_str!("…")`, passed byte for byte), else the function's doc comment. Doc comments
/// (the tool's and the parameters') become text by one rule: each `///` line loses one leading
/// space if it has one, and the lines are joined with `\n`; nothing else is trimmed or changed.
/// A tool with neither is a compile error.
///
/// # Attribute keys
///
/// - `name = "…"`: the name the model sees, by default the function's name. It must match
///   `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, which every major provider accepts.
/// - `description = <expr>`: see above.
/// - `type_name = "…"`: the generated type's name, by default the function's name in
///   `UpperCamelCase` (`bump` → `Bump`). Give another when that name is yours already: an item
///   of that name where the function is (a `struct Bump` for its arguments, say) is one compile
///   error on the function, "`Bump` is another item than the tool type `#[tool]` generates for
///   this function", whose note offers this key.
/// - `title = "…"`, and the flags `read_only`, `destructive`, `idempotent`, `open_world` (each
///   also `= true` or `= false`): a title for people and MCP's behaviour hints, in
///   [`Definition::annotations`] and MCP's `tools/list`; see [`Annotations`].
/// - `blocking`: the (synchronous) function blocks — file I/O, a subprocess — so when a host
///   awaits the call on a tokio runtime it runs on the runtime's blocking threads, and the
///   executor goes on with other calls meanwhile. Without it a synchronous tool runs on the
///   calling thread, which suits quick ones (`todo_write`). On an `async fn` it is an error.
/// - `assert_formats`: the `format` of every string argument (`email`, `date`, `uri`, …) is
///   checked before the tool runs, not only shown to the model, which is JSON Schema's default.
///   Needs the runtime's `formats` feature; a tool that asserts a format with no checker, or
///   asserts without the feature, fails to load, saying which.
/// - `timeout = "30s"`: how long a call may run (a `humantime` duration, read at compile time).
///   Past it the call answers `Error: <tool> timed out after 30 s` and its [`Cancel`] is
///   cancelled. Only on an `async fn` or a `blocking` one: a plain synchronous tool runs on its
///   caller's thread, where nothing can cut it short.
/// - `serial`: never beside another call of the same tool in one batch (a model's turn run at
///   once): `todo_write` is serial, one list per agent. `exclusive`: alone, no other call of the
///   batch runs while it does. Without either a call runs beside any others
///   ([`Concurrency`], [`Definition::concurrency`]).
/// - `needs_approval`: each call waits for a person's decision before it runs: an agent loop
///   (`tool-agent`) pauses the run with the call pending in the session, and a host asks; an
///   MCP server asks the person through the client (`elicitation/create`) and refuses the call,
///   in a text the model can act on, when the client cannot ask ([`Definition::needs_approval`]).
/// - `deferred`: the model is not shown the tool until it searches for it: an agent loop
///   (`tool-agent`) with deferred tools offers a search tool in their place and sends a found
///   tool's definition from then on, so many tools cost a request few tokens
///   ([`Definition::deferred`]). A call is checked as any other's.
/// - `task`, `task = "required"`: a call may run as a task (MCP's tasks extension): a client
///   that speaks the extension is answered at once with the task's handle and polls for the
///   result, which any replica of an HTTP endpoint answers; any other client waits for the
///   call's end as for any call, or, with `"required"`, is refused (`-32021`). The call is a
///   task from its start, or from where the tool says [`Detach::now`] when it takes a
///   [`Detach`] ([`Definition::task_support`], [`TaskSupport`]). Elsewhere (an agent loop,
///   the REPL) it is an ordinary call.
/// - `scopes = "todos:write admin"`: the OAuth scopes (space-separated) a caller's token needs
///   to call the tool over an HTTP endpoint that checks callers; such an endpoint lists the
///   tool only to callers that have them ([`Definition::scopes`]). Over stdio and in the REPL
///   the caller is the local user and nothing is checked.
/// - `allow_undocumented`: see below.
///
/// # Undocumented parameters
///
/// A model argument without a doc comment gets no `description`, so the model knows it by its
/// name alone. That is a compile-time warning on the parameter (raised through the `deprecated`
/// lint, the one a macro can raise on stable Rust: "parameter `x` of tool `t` has no doc
/// comment…"). Document the parameter, or say `#[tool(allow_undocumented)]` where the names say
/// enough.
///
/// # What it generates
///
/// The function itself, unchanged but for its parameters' doc comments, and a unit type as
/// visible as the function, named after it in `UpperCamelCase` (`todo_write` → `TodoWrite`) or
/// by `type_name`, that implements [`Tool`] and [`Plugin`]. The type is declared in a hidden
/// module and imported beside the function, so that it can never silently stand for another. Its definition is computed once. `fn` and `async fn` both work; an `async fn`'s
/// future must be `Send`. The return type is text — `String`, `&'static str`,
/// `Cow<'static, str>`, [`ToolOutput`], [`Image`], [`Audio`], [`EmbeddedResource`], anything
/// that implements [`IntoToolOutput`] — or data: any
/// other type that implements `Serialize` and `JsonSchema` ([`StructuredOutput`]), whose compact
/// JSON the model reads and whose schema is the definition's output schema; either in a
/// `Result<_, E: Display>` or not. Which one is read from how the type is spelled.
///
/// Setting the environment variable `TOOL_MACROS_DEBUG` while building prints each expansion on
/// standard error.
pub use tool_macros::tool;

#[doc(hidden)]
pub mod __private {
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;

    pub use crate::args::{ArgFields, parse_args};
    pub use crate::output::structured_output;
    pub use crate::{
        Annotations, Asks, Concurrency, Ctx, Definition, Exec, FromCall, IntoToolOutput,
        Invocation, LoadError, ModelArg, Plugin, ServiceKey, TaskSupport, Tool, ToolFuture,
        ToolOutput,
    };
    pub use ::tool_schema::ArgSpec;

    /// The normalized schema of `T`, a tool's output.
    pub fn output_schema<T: crate::StructuredOutput>() -> ::serde_json::Value {
        ::tool_schema::output_schema::<T>()
    }

    /// Holds a tool's definition, computed on first use.
    ///
    /// It takes the computation as a function pointer, not a closure type: the lazy cell's code
    /// is then built once here, not again for every tool in each tool's crate.
    #[derive(Debug, Default)]
    pub struct DefinitionCell(::std::sync::OnceLock<Definition>);

    impl DefinitionCell {
        /// An empty cell.
        pub const fn new() -> Self {
            DefinitionCell(::std::sync::OnceLock::new())
        }

        /// The definition, computed by `init` on the first call.
        pub fn get_or_init(&self, init: fn() -> Definition) -> &Definition {
            self.0.get_or_init(init)
        }
    }

    /// Implemented by the types `#[tool]` generates, and by nothing else.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is another item than the tool type `#[tool]` generates for this function",
        label = "the tool's type is named after the function, and this name is taken",
        note = "rename the other item, or give the tool's type another name: `#[tool(type_name = \"…\")]`"
    )]
    pub trait GeneratedToolType {}

    /// Compiles only when the name `T` resolves to a type `#[tool]` generated.
    pub const fn assert_generated_tool_type<T: GeneratedToolType>() {}

    /// A parameter's default, as its schema's `default` says it: `MaybeSerialize(value)
    /// .to_default()` is the value's JSON when its type is `Serialize` (this inherent method),
    /// and `None` otherwise ([`NotSerialize`]'s, which method resolution falls back to).
    pub struct MaybeSerialize<T>(pub T);

    impl<T: ::serde::Serialize> MaybeSerialize<T> {
        /// The value's JSON.
        pub fn to_default(self) -> Option<::serde_json::Value> {
            ::serde_json::to_value(self.0).ok()
        }
    }

    /// The fallback of [`MaybeSerialize::to_default`] for a type that is not `Serialize`.
    pub trait NotSerialize: Sized {
        /// No JSON to say.
        fn to_default(self) -> Option<::serde_json::Value> {
            None
        }
    }

    impl<T> NotSerialize for MaybeSerialize<T> {}
}

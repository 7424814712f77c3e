//! The tool registry: loaded tools, and dispatch of one model tool call.

use std::borrow::Cow;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::error::LoadError;
use crate::exec::Exec;
use crate::future::ToolFuture;
use crate::hook::{Before, Hook, HookCall};
use crate::output::ToolOutput;
use crate::refusal;
use crate::service::Services;
use crate::tool::{Invocation, Tool};
use tool_schema::{Definition, Dialect, DialectError};

/// The most calls of one batch that run at once unless the registry says otherwise
/// ([`ToolRegistry::set_max_parallel`]): each on a thread of a pool this size (or the batch's,
/// when smaller), however many calls the model sends.
pub const DEFAULT_MAX_PARALLEL: usize = 16;

/// The default cap on the size of one call's raw arguments: 1 MiB.
pub const DEFAULT_MAX_ARGS_BYTES: usize = 1 << 20;

/// The default cap on the size of one call's result, its text and images: 8 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 8 << 20;

/// The loaded tools, in load order, and how calls are dispatched to them.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    /// Where each tool came from (a plugin's type, a tool value's), for a refusal to name.
    origins: Vec<Cow<'static, str>>,
    /// The plugin being loaded, if one is ([`Ctx::plugin`](crate::Ctx::plugin)).
    pub(crate) loading: Option<&'static str>,
    // Looked up on every call; the names are the host's, not chosen by whoever calls.
    by_name: foldhash::HashMap<String, usize>,
    pub(crate) services: Services,
    max_args_bytes: usize,
    max_result_bytes: usize,
    /// The deadline of a call whose tool declares none.
    default_timeout: Option<Duration>,
    /// The dialects every tool must render in, checked when it is registered.
    required_dialects: Vec<Dialect>,
    /// Every definition in one dialect, as one JSON array, computed once per set of tools.
    definitions_by_dialect: [OnceLock<Result<String, DialectError>>; Dialect::ALL.len()],
    /// The policy hooks around every call, in the order they were added.
    hooks: Vec<Arc<dyn Hook>>,
    /// The most calls of one batch that run at once.
    max_parallel: usize,
    /// Whether a call's span records its arguments and result.
    trace_content: bool,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        ToolRegistry {
            tools: Vec::new(),
            origins: Vec::new(),
            loading: None,
            by_name: foldhash::HashMap::default(),
            services: Services::default(),
            max_args_bytes: DEFAULT_MAX_ARGS_BYTES,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            default_timeout: None,
            required_dialects: Vec::new(),
            definitions_by_dialect: Default::default(),
            hooks: Vec::new(),
            max_parallel: DEFAULT_MAX_PARALLEL,
            trace_content: false,
        }
    }
}

/// A type's path as its author wrote it: `#[tool]` puts each generated type in a hidden module
/// (`__tool_<fn>`) and re-exports it beside the function.
fn shown_type(path: &str) -> String {
    path.split("::")
        .filter(|segment| !segment.starts_with("__tool_"))
        .collect::<Vec<_>>()
        .join("::")
}

/// A registry with the same tools (shared, not copied: a tool is behind an `Arc`), services and
/// limits, for a host to register more tools on without touching this one: an agent loop's
/// tools from other MCP servers, say, beside the host's own.
impl Clone for ToolRegistry {
    fn clone(&self) -> Self {
        ToolRegistry {
            tools: self.tools.clone(),
            origins: self.origins.clone(),
            loading: None,
            by_name: self.by_name.clone(),
            services: self.services.clone(),
            max_args_bytes: self.max_args_bytes,
            max_result_bytes: self.max_result_bytes,
            default_timeout: self.default_timeout,
            required_dialects: self.required_dialects.clone(),
            definitions_by_dialect: self.definitions_by_dialect.clone(),
            hooks: self.hooks.clone(),
            max_parallel: self.max_parallel,
            trace_content: self.trace_content,
        }
    }
}

impl ToolRegistry {
    /// Registers a tool. A second tool of the same name is refused, and so is a tool whose
    /// schema cannot be sent to a model.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), LoadError> {
        let type_name = std::any::type_name_of_val(&tool);
        self.register_shared(Arc::new(tool), type_name)
    }

    /// The rest of [`ToolRegistry::register`], for a tool whose type is `type_name`: not generic,
    /// so it is built once here rather than again for every tool in every tool's crate.
    fn register_shared(
        &mut self,
        tool: Arc<dyn Tool>,
        type_name: &'static str,
    ) -> Result<(), LoadError> {
        let origin: Cow<'static, str> = match (self.loading, tool.source()) {
            (Some(plugin), _) => Cow::Owned(format!("plugin `{}`", shown_type(plugin))),
            (None, Some(source)) => Cow::Owned(source.to_owned()),
            (None, None) => Cow::Owned(format!("tool `{}`", shown_type(type_name))),
        };
        let definition = tool.definition();
        let name = definition.name().to_owned();
        if let Some(reason) = definition.schema_error() {
            return Err(LoadError::Schema {
                tool: name,
                reason: reason.to_owned(),
            });
        }
        if let Some(&loaded) = self.by_name.get(&name) {
            return Err(LoadError::DuplicateTool {
                name,
                loaded: self.origins[loaded].to_string(),
                again: origin.into_owned(),
            });
        }
        for &dialect in &self.required_dialects {
            definition.render(dialect)?;
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(tool);
        self.origins.push(origin);
        self.definitions_by_dialect = Default::default();
        Ok(())
    }

    /// Every tool's definition in `dialect`, as the JSON array a request carries, computed once
    /// for the loaded tools: later requests get the same bytes without rendering anything.
    pub fn definitions_json(&self, dialect: Dialect) -> Result<&str, DialectError> {
        self.definitions_by_dialect[dialect.index()]
            .get_or_init(|| {
                let mut out = String::from("[");
                for (i, definition) in self.definitions().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(definition.json(dialect)?);
                }
                out.push(']');
                Ok(out)
            })
            .as_ref()
            .map(String::as_str)
            .map_err(Clone::clone)
    }

    /// States the dialects this host will send definitions in. Every tool loaded from then on
    /// must render in each of them, or it is not loaded: [`LoadError::Dialect`] names the tool,
    /// the dialect and the construct (a map under `openai-strict`, a tuple under `gemini`…), so
    /// one tool cannot make [`ToolRegistry::definitions_json`] fail for all at the first request.
    /// Tools loaded already are checked now. A host that states none keeps every tool loadable,
    /// and learns at the first request.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tool_runtime::{Ctx, Dialect, LoadError, tool};
    ///
    /// /// Stores settings.
    /// #[tool]
    /// fn store(settings: HashMap<String, String>) -> String {
    ///     settings.len().to_string()
    /// }
    ///
    /// let mut ctx = Ctx::new();
    /// ctx.tools.require_dialects(&[Dialect::OpenAiStrict]).unwrap();
    /// let error = ctx.plugin::<Store>().unwrap_err();
    /// assert!(matches!(error, LoadError::Dialect(ref e) if e.tool == "store"));
    /// assert!(ctx.tools.get("store").is_none());
    /// ```
    pub fn require_dialects(&mut self, dialects: &[Dialect]) -> Result<(), LoadError> {
        for definition in self.definitions() {
            for &dialect in dialects {
                definition.render(dialect)?;
            }
        }
        for &dialect in dialects {
            if !self.required_dialects.contains(&dialect) {
                self.required_dialects.push(dialect);
            }
        }
        Ok(())
    }

    /// Sets the cap on the size in bytes of one call's raw arguments
    /// ([`DEFAULT_MAX_ARGS_BYTES`] unless set). Larger arguments are refused with an error text
    /// before they are parsed.
    pub fn set_max_args_bytes(&mut self, max: usize) {
        self.max_args_bytes = max;
    }

    /// The cap on the size of one call's raw arguments.
    pub fn max_args_bytes(&self) -> usize {
        self.max_args_bytes
    }

    /// Sets the cap on the size in bytes of one call's result, its text and its images
    /// ([`DEFAULT_MAX_RESULT_BYTES`] unless set). A larger result is dropped and the model reads
    /// `Error: <tool> returned <n> bytes, more than the limit of <max> bytes; the result was
    /// dropped` instead: a clear note, never a truncated blob.
    pub fn set_max_result_bytes(&mut self, max: usize) {
        self.max_result_bytes = max;
    }

    /// The cap on the size of one call's result.
    pub fn max_result_bytes(&self) -> usize {
        self.max_result_bytes
    }

    /// Sets the deadline of a call whose tool declares none (`#[tool(timeout = "…")]`); `None`,
    /// the default, lets such calls run as long as they take. A call past its deadline answers
    /// `Error: <tool> timed out after <duration>` and its [`Cancel`](crate::Cancel) is cancelled.
    ///
    /// Deadlines apply to the calls that can be cut short: `async` and `#[tool(blocking)]`
    /// tools. A plain synchronous tool runs on its caller's thread and has answered before a
    /// deadline could be looked at.
    pub fn set_default_timeout(&mut self, timeout: Option<Duration>) {
        self.default_timeout = timeout;
    }

    /// The deadline of a call whose tool declares none.
    pub fn default_timeout(&self) -> Option<Duration> {
        self.default_timeout
    }

    /// The tool of this name.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.by_name.get(name).map(|&index| &*self.tools[index])
    }

    /// Every tool's definition, in load order.
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &Definition> {
        self.tools.iter().map(|tool| tool.definition())
    }

    /// Every tool's name, in load order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.definitions().map(Definition::name)
    }

    /// What a call of `name`, a tool this registry does not have, answers: the unknown-tool
    /// error [`ToolRegistry::call`] gives, naming only the tools `visible` keeps (those its
    /// caller may call, where callers differ).
    pub fn unknown(&self, name: &str, visible: impl Fn(&Definition) -> bool) -> ToolOutput {
        refusal::unknown_tool(
            name,
            self.definitions()
                .filter(|definition| visible(definition))
                .map(Definition::name),
        )
    }

    /// Runs one model tool call: `args` is the raw JSON the model sent.
    ///
    /// In this order: an unknown tool name, then arguments over the size cap, then the tool's
    /// context parameters (a missing owning agent), then the arguments against their schema,
    /// and then the tool itself. Each failure is an error [`ToolOutput`](crate::ToolOutput); nothing panics out.
    ///
    /// The registry's [hooks](crate::hook) decide on the call first, and see its result last.
    ///
    /// With the `tracing` feature (on by default), each call of a loaded tool is an
    /// `execute_tool` span, named `execute_tool {tool}` for OpenTelemetry (`otel.name`), with
    /// OpenTelemetry's GenAI attributes: `gen_ai.operation.name`, `gen_ai.tool.name`,
    /// `gen_ai.tool.type`, `gen_ai.tool.call.id`, `gen_ai.conversation.id` (the owning agent's
    /// session), and `error.type` (`tool_error`) when the call failed. The arguments and the
    /// result's text (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) are recorded only
    /// after [`ToolRegistry::set_trace_content`], since they may hold secrets. With no
    /// subscriber, a call pays one check.
    pub fn call<'a>(&'a self, name: &str, exec: &'a Exec, args: &'a str) -> ToolFuture<'a> {
        match self.get(name) {
            Some(tool) => self.call_loaded(tool, exec, args),
            None => ToolFuture::ready(refusal::unknown_tool(name, self.names())),
        }
    }

    /// [`ToolRegistry::call`] of a tool already looked up.
    pub(crate) fn call_loaded<'a>(
        &'a self,
        tool: &'a dyn Tool,
        exec: &'a Exec,
        args: &'a str,
    ) -> ToolFuture<'a> {
        #[cfg(feature = "tracing")]
        {
            let span = tracing::info_span!(
                "execute_tool",
                otel.name = tracing::field::Empty,
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = tool.definition().name(),
                gen_ai.tool.type = "function",
                gen_ai.tool.call.id = tracing::field::Empty,
                gen_ai.conversation.id = tracing::field::Empty,
                gen_ai.tool.call.arguments = tracing::field::Empty,
                gen_ai.tool.call.result = tracing::field::Empty,
                error.type = tracing::field::Empty,
                otel.status_code = tracing::field::Empty,
            );
            if !span.is_disabled() {
                if self.trace_content {
                    span.record("gen_ai.tool.call.arguments", args);
                }
                let content = self.trace_content;
                return traced(span, tool.definition().name(), exec, content, || {
                    self.call_hooked(tool, exec, args)
                });
            }
        }
        self.call_hooked(tool, exec, args)
    }

    /// A call of `tool` through the hooks.
    fn call_hooked<'a>(
        &'a self,
        tool: &'a dyn Tool,
        exec: &'a Exec,
        args: &'a str,
    ) -> ToolFuture<'a> {
        if self.hooks.is_empty() {
            return self.dispatch(tool, exec, args);
        }
        let definition = tool.definition();
        let mut rewritten: Option<String> = None;
        for hook in &self.hooks {
            let call = HookCall {
                definition,
                args: rewritten.as_deref().unwrap_or(args),
                exec,
            };
            match hook.before(&call) {
                Before::Allow => {}
                Before::Deny(reason) => return ToolFuture::ready(ToolOutput::error(reason)),
                Before::Rewrite(args) => rewritten = Some(args),
            }
        }
        let after = move |args: &str, mut output: ToolOutput| {
            let call = HookCall {
                definition,
                args,
                exec,
            };
            for hook in self.hooks.iter().rev() {
                output = hook.after(&call, output);
            }
            output
        };
        match rewritten {
            None => {
                let future = self.dispatch(tool, exec, args);
                match future.into_ready() {
                    Ok(output) => ToolFuture::ready(after(args, output)),
                    Err(future) => ToolFuture::boxed(async move { after(args, future.await) }),
                }
            }
            // The new arguments live as long as the call does.
            Some(args) => ToolFuture::boxed(async move {
                let output = self.dispatch(tool, exec, &args).await;
                after(&args, output)
            }),
        }
    }

    /// Whether each call's `execute_tool` span records the call's arguments and its result's
    /// text (off unless set): for a trace backend trusted with what the model sends and reads.
    pub fn set_trace_content(&mut self, record: bool) {
        self.trace_content = record;
    }

    /// At most `max` calls of one batch run at once (at least 1; 16 unless set).
    pub fn set_max_parallel(&mut self, max: usize) {
        self.max_parallel = max.max(1);
    }

    /// The most calls of one batch that run at once.
    pub fn max_parallel(&self) -> usize {
        self.max_parallel
    }

    /// Adds a policy hook around every call (see [`hook`](crate::hook)): after the ones added
    /// before it, before a call; before them, after it.
    pub fn hook(&mut self, hook: impl Hook) {
        self.hooks.push(Arc::new(hook));
    }

    /// Runs one call of `tool`, past the hooks.
    fn dispatch<'a>(&'a self, tool: &'a dyn Tool, exec: &'a Exec, args: &'a str) -> ToolFuture<'a> {
        let tool_name = tool.definition().name();
        if args.len() > self.max_args_bytes {
            return ToolFuture::ready(refusal::args_too_large(args.len(), self.max_args_bytes));
        }
        if exec.cancel.is_cancelled() {
            return ToolFuture::ready(refusal::cancelled(tool_name));
        }
        let timeout = tool.definition().timeout().or(self.default_timeout);
        // A call with a deadline has a cancellation of its own, which the deadline triggers.
        let cancel = match timeout {
            Some(_) => exec.cancel.child(),
            None => exec.cancel.clone(),
        };
        // Where the call records its work, and how far the session was: a result over the cap
        // of a call that recorded events is said to have run.
        let recorded = exec
            .agent
            .as_ref()
            .map(|agent| (agent.session(), agent.session().next_seq()));
        let call = Invocation {
            exec,
            args,
            services: &self.services,
            tool: tool_name,
            cancel: cancel.clone(),
        };
        match catch_unwind(AssertUnwindSafe(|| tool.call(call))) {
            // A synchronous tool's result is ready: it ran, and there is nothing to cut short.
            Ok(future) if future.is_ready() => {
                future.capped(tool_name, self.max_result_bytes, recorded)
            }
            Ok(future) => {
                let future = match &exec.panic_hook {
                    Some(hook) => future.telling_panics(std::sync::Arc::clone(hook)),
                    None => future,
                };
                future.guarded(tool_name, cancel, timeout, self.max_result_bytes, recorded)
            }
            Err(payload) => {
                if let Some(hook) = &exec.panic_hook {
                    hook(refusal::panic_message(payload.as_ref()));
                }
                ToolFuture::ready(refusal::panicked(tool_name, payload.as_ref()))
            }
        }
    }
}

/// `call` run in `span`, which records how it ended.
#[cfg(feature = "tracing")]
fn traced<'a>(
    span: tracing::Span,
    tool: &str,
    exec: &Exec,
    content: bool,
    call: impl FnOnce() -> ToolFuture<'a>,
) -> ToolFuture<'a> {
    span.record("otel.name", format!("execute_tool {tool}"));
    if let Some(id) = &exec.call_id {
        span.record("gen_ai.tool.call.id", id.as_str());
    }
    if let Some(agent) = &exec.agent {
        span.record("gen_ai.conversation.id", agent.session().id());
    }
    let future = {
        let _entered = span.enter();
        call()
    };
    let ended = move |span: &tracing::Span, output: &ToolOutput| {
        if output.is_error {
            span.record("error.type", "tool_error");
            span.record("otel.status_code", "error");
        }
        if content {
            span.record("gen_ai.tool.call.result", output.text.as_str());
        }
    };
    match future.into_ready() {
        Ok(output) => {
            ended(&span, &output);
            ToolFuture::ready(output)
        }
        Err(future) => {
            let own = span.clone();
            ToolFuture::boxed(tracing::Instrument::instrument(
                async move {
                    let output = future.await;
                    ended(&own, &output);
                    output
                },
                span,
            ))
        }
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("max_args_bytes", &self.max_args_bytes)
            .field("max_result_bytes", &self.max_result_bytes)
            .finish_non_exhaustive()
    }
}

//! The tool registry: loaded tools, and dispatch of one model tool call.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use crate::ctx::Services;
use crate::session::Gate;
use crate::{Definition, Dialect, DialectError, Exec, LoadError, ToolOutput, args};

/// The default cap on the size of one call's raw arguments: 1 MiB.
pub const DEFAULT_MAX_ARGS_BYTES: usize = 1 << 20;

/// A model-facing tool. `#[tool]` implements it; a host rarely does.
pub trait Tool: Send + Sync + 'static {
    /// The tool's name, description and input schema, computed once.
    fn definition(&self) -> &Definition;

    /// Runs one call. The registry has checked the tool name and the size of the arguments; the
    /// tool resolves its context parameters, parses the arguments and runs.
    fn call<'a>(&'a self, call: Call<'a>) -> ToolFuture<'a>;
}

/// One call as a [`Tool`] receives it.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    /// The host's context for the call.
    pub exec: &'a Exec,
    /// The model's raw JSON arguments.
    pub args: &'a str,
    pub(crate) services: &'a Services,
    pub(crate) tool: &'a str,
}

impl<'a> Call<'a> {
    /// The name of the tool being called.
    pub fn tool(&self) -> &'a str {
        self.tool
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("tool", &self.tool)
            .field("exec", &self.exec)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// The result of a call: ready at once for a synchronous tool, a future for an `async` one.
///
/// Await it in an async host, or call [`ToolFuture::wait`] in a synchronous one. A panic inside
/// the tool comes back as an error output.
#[must_use = "a tool call does nothing until its result is awaited or waited for"]
pub struct ToolFuture<'a>(Inner<'a>);

enum Inner<'a> {
    Ready(Option<ToolOutput>),
    Pending {
        tool: &'a str,
        future: Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>,
    },
}

impl<'a> ToolFuture<'a> {
    /// A result that is ready now.
    pub fn ready(output: ToolOutput) -> Self {
        ToolFuture(Inner::Ready(Some(output)))
    }

    /// A result computed by `future`.
    pub fn boxed(future: impl Future<Output = ToolOutput> + Send + 'a) -> Self {
        ToolFuture(Inner::Pending {
            tool: "",
            future: Box::pin(future),
        })
    }

    /// Blocks the current thread until the result is ready.
    ///
    /// Synchronous tools are ready at once. An `async` tool that needs a runtime (tokio's timers
    /// or sockets) must be awaited inside that runtime instead.
    pub fn wait(self) -> ToolOutput {
        match self.0 {
            Inner::Ready(Some(output)) => output,
            _ => pollster::block_on(self),
        }
    }

    fn named(mut self, name: &'a str) -> Self {
        if let Inner::Pending { tool, .. } = &mut self.0 {
            *tool = name;
        }
        self
    }
}

impl Future for ToolFuture<'_> {
    type Output = ToolOutput;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutput> {
        match &mut self.0 {
            Inner::Ready(output) => {
                Poll::Ready(output.take().expect("ToolFuture polled after completion"))
            }
            Inner::Pending { tool, future } => {
                match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                    Ok(poll) => poll,
                    Err(payload) => {
                        let output = panicked(tool, payload.as_ref());
                        self.0 = Inner::Ready(None);
                        Poll::Ready(output)
                    }
                }
            }
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Inner::Ready(output) => f.debug_tuple("Ready").field(output).finish(),
            Inner::Pending { tool, .. } => f
                .debug_struct("Pending")
                .field("tool", tool)
                .finish_non_exhaustive(),
        }
    }
}

/// The loaded tools, in load order, and how calls are dispatched to them.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    by_name: HashMap<String, usize>,
    pub(crate) services: Services,
    max_args_bytes: usize,
    /// Every definition in one dialect, as one JSON array, computed once per set of tools.
    requests: [OnceLock<Result<String, DialectError>>; Dialect::ALL.len()],
}

impl Default for ToolRegistry {
    fn default() -> Self {
        ToolRegistry {
            tools: Vec::new(),
            by_name: HashMap::new(),
            services: Services::default(),
            max_args_bytes: DEFAULT_MAX_ARGS_BYTES,
            requests: Default::default(),
        }
    }
}

impl ToolRegistry {
    /// Registers a tool. A second tool of the same name is refused, and so is a tool whose
    /// schema cannot be sent to a model.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), LoadError> {
        let definition = tool.definition();
        let name = definition.name().to_owned();
        if let Some(reason) = definition.problem() {
            return Err(LoadError::Schema {
                tool: name,
                reason: reason.to_owned(),
            });
        }
        if self.by_name.contains_key(&name) {
            return Err(LoadError::DuplicateTool { name });
        }
        self.by_name.insert(name, self.tools.len());
        self.tools.push(Arc::new(tool));
        self.requests = Default::default();
        Ok(())
    }

    /// Every tool's definition in `dialect`, as the JSON array a request carries, computed once
    /// for the loaded tools: later requests get the same bytes without rendering anything.
    pub fn definitions_json(&self, dialect: Dialect) -> Result<&str, DialectError> {
        self.requests[dialect.index()]
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

    /// Runs one model tool call: `args` is the raw JSON the model sent.
    ///
    /// In this order: an unknown tool name, then arguments over the size cap, then the tool's
    /// context parameters (a missing owning agent), then the arguments against their schema,
    /// and then the tool itself. Each failure is an error [`ToolOutput`]; nothing panics out.
    pub fn call<'a>(&'a self, name: &str, exec: &'a Exec, args: &'a str) -> ToolFuture<'a> {
        let Some(tool) = self.get(name) else {
            return ToolFuture::ready(self.unknown_tool(name));
        };
        let tool_name = tool.definition().name();
        if args.len() > self.max_args_bytes {
            return ToolFuture::ready(args::too_large(args.len(), self.max_args_bytes));
        }
        let call = Call {
            exec,
            args,
            services: &self.services,
            tool: tool_name,
        };
        match catch_unwind(AssertUnwindSafe(|| tool.call(call))) {
            Ok(future) => future.named(tool_name),
            Err(payload) => ToolFuture::ready(panicked(tool_name, payload.as_ref())),
        }
    }

    /// Runs the tool calls of one model message, concurrently, and returns their outputs in the
    /// message's order.
    ///
    /// The events the calls append to the owning agent's session land in the message's order
    /// too, however the calls interleave: each call's appends wait until every earlier call of
    /// the batch has finished. Each call runs on a thread of its own (scoped to this call), so
    /// call it where blocking is allowed (in tokio, from `spawn_blocking`).
    ///
    /// ```
    /// # use tool_runtime::{Agent, Ctx, Exec, Session, ToolCall, tool};
    /// /// Notes a word.
    /// #[tool]
    /// fn note(agent: Agent, word: String) -> String {
    ///     agent.session().append("note/add", &word).unwrap().to_string()
    /// }
    /// let mut ctx = Ctx::new();
    /// ctx.plugin::<Note>().unwrap();
    /// let agent = Agent::new("a", Session::in_memory());
    /// let calls = [
    ///     ToolCall::new("note", r#"{"word": "first"}"#),
    ///     ToolCall::new("note", r#"{"word": "second"}"#),
    /// ];
    /// let outputs = ctx.tools.call_batch(&Exec::for_agent(agent), &calls);
    /// assert_eq!(outputs[0].text, "1");
    /// assert_eq!(outputs[1].text, "2");
    /// ```
    pub fn call_batch(&self, exec: &Exec, calls: &[ToolCall]) -> Vec<ToolOutput> {
        let gate = Gate::new(calls.len());
        std::thread::scope(|scope| {
            let handles: Vec<_> = calls
                .iter()
                .enumerate()
                .map(|(index, call)| {
                    let mut exec = exec.clone();
                    exec.agent = exec.agent.map(|agent| agent.in_turn(gate.turn(index)));
                    if let Some(id) = &call.id {
                        exec.call_id = Some(id.clone());
                    }
                    let gate = &gate;
                    scope.spawn(move || {
                        // Finished even if the thread unwinds, so later calls are not held up.
                        let _finish = Finish { gate, index };
                        self.call(&call.name, &exec, &call.args).wait()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|payload| panicked("a batched call", payload.as_ref()))
                })
                .collect()
        })
    }

    fn unknown_tool(&self, name: &str) -> ToolOutput {
        let available: Vec<&str> = self.names().collect();
        let available = if available.is_empty() {
            "none".to_owned()
        } else {
            available.join(", ")
        };
        ToolOutput::error(format_args!(
            "unknown tool {}; available tools: {available}",
            crate::text::quote(name)
        ))
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("max_args_bytes", &self.max_args_bytes)
            .finish_non_exhaustive()
    }
}

/// One model tool call, as a batch takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The provider's id for the call, if any; it becomes the call's `exec.call_id`.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The raw JSON arguments.
    pub args: String,
}

impl ToolCall {
    /// A call of `name` with `args`.
    pub fn new(name: impl Into<String>, args: impl Into<String>) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            args: args.into(),
        }
    }

    /// The same call with the provider's call id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

struct Finish<'a> {
    gate: &'a Gate,
    index: usize,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.gate.finish(self.index);
    }
}

fn panicked(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolOutput {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    ToolOutput::error(format_args!("{tool} panicked: {message}"))
}

//! The tool calls of one model message, run as a batch.

use crate::exec::Exec;
use crate::output::ToolOutput;
use crate::refusal;
use crate::registry::ToolRegistry;
use crate::session::Gate;

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

impl ToolRegistry {
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
                    handle.join().unwrap_or_else(|payload| {
                        refusal::panicked("a batched call", payload.as_ref())
                    })
                })
                .collect()
        })
    }
}

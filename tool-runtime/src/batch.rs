//! The tool calls of one model message, run as a batch.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use crate::exec::Exec;
use crate::output::ToolOutput;
use crate::refusal;
use crate::registry::ToolRegistry;
use crate::session::Gate;
use tool_schema::Concurrency;

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

/// Which calls of a batch are running, for the tools that may not overlap others
/// ([`Concurrency`]). Calls start in the batch's order, so a call waits only on earlier ones
/// (as its session appends do): nothing waits in a circle.
#[derive(Default)]
struct Running {
    /// The index of the next call to start.
    next: usize,
    calls: usize,
    exclusive: bool,
    /// The serial tools with a call running.
    serial: Vec<String>,
}

struct Classes {
    running: Mutex<Running>,
    changed: Condvar,
}

impl Classes {
    fn new() -> Self {
        Classes {
            running: Mutex::new(Running::default()),
            changed: Condvar::new(),
        }
    }

    /// Waits until call `index`, of `tool` and `class`, may start, and starts it.
    fn start(&self, index: usize, tool: &str, class: Concurrency) {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        while running.next != index
            || running.exclusive
            || (class == Concurrency::Exclusive && running.calls > 0)
            || (class == Concurrency::Serial && running.serial.iter().any(|t| t == tool))
        {
            running = self
                .changed
                .wait(running)
                .unwrap_or_else(|p| p.into_inner());
        }
        running.next += 1;
        running.calls += 1;
        match class {
            Concurrency::Exclusive => running.exclusive = true,
            Concurrency::Serial => running.serial.push(tool.to_owned()),
            _ => {}
        }
        drop(running);
        self.changed.notify_all();
    }

    fn finish(&self, tool: &str, class: Concurrency) {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        running.calls -= 1;
        match class {
            Concurrency::Exclusive => running.exclusive = false,
            Concurrency::Serial => {
                if let Some(at) = running.serial.iter().position(|t| t == tool) {
                    running.serial.swap_remove(at);
                }
            }
            _ => {}
        }
        drop(running);
        self.changed.notify_all();
    }
}

/// Ends a call's class when the call ends, even by unwinding.
struct Started<'a> {
    classes: &'a Classes,
    tool: &'a str,
    class: Concurrency,
}

impl Drop for Started<'_> {
    fn drop(&mut self) {
        self.classes.finish(self.tool, self.class);
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
    /// the batch has finished. The calls run on at most
    /// [`max_parallel`](ToolRegistry::max_parallel) threads (16 unless set; scoped to this
    /// call), taken in the message's order as threads come free, so a batch of thousands of
    /// calls takes no more threads than one of sixteen; call it where blocking is allowed (in
    /// tokio, from `spawn_blocking`). A tool's [`Concurrency`] holds too: an exclusive tool's
    /// call runs alone, a serial tool's never beside another of its own.
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
        self.call_batch_with(exec, calls, &|_, _| {})
    }

    /// [`ToolRegistry::call_batch`], telling `done` each call's output (with the call's index)
    /// as soon as it has it, on the thread that ran it, in the order the calls finish: a host
    /// records there what a crash before the batch's end must not lose.
    pub fn call_batch_with(
        &self,
        exec: &Exec,
        calls: &[ToolCall],
        done: &(dyn Fn(usize, &ToolOutput) + Sync),
    ) -> Vec<ToolOutput> {
        let gate = Gate::new(calls.len());
        let classes = Classes::new();
        let next = AtomicUsize::new(0);
        let outputs: Vec<OnceLock<ToolOutput>> = calls.iter().map(|_| OnceLock::new()).collect();
        // The calls' spans are children of the caller's, on whichever thread they run.
        #[cfg(feature = "tracing")]
        let parent = tracing::Span::current();
        let work = || {
            #[cfg(feature = "tracing")]
            let _parent = parent.enter();
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(call) = calls.get(index) else {
                    return;
                };
                let mut exec = exec.clone();
                exec.agent = exec.agent.map(|agent| agent.in_turn(gate.turn(index)));
                if let Some(id) = &call.id {
                    exec.call_id = Some(id.clone());
                }
                let tool = self.get(&call.name);
                let class = tool.map_or(Concurrency::Parallel, |tool| {
                    tool.definition().concurrency()
                });
                let output = {
                    // Finished even if the call unwinds, so later calls are not held up.
                    let _finish = Finish { gate: &gate, index };
                    classes.start(index, &call.name, class);
                    let _started = Started {
                        classes: &classes,
                        tool: &call.name,
                        class,
                    };
                    catch_unwind(AssertUnwindSafe(|| match tool {
                        Some(tool) => self.call_loaded(tool, &exec, &call.args).wait(),
                        None => self.call(&call.name, &exec, &call.args).wait(),
                    }))
                    .unwrap_or_else(|payload| refusal::panicked("a batched call", payload.as_ref()))
                };
                done(index, &output);
                let _ = outputs[index].set(output);
            }
        };
        std::thread::scope(|scope| {
            let workers = calls.len().min(self.max_parallel());
            let spawned = (0..workers)
                .take_while(|_| {
                    std::thread::Builder::new()
                        .name("tool-batch".into())
                        .spawn_scoped(scope, work)
                        .is_ok()
                })
                .count();
            // No thread to be had: the calls run here, one after another.
            if spawned == 0 {
                work();
            }
        });
        outputs
            .into_iter()
            .map(|output| {
                output
                    .into_inner()
                    .unwrap_or_else(|| ToolOutput::error("the call was not run"))
            })
            .collect()
    }
}

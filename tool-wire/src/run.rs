//! A model turn's calls run on a registry, one output per call.

use std::collections::HashSet;

use tool_runtime::text::quote;
use tool_runtime::{Exec, ToolCall, ToolOutput, ToolRegistry};

use crate::turn::{ModelTurn, WireCall};

impl ModelTurn {
    /// Runs the turn's calls on `tools` as a batch ([`ToolRegistry::call_batch`]: concurrently,
    /// events in call order) and returns one output per call, in call order, for
    /// [`Provider::results`](crate::Provider::results).
    ///
    /// A call whose id an earlier call of the turn already used is not run: its output says so,
    /// so each result still pairs with exactly one call.
    pub fn run(&self, tools: &ToolRegistry, exec: &Exec) -> Vec<ToolOutput> {
        self.run_with(tools, exec, &|_, _| {})
    }

    /// [`ModelTurn::run`], telling `done` each call's output with the call's index in the turn
    /// as soon as it has it ([`ToolRegistry::call_batch_with`]); a call that is not run (its id
    /// used twice) is told first.
    pub fn run_with(
        &self,
        tools: &ToolRegistry,
        exec: &Exec,
        done: &(dyn Fn(usize, &ToolOutput) + Sync),
    ) -> Vec<ToolOutput> {
        let turn = self;
        let mut seen = HashSet::new();
        let duplicate: Vec<bool> = turn
            .calls
            .iter()
            .map(|call| !seen.insert(call.id.as_str()))
            .collect();
        let refused = |call: &WireCall| {
            ToolOutput::error(format_args!(
                "the call id {} was used by an earlier call in the same turn; this call was not run",
                quote(&call.id)
            ))
        };
        // Where each runnable call is in the turn.
        let mut positions = Vec::new();
        let mut runnable = Vec::new();
        for (index, (call, duplicate)) in turn.calls.iter().zip(&duplicate).enumerate() {
            if *duplicate {
                done(index, &refused(call));
            } else {
                positions.push(index);
                runnable.push(ToolCall::new(&call.name, &call.args).with_id(&call.id));
            }
        }
        let mut outputs = tools
            .call_batch_with(exec, &runnable, &|index, output| {
                done(positions[index], output);
            })
            .into_iter();
        turn.calls
            .iter()
            .zip(duplicate)
            .map(|(call, duplicate)| {
                if duplicate {
                    refused(call)
                } else {
                    outputs
                        .next()
                        .unwrap_or_else(|| ToolOutput::error("the call was not run"))
                }
            })
            .collect()
    }
}

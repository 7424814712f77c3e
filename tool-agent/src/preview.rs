//! Results the context can afford: [`ResultPreview`], a hook that gives the model the head and
//! tail of a result over a limit and keeps the whole in the session, and [`ReadResult`], the tool
//! that reads it back.
//!
//! A result over the limit is never cut silently and never turned into an error: the model reads
//! its head, a line that says how much is not shown and how to read it, and its tail. The whole
//! text is a [`RESULT_EVENT`] of the agent's session (`{"tool", "call_id", "text"}`), which
//! `read_result` reads a window of, and `toolhost replay --events` shows.
//!
//! ```
//! use tool_agent::preview::{ReadResult, ResultPreview};
//! use tool_runtime::{Agent, Ctx, DynamicTool, Exec, Session};
//!
//! let mut ctx = Ctx::new();
//! let dump = DynamicTool::builder("dump", "Dumps.", serde_json::json!({"type": "object"}))
//!     .handler(|_, _| "x".repeat(10_000))
//!     .unwrap();
//! ctx.tool(dump).unwrap();
//! ctx.plugin::<ReadResult>().unwrap();
//! ctx.tools.hook(ResultPreview::new(250)); // tokens: about 1000 bytes
//! let exec = Exec::for_agent(Agent::new("a", Session::in_memory()));
//! let out = ctx.tools.call("dump", &exec, "{}").wait();
//! assert!(out.text.len() <= 1000 && !out.is_error);
//! assert!(out.text.contains("of 10000 bytes are not shown"));
//! let window = ctx.tools.call("read_result", &exec, r#"{"seq": 1, "offset": 9990}"#).wait();
//! assert_eq!(window.text, "xxxxxxxxxx\n[the end: 10000 bytes]");
//! ```

use std::collections::HashMap;

use tool_runtime::hook::{Hook, HookCall};
use tool_runtime::{Agent, ToolError, ToolOutput, tool};

/// The kind of the session event that keeps a result shown as a preview.
pub const RESULT_EVENT: &str = "tool/result";

/// Bytes per token, as the previews count them (the conversation's estimate too).
const BYTES_PER_TOKEN: usize = crate::conversation::BYTES_PER_TOKEN;

/// The room kept for the note between a preview's head and tail: a limit under it shows the
/// note alone.
const NOTE_BYTES: usize = 200;

/// A hook that shows the model a preview of each result over a limit, in tokens (estimated as
/// bytes / 4), and keeps the whole in the session; per tool limits beside the default one.
/// `read_result`'s own results are never previewed (it reads at most the limit).
#[derive(Clone, Debug)]
pub struct ResultPreview {
    tokens: usize,
    per_tool: HashMap<String, usize>,
}

impl ResultPreview {
    /// Results over `tokens` are previewed.
    pub fn new(tokens: usize) -> Self {
        ResultPreview {
            tokens,
            per_tool: HashMap::new(),
        }
    }

    /// `tool`'s results are previewed over `tokens` instead.
    #[must_use]
    pub fn for_tool(mut self, tool: impl Into<String>, tokens: usize) -> Self {
        self.per_tool.insert(tool.into(), tokens);
        self
    }

    fn limit(&self, tool: &str) -> usize {
        self.per_tool
            .get(tool)
            .copied()
            .unwrap_or(self.tokens)
            .saturating_mul(BYTES_PER_TOKEN)
    }
}

impl Hook for ResultPreview {
    fn after(&self, call: &HookCall<'_>, output: ToolOutput) -> ToolOutput {
        let limit = self.limit(call.tool());
        if output.text.len() <= limit || call.tool() == "read_result" || output.is_error {
            return output;
        }
        let Some(agent) = &call.exec().agent else {
            // Nowhere to keep the whole: the result goes as it is.
            return output;
        };
        let kept = agent.session().append(
            RESULT_EVENT,
            &serde_json::json!({
                "tool": call.tool(),
                "call_id": call.exec().call_id,
                "text": output.text,
            }),
        );
        let seq = match kept {
            Ok(seq) => seq,
            Err(error) => {
                return ToolOutput::error(format!(
                    "the result of {} is {} bytes, over the {limit} shown, and could not be kept \
                     to read in parts: {error}",
                    call.tool(),
                    output.text.len()
                ));
            }
        };
        // Three quarters of the room the note leaves to the head, the rest to the tail.
        let total = output.text.len();
        let room = limit.saturating_sub(NOTE_BYTES);
        let head_end = floor_boundary(&output.text, room * 3 / 4);
        let tail_start = ceil_boundary(&output.text, total - (room - head_end)).max(head_end);
        let hidden = tail_start - head_end;
        let mut text = String::with_capacity(limit);
        text.push_str(&output.text[..head_end]);
        text.push_str(&format!(
            "\n[{hidden} of {total} bytes are not shown: the whole result is kept; \
             read_result {{\"seq\": {seq}, \"offset\": {head_end}}} reads on from here]\n"
        ));
        text.push_str(&output.text[tail_start..]);
        ToolOutput {
            text,
            // A preview of data is text: its JSON is cut.
            structured: false,
            ..output
        }
    }
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at`.
fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The most bytes `read_result` returns at once.
pub const READ_WINDOW: usize = 16 * 1024;

/// Reads a part of a result that was too long to show whole: the bytes from `offset`, at most
/// 16 KiB of them.
#[tool(read_only, idempotent, open_world = false)]
pub fn read_result(
    agent: Agent,
    /// The result's `seq`, as the preview gives it.
    seq: u64,
    /// The byte to start at, as the preview gives it (0 by default).
    #[serde(default)]
    offset: u64,
) -> Result<String, ToolError> {
    let event = agent
        .session()
        .latest_at(RESULT_EVENT, seq)
        .map_err(|error| ToolError::new(error.to_string()))?
        .filter(|event| event.seq == seq)
        .ok_or_else(|| ToolError::new(format!("event {seq} is not a kept result")))?;
    #[derive(serde::Deserialize)]
    struct Kept {
        text: String,
    }
    let kept: Kept = event
        .data()
        .map_err(|error| ToolError::new(format!("event {seq} cannot be read: {error}")))?;
    let text = kept.text;
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(text.len());
    let start = floor_boundary(&text, start);
    let end = floor_boundary(&text, start.saturating_add(READ_WINDOW));
    let end = if end == start && start < text.len() {
        ceil_boundary(&text, start + 1)
    } else {
        end
    };
    let mut out = text[start..end].to_owned();
    if end < text.len() {
        out.push_str(&format!(
            "\n[{} bytes more: read_result {{\"seq\": {seq}, \"offset\": {end}}}]",
            text.len() - end
        ));
    } else {
        out.push_str(&format!("\n[the end: {} bytes]", text.len()));
    }
    Ok(out)
}

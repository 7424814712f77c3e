//! The host half of each provider's wire format: the tool calls a model response carries, and
//! the messages that answer them, as plain JSON — no HTTP.
//!
//! A host sends a request with the definitions in the provider's dialect, reads the response
//! with [`Provider::read_response`], runs the calls ([`ModelTurn::run`]) and appends
//! [`ModelTurn::message`] and then [`Provider::results`] to its conversation, in the shapes the
//! provider demands:
//!
//! | provider | calls | results |
//! | --- | --- | --- |
//! | OpenAI Chat Completions | `message.tool_calls[]`, arguments a JSON string (`""` means `{}`) | one `{"role": "tool", "tool_call_id"}` message per call |
//! | OpenAI Responses | `function_call` output items | one `function_call_output` item per call |
//! | Anthropic Messages | `tool_use` content blocks | one user message of `tool_result` blocks, `is_error` on failures |
//! | Gemini | `functionCall` parts, ids optional | one user content of `functionResponse` parts |
//!
//! What the model's turn carried goes back unchanged (`ModelTurn::message`): reasoning items,
//! thinking blocks with their signatures, Gemini's thought signatures. Results pair with calls
//! by id, never by position alone; a Gemini call without an id gets a stable one for the host
//! (`gemini-call-<n>`), and its response goes back without an id, in the call's position, as
//! Gemini pairs them. Arguments that are not JSON, unknown tools and ids used twice each become
//! a result the model reads (`Error: …`); only a response that is not the provider's shape at
//! all is a host error ([`WireError`]).
//!
//! A streamed response (server-sent events) is read with [`Provider::stream_reader`]: each
//! event's text is shown as it comes, and the finished [`StreamReader`] gives the same
//! [`ModelTurn`] as the equivalent non-streamed response.
//!
//! ```
//! use serde_json::json;
//! use tool_wire::Provider;
//! use tool_runtime::{Ctx, Exec, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(
//!     /// The first.
//!     a: i64,
//!     /// The second.
//!     b: i64,
//! ) -> String {
//!     (a + b).to_string()
//! }
//!
//! let mut ctx = Ctx::new();
//! ctx.plugin::<Add>().unwrap();
//! // An Anthropic Messages response that calls the tool.
//! let response = json!({
//!     "role": "assistant",
//!     "content": [
//!         {"type": "text", "text": "Adding."},
//!         {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}
//!     ],
//!     "stop_reason": "tool_use"
//! });
//! let turn = Provider::Anthropic.read_response(&response.to_string()).unwrap();
//! assert_eq!(turn.text, "Adding.");
//! let outputs = turn.run(&ctx.tools, &Exec::new());
//! let results = Provider::Anthropic.results(&turn, &outputs);
//! assert_eq!(
//!     results,
//!     [json!({"role": "user", "content": [
//!         {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}
//!     ]})]
//! );
//! ```
//!
//! # The room
//!
//! It uses `tool-runtime` (a registry runs a turn's calls) and serde_json; no HTTP client, no
//! provider's SDK: a host sends the requests itself (the `tool-agent` crate does, on ureq).

mod json;
mod provider;
mod read;
mod run;
mod stream;
mod turn;
mod value;

pub use provider::Provider;
pub use stream::{MAX_PIECES, StreamReader};
pub use turn::{MAX_CALLS, ModelTurn, ToolSearch, Usage, WireCall, WireError};

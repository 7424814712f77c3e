//! The host half of each provider's wire format: the tool calls a model response carries, and
//! the messages that answer them, as plain JSON — no HTTP.
//!
//! A host sends a request with the definitions in the provider's dialect, reads the response
//! with [`Provider::read_response`], runs the calls ([`ToolRegistry::run_turn`]) and appends
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
//! use tool_runtime::wire::Provider;
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
//! let outputs = ctx.tools.run_turn(&Exec::new(), &turn);
//! let results = Provider::Anthropic.results(&turn, &outputs);
//! assert_eq!(
//!     results,
//!     [json!({"role": "user", "content": [
//!         {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}
//!     ]})]
//! );
//! ```

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::batch::ToolCall;
use crate::exec::Exec;
use crate::output::ToolOutput;
use crate::registry::ToolRegistry;
use crate::schema::Dialect;
use crate::text::quote;

mod stream;
mod value;

pub use stream::{MAX_PIECES, StreamReader};

/// The most calls one model turn may have, streamed or not: past them, the turn is
/// [`WireError::TooMany`].
pub const MAX_CALLS: usize = 10_000;

/// A provider's API, as far as tool calls go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, llama.cpp).
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
    ];

    /// The provider's name on a command line: `openai`, `openai-responses`, `anthropic`,
    /// `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider of this name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.name() == name)
    }

    /// The dialect its requests carry the definitions in.
    pub fn dialect(self) -> Dialect {
        match self {
            Provider::OpenAiChat => Dialect::OpenAi,
            Provider::OpenAiResponses => Dialect::OpenAiResponses,
            Provider::Anthropic => Dialect::Anthropic,
            Provider::Gemini => Dialect::Gemini,
        }
    }

    /// The text and tool calls of a (non-streamed) response body.
    pub fn read_response(self, body: &str) -> Result<ModelTurn, WireError> {
        // Read once, and the parts the conversation keeps moved out of it, not copied.
        let response = value::parse(body).map_err(WireError::NotJson)?;
        match self {
            Provider::OpenAiChat => read_openai_chat(response),
            Provider::OpenAiResponses => read_openai_responses(response),
            Provider::Anthropic => read_anthropic(response),
            Provider::Gemini => read_gemini(response),
        }
    }

    /// The messages (or items) that answer `turn`'s calls with `outputs`, in call order, to
    /// append to the conversation after [`ModelTurn::message`].
    ///
    /// `outputs` holds one output per call, as [`ToolRegistry::run_turn`] returns them; a call
    /// without one (a host that stopped early) is answered `Error: the call was not run`, so
    /// no call is ever left without its result.
    pub fn results(self, turn: &ModelTurn, outputs: &[ToolOutput]) -> Vec<Value> {
        let not_run = ToolOutput::error("the call was not run");
        let pairs = turn
            .calls
            .iter()
            .enumerate()
            .map(|(index, call)| (index, call, outputs.get(index).unwrap_or(&not_run)));
        match self {
            Provider::OpenAiChat => pairs
                .map(|(_, call, output)| {
                    object([
                        ("role", "tool".into()),
                        ("tool_call_id", call.id.as_str().into()),
                        ("content", output.text.as_str().into()),
                    ])
                })
                .collect(),
            Provider::OpenAiResponses => pairs
                .map(|(_, call, output)| {
                    object([
                        ("type", "function_call_output".into()),
                        ("call_id", call.id.as_str().into()),
                        ("output", output.text.as_str().into()),
                    ])
                })
                .collect(),
            Provider::Anthropic => {
                let blocks: Vec<Value> = pairs
                    .map(|(_, call, output)| {
                        let mut block = Map::with_capacity(4);
                        block.insert("type".into(), "tool_result".into());
                        block.insert("tool_use_id".into(), call.id.as_str().into());
                        block.insert("content".into(), output.text.as_str().into());
                        if output.is_error {
                            block.insert("is_error".into(), true.into());
                        }
                        Value::Object(block)
                    })
                    .collect();
                if blocks.is_empty() {
                    Vec::new()
                } else {
                    vec![object([
                        ("role", "user".into()),
                        ("content", blocks.into()),
                    ])]
                }
            }
            Provider::Gemini => {
                let parts: Vec<Value> = pairs
                    .map(|(index, call, output)| {
                        let key = if output.is_error { "error" } else { "output" };
                        let mut response = Map::new();
                        if turn.provider_ids.get(index).copied().unwrap_or(false) {
                            response.insert("id".into(), call.id.clone().into());
                        }
                        response.insert("name".into(), call.name.clone().into());
                        response.insert(
                            "response".into(),
                            object([(key, output.text.as_str().into())]),
                        );
                        object([("functionResponse", response.into())])
                    })
                    .collect();
                if parts.is_empty() {
                    Vec::new()
                } else {
                    vec![object([("role", "user".into()), ("parts", parts.into())])]
                }
            }
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One model response, read: what it said, the calls it made, and itself as the conversation
/// keeps it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ModelTurn {
    /// The response's text, its text parts joined.
    pub text: String,
    /// Its tool calls, in order, each with an id (a generated one where the provider gave none).
    pub calls: Vec<WireCall>,
    /// The response's message or items, unchanged, to send back with the next request: the
    /// assistant message (OpenAI Chat, Anthropic), the output items (OpenAI Responses), the
    /// model's content (Gemini).
    pub message: Vec<Value>,
    /// Why the model stopped, as the provider says it (`tool_calls`, `tool_use`, `STOP`, …).
    pub stop_reason: Option<String>,
    /// The tokens the response took, when the provider said.
    pub usage: Option<Usage>,
    /// The response's id, when the provider gave one (`id`; Gemini's `responseId`).
    pub response_id: Option<String>,
    /// The model that answered, as the provider names it (`model`; Gemini's `modelVersion`).
    pub response_model: Option<String>,
    /// Per call: whether the provider gave its id (Gemini's may be missing).
    provider_ids: Vec<bool>,
}

/// The tokens one model response took, as its provider reports them, in one shape for all:
/// `cached` is the part of `input` read from the provider's cache, `reasoning` the part of
/// `output` the model spent thinking.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[non_exhaustive]
pub struct Usage {
    /// The prompt's tokens: the conversation, the definitions, the cached part too.
    pub input: u64,
    /// The tokens the model wrote, its reasoning too.
    pub output: u64,
    /// Of `input`, the tokens read from the cache.
    pub cached: u64,
    /// Of `output`, the model's reasoning.
    pub reasoning: u64,
}

impl Usage {
    /// Input and output tokens: what a token budget counts.
    pub fn total(&self) -> u64 {
        self.input.saturating_add(self.output)
    }

    /// OpenAI Chat's `usage` (`prompt_tokens`, `completion_tokens` and their details).
    fn openai_chat(usage: &Value) -> Option<Usage> {
        Usage::at(
            usage,
            [
                "/prompt_tokens",
                "/completion_tokens",
                "/prompt_tokens_details/cached_tokens",
                "/completion_tokens_details/reasoning_tokens",
            ],
        )
    }

    /// OpenAI Responses' `usage` (`input_tokens`, `output_tokens` and their details).
    fn openai_responses(usage: &Value) -> Option<Usage> {
        Usage::at(
            usage,
            [
                "/input_tokens",
                "/output_tokens",
                "/input_tokens_details/cached_tokens",
                "/output_tokens_details/reasoning_tokens",
            ],
        )
    }

    /// The counts at the JSON pointers `[input, output, cached, reasoning]` of `usage` (0 where
    /// one is missing), when `usage` is an object.
    fn at(usage: &Value, [input, output, cached, reasoning]: [&str; 4]) -> Option<Usage> {
        let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
        usage.is_object().then(|| Usage {
            input: count(input),
            output: count(output),
            cached: count(cached),
            reasoning: count(reasoning),
        })
    }

    /// Anthropic's `usage`, whose `input_tokens` leaves out what was read from or written to
    /// the cache.
    fn anthropic(usage: &Value) -> Option<Usage> {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        usage.is_object().then(|| {
            let cached = count("cache_read_input_tokens");
            Usage {
                input: count("input_tokens") + count("cache_creation_input_tokens") + cached,
                output: count("output_tokens"),
                cached,
                reasoning: 0,
            }
        })
    }

    /// Gemini's `usageMetadata`, whose `candidatesTokenCount` leaves out the thoughts.
    fn gemini(usage: &Value) -> Option<Usage> {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        usage.is_object().then(|| {
            let thoughts = count("thoughtsTokenCount");
            Usage {
                input: count("promptTokenCount"),
                output: count("candidatesTokenCount") + thoughts,
                cached: count("cachedContentTokenCount"),
                reasoning: thoughts,
            }
        })
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cached = self.cached.saturating_add(other.cached);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
    }
}

/// One tool call as a provider sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WireCall {
    /// The call's id: the provider's, or `gemini-call-<n>` for a Gemini call without one.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, for the registry to check (`{}` for OpenAI's `""`).
    pub args: String,
}

/// Why no turn can be read: a response that is not the provider's shape, an error the provider
/// reported in its stream, or a stream that ended early.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The body is not JSON.
    #[error("the response is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A member the provider always sends is missing or of another type.
    #[error("the response has no {0}")]
    Missing(&'static str),
    /// The provider reported an error in the stream (an `error` event, a failed response); the
    /// text is the provider's own message.
    #[error("the provider reported an error: {0}")]
    Provider(String),
    /// The stream ended before the provider said it was complete (names what it never sent).
    #[error("the stream ended before it was complete: it has no {0}")]
    Truncated(&'static str),
    /// An event came before the one that opens what it belongs to (names it).
    #[error("the stream is out of order: {0}")]
    OutOfOrder(&'static str),
    /// The response or stream has more calls, blocks or parts than a turn may have
    /// ([`MAX_CALLS`], [`MAX_PIECES`]).
    #[error("the {within} has more than {limit} {what}")]
    TooMany {
        /// `response` or `stream`.
        within: &'static str,
        /// The most it may have.
        limit: usize,
        /// What it has too many of (`calls`, `content blocks`, `parts`).
        what: &'static str,
    },
}

impl ModelTurn {
    fn new(message: Vec<Value>, stop_reason: Option<&Value>) -> Self {
        ModelTurn {
            text: String::new(),
            calls: Vec::new(),
            message,
            stop_reason: stop_reason.and_then(Value::as_str).map(str::to_owned),
            usage: None,
            response_id: None,
            response_model: None,
            provider_ids: Vec::new(),
        }
    }

    /// The response's id and model, read from `response`'s members `id` and `model`.
    fn identify(&mut self, response: &Value, id: &str, model: &str) {
        let text = |key| response.get(key).and_then(Value::as_str).map(str::to_owned);
        self.response_id = text(id);
        self.response_model = text(model);
    }

    fn push_text(&mut self, text: &str) {
        self.text.push_str(text);
    }

    fn push_call(&mut self, id: Option<&str>, name: &str, args: String) -> Result<(), WireError> {
        let index = self.calls.len();
        if index >= MAX_CALLS {
            return Err(WireError::TooMany {
                within: "response",
                limit: MAX_CALLS,
                what: "calls",
            });
        }
        self.provider_ids.push(id.is_some());
        self.calls.push(WireCall {
            id: id.map_or_else(|| format!("gemini-call-{index}"), str::to_owned),
            name: name.to_owned(),
            args,
        });
        Ok(())
    }
}

/// The string member `key` of `value`, which the provider always sends (`what` names it).
fn required_str<'v>(value: &'v Value, key: &str, what: &'static str) -> Result<&'v str, WireError> {
    required(value.get(key), what)
}

/// A member the provider always sends as a string (`what` names it), once found.
fn required<'v>(member: Option<&'v Value>, what: &'static str) -> Result<&'v str, WireError> {
    member
        .and_then(Value::as_str)
        .ok_or(WireError::Missing(what))
}

/// Arguments sent as a JSON string (OpenAI): as they are, `""` meaning no arguments.
fn string_args(arguments: Option<&Value>) -> String {
    match arguments {
        Some(Value::String(text)) if text.trim().is_empty() => "{}".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "{}".to_owned(),
    }
}

/// A JSON object of these members, each moved in. (`json!` serializes what it is given: for an
/// array or object that is a copy of all of it.)
fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Map::with_capacity(N);
    for (key, value) in members {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

/// The members `names` of `value` (`None` for each it lacks, or when it is no object), found in
/// one pass over its members: a block of a response has a handful, and looking each name up
/// hashes it.
fn members<'v, const N: usize>(value: &'v Value, names: [&str; N]) -> [Option<&'v Value>; N] {
    let mut found = [None; N];
    if let Value::Object(object) = value {
        for (key, member) in object {
            if let Some(slot) = names.iter().position(|name| name == key) {
                found[slot] = Some(member);
            }
        }
    }
    found
}

/// Arguments sent as a JSON value (Anthropic, Gemini): its text, members in the order sent.
fn value_args(arguments: Option<&Value>) -> String {
    // Into bytes, not through `Display`'s formatter: a call's arguments are most of a response.
    arguments.map_or_else(
        || "{}".to_owned(),
        |arguments| serde_json::to_string(arguments).expect("a JSON value encodes"),
    )
}

fn read_openai_chat(mut response: Value) -> Result<ModelTurn, WireError> {
    let choice = response
        .get_mut("choices")
        .and_then(|choices| choices.get_mut(0))
        .ok_or(WireError::Missing("choices[0]"))?;
    let message = choice
        .get_mut("message")
        .filter(|message| message.is_object())
        .map(Value::take)
        .ok_or(WireError::Missing("choices[0].message"))?;
    let mut turn = ModelTurn::new(Vec::new(), choice.get("finish_reason"));
    turn.usage = response.get("usage").and_then(Usage::openai_chat);
    turn.identify(&response, "id", "model");
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        turn.push_text(text);
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = call.get("function");
        let name = required_str(
            function.unwrap_or(&Value::Null),
            "name",
            "tool_calls[].function.name",
        )?;
        let id = required_str(call, "id", "tool_calls[].id")?;
        turn.push_call(
            Some(id),
            name,
            string_args(function.and_then(|f| f.get("arguments"))),
        )?;
    }
    turn.message.push(message);
    Ok(turn)
}

fn read_openai_responses(mut response: Value) -> Result<ModelTurn, WireError> {
    let output = match response.get_mut("output").map(Value::take) {
        Some(Value::Array(output)) => output,
        _ => return Err(WireError::Missing("output")),
    };
    let mut turn = ModelTurn::new(Vec::new(), response.get("status"));
    turn.usage = response.get("usage").and_then(Usage::openai_responses);
    turn.identify(&response, "id", "model");
    for item in &output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if part.get("type").and_then(Value::as_str) == Some("output_text")
                        && let Some(text) = part.get("text").and_then(Value::as_str)
                    {
                        turn.push_text(text);
                    }
                }
            }
            Some("function_call") => {
                let name = required_str(item, "name", "function_call.name")?;
                let id = required_str(item, "call_id", "function_call.call_id")?;
                turn.push_call(Some(id), name, string_args(item.get("arguments")))?;
            }
            _ => {}
        }
    }
    turn.message = output;
    Ok(turn)
}

fn read_anthropic(mut response: Value) -> Result<ModelTurn, WireError> {
    let content = match response.get_mut("content").map(Value::take) {
        Some(Value::Array(content)) => content,
        _ => return Err(WireError::Missing("content")),
    };
    let mut turn = ModelTurn::new(Vec::new(), response.get("stop_reason"));
    turn.usage = response.get("usage").and_then(Usage::anthropic);
    turn.identify(&response, "id", "model");
    for block in &content {
        let [kind, text, name, id, input] = members(block, ["type", "text", "name", "id", "input"]);
        match kind.and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = text.and_then(Value::as_str) {
                    turn.push_text(text);
                }
            }
            Some("tool_use") => {
                let name = required(name, "tool_use.name")?;
                let id = required(id, "tool_use.id")?;
                turn.push_call(Some(id), name, value_args(input))?;
            }
            _ => {}
        }
    }
    turn.message.push(object([
        ("role", "assistant".into()),
        ("content", content.into()),
    ]));
    Ok(turn)
}

fn read_gemini(mut response: Value) -> Result<ModelTurn, WireError> {
    let candidate = response
        .get_mut("candidates")
        .and_then(|candidates| candidates.get_mut(0))
        .ok_or(WireError::Missing("candidates[0]"))?;
    let content = candidate
        .get_mut("content")
        .filter(|content| content.is_object())
        .map(Value::take)
        .ok_or(WireError::Missing("candidates[0].content"))?;
    let mut turn = ModelTurn::new(Vec::new(), candidate.get("finishReason"));
    turn.usage = response.get("usageMetadata").and_then(Usage::gemini);
    turn.identify(&response, "responseId", "modelVersion");
    for part in content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // Thoughts are the model's own; they go back in `message`, not into the text.
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            turn.push_text(text);
        }
        if let Some(call) = part.get("functionCall") {
            let name = required_str(call, "name", "functionCall.name")?;
            let id = call.get("id").and_then(Value::as_str);
            turn.push_call(id, name, value_args(call.get("args")))?;
        }
    }
    turn.message.push(content);
    turn.settle_generated_ids();
    Ok(turn)
}

impl ModelTurn {
    /// Gives each call whose id was generated (`gemini-call-<n>`) one no call of the provider's
    /// has: a provider's own id may look like a generated one, and two calls must never share
    /// an id, or the second would be refused as reused.
    fn settle_generated_ids(&mut self) {
        if self.provider_ids.iter().all(|&given| given) {
            return;
        }
        let mut taken: HashSet<String> = self
            .calls
            .iter()
            .zip(&self.provider_ids)
            .filter(|(_, given)| **given)
            .map(|(call, _)| call.id.clone())
            .collect();
        for (index, (call, given)) in self.calls.iter_mut().zip(&self.provider_ids).enumerate() {
            if *given {
                continue;
            }
            let mut suffix = 0;
            while taken.contains(&call.id) {
                suffix += 1;
                call.id = format!("gemini-call-{index}-{suffix}");
            }
            taken.insert(call.id.clone());
        }
    }
}

impl ToolRegistry {
    /// Runs the calls of one model turn as a batch ([`ToolRegistry::call_batch`]: concurrently,
    /// events in call order) and returns one output per call, in call order, for
    /// [`Provider::results`].
    ///
    /// A call whose id an earlier call of the turn already used is not run: its output says so,
    /// so each result still pairs with exactly one call.
    pub fn run_turn(&self, exec: &Exec, turn: &ModelTurn) -> Vec<ToolOutput> {
        self.run_turn_with(exec, turn, &|_, _| {})
    }

    /// [`ToolRegistry::run_turn`], telling `done` each call's output with the call's index in
    /// the turn as soon as it has it ([`ToolRegistry::call_batch_with`]); a call that is not run
    /// (its id used twice) is told first.
    pub fn run_turn_with(
        &self,
        exec: &Exec,
        turn: &ModelTurn,
        done: &(dyn Fn(usize, &ToolOutput) + Sync),
    ) -> Vec<ToolOutput> {
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
        let mut outputs = self
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

//! Streamed responses: each provider's server-sent events accumulated into the [`ModelTurn`]
//! the equivalent non-streamed response gives ([`StreamReader`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::json::object;
use crate::provider::Provider;
use crate::read::{read_anthropic, read_gemini, read_openai_chat, read_openai_responses};
use crate::turn::{MAX_CALLS, ModelTurn, WireError};

/// The most content blocks (Anthropic) or parts (Gemini) one streamed turn may have.
pub const MAX_PIECES: usize = 10_000;
/// The most members of their own (`reasoning_content`, …) OpenAI Chat deltas may bring.
const MAX_OTHER_MEMBERS: usize = 256;

/// The error for a stream with more than `limit` of `what`.
fn too_many(limit: usize, what: &'static str) -> WireError {
    WireError::TooMany {
        within: "stream",
        limit,
        what,
    }
}

impl Provider {
    /// A reader for one streamed response of this provider: feed it the stream's events with
    /// [`StreamReader::push`], then take the turn with [`StreamReader::finish`].
    pub fn stream_reader(self) -> StreamReader {
        let state = match self {
            Provider::OpenAiChat => State::Chat(ChatStream::default()),
            Provider::OpenAiResponses => State::Responses(ResponsesStream::default()),
            Provider::Anthropic => State::Anthropic(AnthropicStream::default()),
            Provider::Gemini => State::Gemini(GeminiStream::default()),
        };
        StreamReader {
            state,
            failed: None,
        }
    }
}

/// One streamed response (server-sent events) being read, event by event, into a
/// [`ModelTurn`].
///
/// The framing (lines, `event:`, `data:`) is the host's; [`StreamReader::push`] takes one event
/// at a time and returns the text it carried for the user to see now, and
/// [`StreamReader::finish`] rebuilds the provider's whole response from the events and reads it
/// with the same reader as [`Provider::read_response`], so calls, ids and the kept message are
/// read one way only.
///
/// | provider | text | calls | complete |
/// | --- | --- | --- | --- |
/// | OpenAI Chat Completions | `choices[0].delta.content` | `delta.tool_calls[]` pieces, by index and id | `data: [DONE]` (or a `finish_reason`) |
/// | OpenAI Responses | `response.output_text.delta` | the `response.completed` response | `response.completed`, `response.incomplete` |
/// | Anthropic Messages | `text_delta` | `tool_use` blocks, `input_json_delta` pieces | `message_stop` |
/// | Gemini (`alt=sse`) | non-thought text parts | `functionCall` parts | a `finishReason`, then the body's end |
///
/// Any input is read without a panic: data that is not JSON or not the provider's shape is a
/// [`WireError`], events the provider may add are ignored, what a stream gathers is bounded
/// (at most [`MAX_CALLS`](crate::MAX_CALLS) calls and [`MAX_PIECES`] content blocks or parts,
/// each a [`WireError::TooMany`] past it; the host bounds the bytes), an error the provider reports is
/// [`WireError::Provider`] (from then on, every call returns it again), and a stream that ends
/// before the provider said it was complete is [`WireError::Truncated`]. Arguments that are not
/// JSON are not a host error: the call keeps them as they came, for the registry to answer the
/// model `Error: …`.
///
/// ```
/// use tool_wire::Provider;
///
/// // An Anthropic stream, event by event (`event:` name and `data:`), as the SSE framing gives them.
/// let events = [
///     ("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}"#),
///     ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Adding"}}"#),
///     ("ping", r#"{"type":"ping"}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"."}}"#),
///     ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
///     ("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"add","input":{}}}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2, "}}"#),
///     ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"b\": 3}"}}"#),
///     ("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
///     ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#),
///     ("message_stop", r#"{"type":"message_stop"}"#),
/// ];
/// let mut reader = Provider::Anthropic.stream_reader();
/// let mut shown = String::new();
/// for (event, data) in events {
///     if let Some(text) = reader.push(event, data).unwrap() {
///         shown.push_str(&text); // shown to the user as it comes
///     }
/// }
/// assert!(reader.is_done());
/// let turn = reader.finish().unwrap();
/// assert_eq!(turn.text, "Adding.");
/// assert_eq!(shown, turn.text);
/// assert_eq!(turn.calls[0].id, "toolu_1");
/// assert_eq!(turn.calls[0].args, r#"{"a":2,"b":3}"#);
/// assert_eq!(turn.stop_reason.as_deref(), Some("tool_use"));
/// assert_eq!(turn.message[0]["content"][1]["input"]["b"], 3);
///
/// // A stream cut before `message_stop` gives no turn.
/// let mut cut = Provider::Anthropic.stream_reader();
/// cut.push(events[0].0, events[0].1).unwrap();
/// assert_eq!(
///     cut.finish().unwrap_err().to_string(),
///     "the stream ended before it was complete: it has no message_stop"
/// );
/// ```
#[derive(Debug)]
pub struct StreamReader {
    state: State,
    /// The error the provider reported, once it has.
    failed: Option<String>,
}

#[derive(Debug)]
enum State {
    Chat(ChatStream),
    Responses(ResponsesStream),
    Anthropic(AnthropicStream),
    Gemini(GeminiStream),
}

impl StreamReader {
    /// Reads one server-sent event (its `event:` name, "message" when none, and its data).
    /// Returns the text the event carried for the user to see now (a text delta), if any.
    ///
    /// Events after the stream said it is complete are ignored; an event with no data (a
    /// keep-alive) carries nothing.
    pub fn push(&mut self, event: &str, data: &str) -> Result<Option<String>, WireError> {
        if let Some(message) = &self.failed {
            return Err(WireError::Provider(message.clone()));
        }
        if self.is_done() {
            return Ok(None);
        }
        let read = self.read(event, data);
        if let Err(WireError::Provider(message)) = &read {
            self.failed = Some(message.clone());
        }
        read.map(|text| text.filter(|text| !text.is_empty()))
    }

    /// Whether the stream said it is complete (OpenAI Chat `[DONE]`, Responses
    /// `response.completed` or `response.incomplete`, Anthropic `message_stop`); Gemini's ends
    /// with the body, so false until then.
    pub fn is_done(&self) -> bool {
        match &self.state {
            State::Chat(chat) => chat.done,
            State::Responses(responses) => responses.response.is_some(),
            State::Anthropic(anthropic) => anthropic.done,
            State::Gemini(_) => false,
        }
    }

    /// The turn: the same text, calls (ids, names, args) and stop reason as
    /// [`Provider::read_response`] gives for the equivalent non-streamed response, and a
    /// `message` the provider accepts back.
    ///
    /// Call it once the body has ended: a stream the provider did not complete is
    /// [`WireError::Truncated`] (an OpenAI Chat stream with a `finish_reason` but no `[DONE]`
    /// is complete enough).
    pub fn finish(self) -> Result<ModelTurn, WireError> {
        if let Some(message) = self.failed {
            return Err(WireError::Provider(message));
        }
        match self.state {
            State::Chat(chat) => chat.finish(),
            State::Responses(responses) => responses.finish(),
            State::Anthropic(anthropic) => anthropic.finish(),
            State::Gemini(gemini) => gemini.finish(),
        }
    }

    fn read(&mut self, event: &str, data: &str) -> Result<Option<String>, WireError> {
        if event == "error" {
            return Err(WireError::Provider(error_event(data)));
        }
        let data = data.trim();
        if data.is_empty() {
            return Ok(None);
        }
        if let State::Chat(chat) = &mut self.state
            && data.starts_with("[DONE]")
        {
            chat.done = true;
            return Ok(None);
        }
        if let State::Anthropic(anthropic) = &mut self.state
            && let Some(read) = anthropic.in_place(data)
        {
            return read;
        }
        let value = crate::value::parse(data).map_err(WireError::NotJson)?;
        if !value.is_object() {
            return Err(WireError::Missing("JSON object in the event's data"));
        }
        // OpenAI's and Gemini's streams report a failure as a chunk with an `error` member.
        if let Some(error) = value.get("error").filter(|error| truthy(error)) {
            return Err(WireError::Provider(reported(error)));
        }
        match &mut self.state {
            State::Chat(chat) => chat.push(&value),
            State::Responses(responses) => responses.push(event, value),
            State::Anthropic(anthropic) => anthropic.push(event, value),
            State::Gemini(gemini) => gemini.push(value),
        }
    }
}

/// Whether Python would call the value true: the SDKs' test for an `error` member.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        Value::Number(number) => number.as_f64() != Some(0.0),
        Value::Bool(true) => true,
    }
}

/// The message of an `error` event's data: its `error` member's (or its own) message, the
/// data itself when it is not JSON.
fn error_event(data: &str) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(value) => match value.get("error").filter(|error| truthy(error)) {
            Some(error) => reported(error),
            None => reported(&value),
        },
        Err(_) if data.trim().is_empty() => "an error event without data".to_owned(),
        Err(_) => data.trim().to_owned(),
    }
}

/// An error the provider reported, as text: `kind: message`, the kind being its code, status or
/// type (`overloaded_error`, `RESOURCE_EXHAUSTED`, `server_error`).
fn reported(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str);
    let kind = ["code", "status", "type"].into_iter().find_map(|key| {
        error
            .get(key)
            .and_then(Value::as_str)
            .filter(|kind| !kind.is_empty() && *kind != "error")
    });
    match (kind, message) {
        (Some(kind), Some(message)) => format!("{kind}: {message}"),
        (None, Some(message)) => message.to_owned(),
        _ => match error {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
    }
}

/// The string `key` of `value`: `Ok(None)` when absent or null, an error when of another type.
fn optional_str<'v>(
    value: &'v Value,
    key: &str,
    what: &'static str,
) -> Result<Option<&'v str>, WireError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(WireError::Missing(what)),
    }
}

/// The event's type: its data's `type`, else the `event:` name.
fn event_type<'v>(event: &'v str, data: &'v Value) -> &'v str {
    data.get("type").and_then(Value::as_str).unwrap_or(event)
}

// OpenAI Chat Completions.

/// An OpenAI Chat stream: the assistant message's pieces.
#[derive(Debug, Default)]
struct ChatStream {
    role: Option<String>,
    content: Option<String>,
    refusal: Option<String>,
    /// Other string members of the deltas (`reasoning_content`, …), concatenated.
    other: Map<String, Value>,
    calls: Vec<ChatCall>,
    /// Per `index`: the latest call at it.
    latest: HashMap<Option<u64>, usize>,
    /// Per `index` and id: the call.
    by_id: HashMap<(Option<u64>, String), usize>,
    finish_reason: Option<String>,
    done: bool,
    /// The `usage` of the last chunk that had one (sent when the request asks for it).
    usage: Option<Value>,
    /// The response's `id` and `model`, as the chunks carry them.
    id: Option<Value>,
    model: Option<Value>,
}

#[derive(Debug)]
struct ChatCall {
    id: Option<String>,
    name: Option<String>,
    arguments: Option<String>,
}

impl ChatStream {
    fn push(&mut self, chunk: &Value) -> Result<Option<String>, WireError> {
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = Some(usage.clone());
        }
        if self.id.is_none() {
            self.id = chunk.get("id").filter(|id| id.is_string()).cloned();
            self.model = chunk
                .get("model")
                .filter(|model| model.is_string())
                .cloned();
        }
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            return Err(WireError::Missing("choices"));
        };
        let mut text = String::new();
        // The first choice only, as the non-streamed reader reads `choices[0]`.
        for choice in choices.iter().filter(|choice| {
            choice
                .get("index")
                .is_none_or(|index| index.is_null() || index.as_u64() == Some(0))
        }) {
            if let Some(reason) = optional_str(choice, "finish_reason", "choices[].finish_reason")?
            {
                self.finish_reason = Some(reason.to_owned());
            }
            match choice.get("delta") {
                None | Some(Value::Null) => {}
                Some(delta @ Value::Object(_)) => self.push_delta(delta, &mut text)?,
                Some(_) => return Err(WireError::Missing("choices[].delta")),
            }
        }
        Ok(Some(text))
    }

    fn push_delta(&mut self, delta: &Value, text: &mut String) -> Result<(), WireError> {
        let Some(members) = delta.as_object() else {
            return Ok(());
        };
        for (key, value) in members {
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                ("role", Value::String(role)) => self.role = Some(role.clone()),
                ("content", Value::String(piece)) => {
                    self.content.get_or_insert_default().push_str(piece);
                    text.push_str(piece);
                }
                ("refusal", Value::String(piece)) => {
                    self.refusal.get_or_insert_default().push_str(piece)
                }
                ("tool_calls", Value::Array(calls)) => {
                    for call in calls {
                        self.push_call(call)?;
                    }
                }
                ("role", _) => return Err(WireError::Missing("choices[].delta.role")),
                ("content", _) => return Err(WireError::Missing("choices[].delta.content")),
                ("refusal", _) => return Err(WireError::Missing("choices[].delta.refusal")),
                ("tool_calls", _) => {
                    return Err(WireError::Missing("choices[].delta.tool_calls"));
                }
                (_, Value::String(piece)) => {
                    let members = self.other.len();
                    match self.other.get_mut(key) {
                        Some(Value::String(text)) => text.push_str(piece),
                        _ if members >= MAX_OTHER_MEMBERS => {
                            return Err(too_many(MAX_OTHER_MEMBERS, "members in its deltas"));
                        }
                        _ => {
                            self.other.insert(key.clone(), piece.clone().into());
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// One piece of a call: a new id starts a call (even at an index used before, as some
    /// servers send every call at index 0); no id continues the latest call at its index.
    fn push_call(&mut self, piece: &Value) -> Result<(), WireError> {
        if !piece.is_object() {
            return Err(WireError::Missing("delta.tool_calls[] object"));
        }
        let index = match piece.get("index") {
            None | Some(Value::Null) => None,
            Some(index) => Some(
                index
                    .as_u64()
                    .ok_or(WireError::Missing("delta.tool_calls[].index"))?,
            ),
        };
        let id = optional_str(piece, "id", "delta.tool_calls[].id")?.filter(|id| !id.is_empty());
        let function = piece.get("function").unwrap_or(&Value::Null);
        let name = optional_str(function, "name", "delta.tool_calls[].function.name")?;
        let existing = match id {
            Some(id) => self.by_id.get(&(index, id.to_owned())).copied(),
            None => self.latest.get(&index).copied(),
        };
        let position = match existing {
            Some(position) => position,
            None if self.calls.len() >= MAX_CALLS => return Err(too_many(MAX_CALLS, "calls")),
            None => {
                let position = self.calls.len();
                self.calls.push(ChatCall {
                    id: id.map(str::to_owned),
                    name: None,
                    arguments: None,
                });
                if let Some(id) = id {
                    self.by_id.insert((index, id.to_owned()), position);
                }
                position
            }
        };
        self.latest.insert(index, position);
        let Some(call) = self.calls.get_mut(position) else {
            return Ok(());
        };
        // The name comes whole on a call's first piece; a server that repeats it on every
        // piece repeats it whole.
        if let Some(name) = name
            && call.name.as_deref() != Some(name)
        {
            call.name.get_or_insert_default().push_str(name);
        }
        match function.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::String(piece)) => call.arguments.get_or_insert_default().push_str(piece),
            // Arguments sent as a value, as a few servers do: its JSON text.
            Some(other) => call
                .arguments
                .get_or_insert_default()
                .push_str(&other.to_string()),
        }
        Ok(())
    }

    fn finish(self) -> Result<ModelTurn, WireError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(WireError::Truncated("finish_reason or [DONE]"));
        }
        let mut message = Map::new();
        message.insert(
            "role".into(),
            self.role.unwrap_or_else(|| "assistant".into()).into(),
        );
        message.insert(
            "content".into(),
            self.content.map_or(Value::Null, Value::from),
        );
        if let Some(refusal) = self.refusal {
            message.insert("refusal".into(), refusal.into());
        }
        for (key, value) in self.other {
            message.entry(key).or_insert(value);
        }
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_iter()
                .map(|call| {
                    let mut function = Map::new();
                    if let Some(name) = call.name {
                        function.insert("name".into(), name.into());
                    }
                    function.insert(
                        "arguments".into(),
                        call.arguments.unwrap_or_default().into(),
                    );
                    let mut out = Map::new();
                    if let Some(id) = call.id {
                        out.insert("id".into(), id.into());
                    }
                    out.insert("type".into(), "function".into());
                    out.insert("function".into(), function.into());
                    Value::Object(out)
                })
                .collect();
            message.insert("tool_calls".into(), calls.into());
        }
        let choice = object([
            ("index", 0.into()),
            ("message", message.into()),
            ("finish_reason", self.finish_reason.into()),
        ]);
        read_openai_chat(object([
            ("id", self.id.into()),
            ("model", self.model.into()),
            ("choices", vec![choice].into()),
            ("usage", self.usage.into()),
        ]))
    }
}

// OpenAI Responses.

/// An OpenAI Responses stream: the response its last event carries.
#[derive(Debug, Default)]
struct ResponsesStream {
    /// The `response.completed` (or `response.incomplete`) event's response.
    response: Option<Value>,
}

impl ResponsesStream {
    fn push(&mut self, event: &str, mut data: Value) -> Result<Option<String>, WireError> {
        match event_type(event, &data) {
            "response.output_text.delta" => {
                let delta = optional_str(&data, "delta", "response.output_text.delta.delta")?;
                Ok(delta.map(str::to_owned))
            }
            "response.completed" | "response.incomplete" => {
                match data.get_mut("response").map(Value::take) {
                    Some(response @ Value::Object(_)) => {
                        self.response = Some(response);
                        Ok(None)
                    }
                    _ => Err(WireError::Missing("response.completed.response")),
                }
            }
            "response.failed" => {
                let error = data
                    .get("response")
                    .and_then(|response| response.get("error"))
                    .filter(|error| truthy(error));
                Err(WireError::Provider(
                    error.map_or_else(|| "the response failed".to_owned(), reported),
                ))
            }
            "error" => Err(WireError::Provider(reported(&data))),
            _ => Ok(None),
        }
    }

    fn finish(self) -> Result<ModelTurn, WireError> {
        let response = self
            .response
            .ok_or(WireError::Truncated("response.completed"))?;
        read_openai_responses(response)
    }
}

// Anthropic Messages.

/// An Anthropic stream: the message `message_start` opened and its content blocks.
#[derive(Debug, Default)]
struct AnthropicStream {
    message: Option<Map<String, Value>>,
    /// The content blocks in the order they started.
    blocks: Vec<Block>,
    /// Per block `index`: its position in `blocks` (seeded per process: indexes come from the
    /// stream).
    positions: foldhash::HashMap<u64, usize>,
    done: bool,
}

#[derive(Debug)]
struct Block {
    value: Map<String, Value>,
    /// Its `type`, read once at its start (no event changes it).
    kind: Kind,
    /// The `input_json_delta` pieces, unescaped, until `content_block_stop`: bytes, since a
    /// piece is unescaped a byte at a time; only whole pieces and ASCII are ever appended, so
    /// they stay UTF-8.
    json: Option<Vec<u8>>,
    /// Input that was not a JSON object, as it came: the call's arguments.
    bad_input: Option<String>,
}

/// What a content block is, as far as the reader cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    /// A `tool_use` block: a call the turn reads.
    ToolUse,
    /// Another block whose type ends in `tool_use` (`server_tool_use`, `mcp_tool_use`): it takes
    /// input pieces too, but is not a call for the host.
    OtherToolUse,
    Other,
}

impl Block {
    fn new(value: Map<String, Value>) -> Self {
        let kind = match value.get("type").and_then(Value::as_str) {
            Some("text") => Kind::Text,
            Some("thinking") => Kind::Thinking,
            Some("tool_use") => Kind::ToolUse,
            Some(kind) if kind.ends_with("tool_use") => Kind::OtherToolUse,
            _ => Kind::Other,
        };
        Block {
            value,
            kind,
            json: None,
            bad_input: None,
        }
    }

    /// Sets the input its `input_json_delta` pieces spell: `{}` when none or empty; input that
    /// is not a JSON object is kept for the call's arguments and sent back as `{}`.
    fn close(&mut self) {
        let Some(bytes) = self.json.take() else {
            return;
        };
        // Only whole pieces and ASCII were appended, so the bytes are UTF-8; checking them
        // once and reading text is quicker than serde_json's reading of bytes, which checks
        // each string.
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|bytes| String::from_utf8_lossy(bytes.as_bytes()).into_owned());
        let input = match crate::value::parse(&text) {
            Ok(input @ Value::Object(_)) => input,
            _ => {
                if !text.trim().is_empty() {
                    self.bad_input = Some(text);
                }
                json!({})
            }
        };
        self.value.insert("input".into(), input);
    }

    /// A `text_delta` piece: appended to a text block, and returned for the user to see now.
    fn text_piece(&mut self, piece: Cow<'_, str>) -> Option<String> {
        (self.kind == Kind::Text).then(|| {
            self.append("text", &piece);
            piece.into_owned()
        })
    }

    /// An `input_json_delta` piece: gathered, for a block that takes input.
    fn input_piece(&mut self, piece: &str) {
        if self.takes_input() {
            self.input_buffer(piece.len())
                .extend_from_slice(piece.as_bytes());
        }
    }

    /// An `input_json_delta` piece as its event's data has it: a JSON string serde_json has
    /// checked, quotes and escapes included, unescaped straight into the input gathered. False,
    /// and nothing gathered, for a piece the general path reads instead: one with a `\u` escape
    /// (which may be half a surrogate pair, which serde refuses), or one for a block that takes
    /// no input.
    fn input_literal(&mut self, literal: &str) -> bool {
        if !self.takes_input() {
            return false;
        }
        let inner = &literal.as_bytes()[1..literal.len() - 1];
        unescape_into(self.input_buffer(inner.len()), inner)
    }

    /// The input gathered so far, with room for `more` bytes.
    fn input_buffer(&mut self, more: usize) -> &mut Vec<u8> {
        // A call's input is a few hundred bytes: room for it at once, not grown piece by piece.
        let json = self
            .json
            .get_or_insert_with(|| Vec::with_capacity(more.max(INPUT_ROOM)));
        json.reserve(more);
        json
    }

    fn takes_input(&self) -> bool {
        matches!(self.kind, Kind::ToolUse | Kind::OtherToolUse)
    }

    /// Appends `piece` to the string member `key`.
    fn append(&mut self, key: &str, piece: &str) {
        match self.value.get_mut(key) {
            Some(Value::String(text)) => text.push_str(piece),
            _ => {
                self.value.insert(key.to_owned(), piece.into());
            }
        }
    }
}

/// The room a block's input starts with.
const INPUT_ROOM: usize = 512;

impl AnthropicStream {
    fn push(&mut self, event: &str, mut data: Value) -> Result<Option<String>, WireError> {
        let kind = event_type(event, &data).to_owned();
        match kind.as_str() {
            "ping" => return Ok(None),
            "error" => {
                return Err(WireError::Provider(reported(
                    data.get("error").unwrap_or(&data),
                )));
            }
            "message_start" => {
                if self.message.is_some() {
                    return Err(WireError::OutOfOrder("a second message_start"));
                }
                let Some(Value::Object(mut message)) = data.get_mut("message").map(Value::take)
                else {
                    return Err(WireError::Missing("message_start.message"));
                };
                if let Some(Value::Array(content)) = message.get_mut("content").map(Value::take) {
                    if content.len() > MAX_PIECES {
                        return Err(too_many(MAX_PIECES, "content blocks"));
                    }
                    self.blocks = content
                        .into_iter()
                        .filter_map(|block| match block {
                            Value::Object(block) => Some(Block::new(block)),
                            _ => None,
                        })
                        .collect();
                }
                self.message = Some(message);
                return Ok(None);
            }
            _ => {}
        }
        if self.message.is_none() {
            return match kind.as_str() {
                "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
                | "message_delta"
                | "message_stop" => Err(WireError::OutOfOrder("an event before message_start")),
                _ => Ok(None),
            };
        }
        match kind.as_str() {
            "content_block_start" => {
                let index = block_index(&data, "content_block_start.index")?;
                let Some(Value::Object(block)) = data.get_mut("content_block").map(Value::take)
                else {
                    return Err(WireError::Missing("content_block_start.content_block"));
                };
                self.start(index, block)
            }
            "content_block_delta" => {
                let index = block_index(&data, "content_block_delta.index")?;
                let block = self.block(index, "content_block_delta before its block's start")?;
                let delta = data.get("delta").unwrap_or(&Value::Null);
                let text = |key: &str| optional_str(delta, key, "content_block_delta.delta");
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        Ok(text("text")?.and_then(|piece| block.text_piece(piece.into())))
                    }
                    Some("input_json_delta") => {
                        if let Some(piece) = text("partial_json")? {
                            block.input_piece(piece);
                        }
                        Ok(None)
                    }
                    Some("thinking_delta") => {
                        if let Some(piece) = text("thinking")?
                            && block.kind == Kind::Thinking
                        {
                            block.append("thinking", piece);
                        }
                        Ok(None)
                    }
                    Some("signature_delta") => {
                        if let Some(signature) = text("signature")?
                            && block.kind == Kind::Thinking
                        {
                            block.value.insert("signature".into(), signature.into());
                        }
                        Ok(None)
                    }
                    Some("citations_delta") => {
                        if let Some(citation) = delta.get("citation").filter(|c| c.is_object())
                            && block.kind == Kind::Text
                        {
                            match block.value.get_mut("citations") {
                                Some(Value::Array(citations)) => citations.push(citation.clone()),
                                _ => {
                                    block.value.insert("citations".into(), json!([citation]));
                                }
                            }
                        }
                        Ok(None)
                    }
                    Some(_) => Ok(None),
                    None => Err(WireError::Missing("content_block_delta.delta.type")),
                }
            }
            "content_block_stop" => {
                let index = block_index(&data, "content_block_stop.index")?;
                self.stop(index)
            }
            "message_delta" => {
                // Its counts are the message's so far: they replace those of message_start.
                if let Some(Value::Object(counts)) = data.get_mut("usage").map(Value::take)
                    && let Some(message) = &mut self.message
                {
                    let usage = message
                        .entry("usage")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(usage) = usage {
                        for (key, value) in counts {
                            if !value.is_null() {
                                usage.insert(key, value);
                            }
                        }
                    }
                }
                let delta = data.get_mut("delta").map(Value::take);
                if let Some(Value::Object(delta)) = delta
                    && let Some(message) = &mut self.message
                {
                    for (key, value) in delta {
                        if key == "stop_reason" || key == "stop_sequence" {
                            message.insert(key, value);
                        }
                    }
                }
                Ok(None)
            }
            "message_stop" => {
                self.done = true;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// A text or input piece (`content_block_delta`, most of a stream's events), a block's start
    /// or its end, read into borrowing fields rather than a JSON value; `None`
    /// for anything else, or anything that reads otherwise than the general path would read it
    /// (an `error` member, a repeated member, another shape), which then reads the event
    /// instead.
    fn in_place(&mut self, data: &str) -> Option<Result<Option<String>, WireError>> {
        #[derive(serde::Deserialize)]
        struct Event<'a> {
            #[serde(rename = "type", borrow)]
            kind: Cow<'a, str>,
            index: u64,
            #[serde(borrow)]
            delta: Option<Delta<'a>>,
            #[serde(default, deserialize_with = "crate::value::object")]
            content_block: Option<Map<String, Value>>,
            error: Option<serde::de::IgnoredAny>,
        }
        #[derive(serde::Deserialize)]
        struct Delta<'a> {
            #[serde(rename = "type", borrow)]
            kind: Cow<'a, str>,
            #[serde(borrow)]
            text: Option<Cow<'a, str>>,
            /// As sent, quotes and escapes included: unescaped straight into its block's input.
            #[serde(borrow)]
            partial_json: Option<&'a RawValue>,
        }
        // A struct also reads from an array; the general path refuses one.
        if !data.starts_with('{') || self.message.is_none() {
            return None;
        }
        if let Some(read) = self.as_sent(data) {
            return Some(read);
        }
        let event: Event<'_> = serde_json::from_str(data).ok()?;
        if event.error.is_some() {
            return None;
        }
        let delta = match &*event.kind {
            "content_block_start" => return Some(self.start(event.index, event.content_block?)),
            "content_block_stop" => return Some(self.stop(event.index)),
            "content_block_delta" => event.delta?,
            _ => return None,
        };
        // Anything amiss (no such block, a piece that is not a plain string) is read by the
        // general path, which says what is wrong as it always has.
        let block = self.started(event.index)?;
        Some(Ok(match &*delta.kind {
            "text_delta" => delta.text.and_then(|piece| block.text_piece(piece)),
            "input_json_delta" => {
                match delta.partial_json.map(RawValue::get) {
                    Some("null") | None => {}
                    // A string without a `\u` escape is unescaped here; the general path reads
                    // one with (it may be half a pair) as serde reads it.
                    Some(literal) if literal.starts_with('"') => {
                        if !block.input_literal(literal) {
                            return None;
                        }
                    }
                    Some(_) => return None,
                }
                None
            }
            _ => return None,
        }))
    }

    /// A piece, a block's start or its end exactly as Anthropic writes them, read by hand:
    /// `{"type":"content_block_delta","index":N,"delta":{"type":"input_json_delta","partial_json":"…"}}`,
    /// the same with `"type":"text_delta","text":"…"`, `{"type":"content_block_start","index":N,"content_block":{…}}`
    /// (the block read as [`parse`](crate::value::parse) reads it) and
    /// `{"type":"content_block_stop","index":N}`. `None` for any other text (other spacing or
    /// order, another member, an escape serde would refuse or a `\u` one, no such block), which
    /// serde then reads.
    fn as_sent(&mut self, data: &str) -> Option<Result<Option<String>, WireError>> {
        const DELTA: &str = r#"{"type":"content_block_delta","index":"#;
        const INPUT: &str = r#","delta":{"type":"input_json_delta","partial_json":""#;
        const TEXT: &str = r#","delta":{"type":"text_delta","text":""#;
        const START: &str = r#"{"type":"content_block_start","index":"#;
        const BLOCK: &str = r#","content_block":"#;
        const STOP: &str = r#"{"type":"content_block_stop","index":"#;
        if let Some(rest) = data.strip_prefix(DELTA) {
            let (index, rest) = leading_index(rest)?;
            if let Some(literal) = rest.strip_prefix(INPUT) {
                let inner = literal.strip_suffix(r#""}}"#)?.as_bytes();
                let block = self.started(index)?;
                if !block.takes_input() {
                    return None;
                }
                return unescape_into(block.input_buffer(inner.len()), inner).then_some(Ok(None));
            }
            let inner = rest.strip_prefix(TEXT)?.strip_suffix(r#""}}"#)?.as_bytes();
            let mut piece = Vec::with_capacity(inner.len());
            if !unescape_into(&mut piece, inner) {
                return None;
            }
            let piece = String::from_utf8(piece).ok()?;
            return Some(Ok(self.started(index)?.text_piece(piece.into())));
        }
        if let Some(rest) = data.strip_prefix(START) {
            let (index, rest) = leading_index(rest)?;
            let block = rest.strip_prefix(BLOCK)?.strip_suffix('}')?;
            let Ok(Value::Object(block)) = crate::value::parse(block) else {
                return None;
            };
            return Some(self.start(index, block));
        }
        let (index, rest) = leading_index(data.strip_prefix(STOP)?)?;
        (rest == "}").then(|| self.stop(index))
    }

    /// A `content_block_start`'s block, at `index`.
    fn start(
        &mut self,
        index: u64,
        block: Map<String, Value>,
    ) -> Result<Option<String>, WireError> {
        if self.positions.contains_key(&index) {
            return Err(WireError::OutOfOrder(
                "a second content_block_start for one index",
            ));
        }
        if self.blocks.len() >= MAX_PIECES {
            return Err(too_many(MAX_PIECES, "content blocks"));
        }
        self.positions.insert(index, self.blocks.len());
        self.blocks.push(Block::new(block));
        Ok(None)
    }

    /// A `content_block_stop`: the block at `index` is closed.
    fn stop(&mut self, index: u64) -> Result<Option<String>, WireError> {
        self.block(index, "content_block_stop before its block's start")?
            .close();
        Ok(None)
    }

    fn block(&mut self, index: u64, out_of_order: &'static str) -> Result<&mut Block, WireError> {
        self.started(index)
            .ok_or(WireError::OutOfOrder(out_of_order))
    }

    /// The block started at `index`, if one has.
    fn started(&mut self, index: u64) -> Option<&mut Block> {
        self.positions
            .get(&index)
            .and_then(|&position| self.blocks.get_mut(position))
    }

    fn finish(mut self) -> Result<ModelTurn, WireError> {
        if !self.done {
            return Err(WireError::Truncated("message_stop"));
        }
        let Some(mut message) = self.message.take() else {
            return Err(WireError::Truncated("message_start"));
        };
        for block in &mut self.blocks {
            block.close();
        }
        let mut bad_inputs = Vec::new();
        let mut content = Vec::with_capacity(self.blocks.len());
        for block in self.blocks {
            if block.kind == Kind::ToolUse {
                bad_inputs.push(block.bad_input);
            }
            content.push(Value::Object(block.value));
        }
        message.insert("content".into(), content.into());
        let mut turn = read_anthropic(Value::Object(message))?;
        // `read_anthropic` reads one call per `tool_use` block, in order.
        for (call, bad_input) in turn.calls.iter_mut().zip(bad_inputs) {
            if let Some(text) = bad_input {
                call.args = text;
            }
        }
        Ok(turn)
    }
}

/// Appends the text of the JSON string whose content, between its quotes, is `inner`,
/// unescaped, to `out`. False, with `out` as it was, for content serde_json would refuse (a bare
/// quote or control character, an unknown escape) and for a `\u` escape, which may be half a
/// surrogate pair: both are left to serde.
///
/// A byte at a time: a call's input is JSON inside a JSON string, an escaped quote every few
/// bytes, and looking for each backslash (memchr, then a copy) costs more than the walk.
fn unescape_into(out: &mut Vec<u8>, inner: &[u8]) -> bool {
    let start = out.len();
    let mut bytes = inner.iter();
    while let Some(&byte) = bytes.next() {
        let unescaped = match byte {
            b'\\' => match bytes.next() {
                Some(b'b') => 0x08,
                Some(b'f') => 0x0c,
                Some(b'n') => b'\n',
                Some(b'r') => b'\r',
                Some(b't') => b'\t',
                Some(&other @ (b'"' | b'\\' | b'/')) => other,
                _ => {
                    out.truncate(start);
                    return false;
                }
            },
            b'"' | 0..0x20 => {
                out.truncate(start);
                return false;
            }
            byte => byte,
        };
        out.push(unescaped);
    }
    true
}

/// A block's index at the start of `text` as JSON writes a whole number (no sign, no leading
/// zero, no fraction), and the text after it.
fn leading_index(text: &str) -> Option<(u64, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, rest) = text.split_at(digits);
    if number.is_empty() || (number.len() > 1 && number.starts_with('0')) {
        return None;
    }
    // Followed by a fraction or an exponent it is no whole number; too long, no u64: serde's.
    if rest.starts_with(['.', 'e', 'E']) {
        return None;
    }
    Some((number.parse().ok()?, rest))
}

fn block_index(data: &Value, what: &'static str) -> Result<u64, WireError> {
    data.get("index")
        .and_then(Value::as_u64)
        .ok_or(WireError::Missing(what))
}

// Gemini.

/// A Gemini stream: the first candidate's parts, chunk after chunk.
#[derive(Debug, Default)]
struct GeminiStream {
    role: Option<Value>,
    parts: Vec<Value>,
    finish_reason: Option<Value>,
    chunks: usize,
    candidate: bool,
    blocked: Option<String>,
    /// The `usageMetadata` of the last chunk that had one: each is the response's so far.
    usage: Option<Value>,
    /// The response's `responseId` and `modelVersion`, as the chunks carry them.
    id: Option<Value>,
    model: Option<Value>,
}

/// Which parts merge with the one before: plain text, and plain thought text; a part with a
/// thought signature, a call or anything else is kept as it came. Empty plain text is dropped.
#[derive(PartialEq)]
enum Plain {
    Text,
    Thought,
}

fn plain(part: &Value) -> Option<Plain> {
    let part = part.as_object()?;
    if !part.get("text").is_some_and(Value::is_string) {
        return None;
    }
    match (part.len(), part.get("thought")) {
        (1, None) => Some(Plain::Text),
        (2, Some(Value::Bool(true))) => Some(Plain::Thought),
        _ => None,
    }
}

impl GeminiStream {
    fn push(&mut self, mut chunk: Value) -> Result<Option<String>, WireError> {
        self.chunks += 1;
        if self.id.is_none() {
            self.id = chunk.get_mut("responseId").map(Value::take);
            self.model = chunk.get_mut("modelVersion").map(Value::take);
        }
        if let Some(usage) = chunk
            .get_mut("usageMetadata")
            .filter(|usage| usage.is_object())
        {
            self.usage = Some(usage.take());
        }
        if let Some(reason) = chunk
            .get("promptFeedback")
            .and_then(|feedback| feedback.get("blockReason"))
            .and_then(Value::as_str)
        {
            self.blocked = Some(reason.to_owned());
        }
        let Some(candidate) = chunk
            .get_mut("candidates")
            .and_then(|candidates| candidates.get_mut(0))
            .filter(|candidate| candidate.is_object())
        else {
            return Ok(None);
        };
        self.candidate = true;
        if let Some(reason) = candidate.get("finishReason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(reason.clone());
        }
        let Some(content) = candidate.get_mut("content") else {
            return Ok(None);
        };
        if self.role.is_none() {
            self.role = content.get("role").filter(|role| role.is_string()).cloned();
        }
        let Some(Value::Array(parts)) = content.get_mut("parts").map(Value::take) else {
            return Ok(None);
        };
        let mut text = String::new();
        for part in parts {
            if part.get("thought").and_then(Value::as_bool) != Some(true)
                && let Some(piece) = part.get("text").and_then(Value::as_str)
            {
                text.push_str(piece);
            }
            self.push_part(part)?;
        }
        Ok(Some(text))
    }

    fn push_part(&mut self, part: Value) -> Result<(), WireError> {
        let kind = plain(&part);
        // An empty text part is nothing to keep (and Vertex refuses it back).
        if kind == Some(Plain::Text) && part.get("text").and_then(Value::as_str) == Some("") {
            return Ok(());
        }
        if let Some(kind) = kind
            && let Some(last) = self.parts.last_mut()
            && plain(last) == Some(kind)
            && let (Some(Value::String(text)), Some(piece)) = (
                last.get_mut("text"),
                part.get("text").and_then(Value::as_str),
            )
        {
            text.push_str(piece);
            return Ok(());
        }
        if self.parts.len() >= MAX_PIECES {
            return Err(too_many(MAX_PIECES, "parts"));
        }
        self.parts.push(part);
        Ok(())
    }

    fn finish(self) -> Result<ModelTurn, WireError> {
        if self.chunks > 0 && !self.candidate {
            if let Some(reason) = self.blocked {
                return Err(WireError::Provider(format!(
                    "the prompt was blocked: {reason}"
                )));
            }
            return Err(WireError::Missing("candidates[0]"));
        }
        let Some(finish_reason) = self.finish_reason else {
            return Err(WireError::Truncated("finishReason"));
        };
        let role = self.role.unwrap_or_else(|| "model".into());
        let candidate = object([
            (
                "content",
                object([("role", role), ("parts", self.parts.into())]),
            ),
            ("finishReason", finish_reason),
        ]);
        read_gemini(object([
            ("candidates", vec![candidate].into()),
            ("usageMetadata", self.usage.into()),
            ("responseId", self.id.into()),
            ("modelVersion", self.model.into()),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Anthropic stream with its message started, a text block at index 0 and a `tool_use`
    /// block at index 1.
    fn started() -> AnthropicStream {
        let mut stream = AnthropicStream::default();
        for data in [
            r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c"}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}"#,
        ] {
            stream
                .push("event", serde_json::from_str(data).unwrap())
                .unwrap();
        }
        stream
    }

    fn finished(mut stream: AnthropicStream) -> String {
        for data in [
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"}}"#,
            r#"{"type":"message_stop"}"#,
        ] {
            stream
                .push("event", serde_json::from_str(data).unwrap())
                .unwrap();
        }
        format!("{:?}", stream.finish())
    }

    /// A piece unescaped by hand is the string serde reads, for every escape but `\u` (which
    /// is refused, and left to serde).
    #[test]
    fn a_piece_unescapes_as_serde_reads_it() {
        for (literal, escape) in [
            (r#""""#, false),
            (r#""plain""#, false),
            (r#""{\"a\": [1, \"b\"]}""#, false),
            (r#""\\\/\b\f\n\r\t\"""#, false),
            (r#""é, 漢字 and 🦀 \"quoted\"""#, false),
            (r#""ends with \\""#, false),
            (r#""\\u00e9 is no escape""#, false),
            (r#""\u00e9""#, true),
            (r#""\ud83e\udd80""#, true),
            (r#""x\\\u0041""#, true),
            (r#""a long run, then \n\u0041""#, true),
        ] {
            let read: String = serde_json::from_str(literal).unwrap();
            let mut out = b"kept ".to_vec();
            let unescaped = unescape_into(&mut out, &literal.as_bytes()[1..literal.len() - 1]);
            assert_eq!(unescaped, !escape, "{literal}");
            if escape {
                assert_eq!(out, b"kept ", "{literal}");
            } else {
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    format!("kept {read}"),
                    "{literal}"
                );
            }
        }
    }

    /// Events as Anthropic writes them are read by hand; anything near them is left to serde,
    /// and both readings answer as the general path does.
    #[test]
    fn an_event_read_by_hand_reads_as_the_general_path_reads_it() {
        // (data, read by hand)
        let cases = [
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": [1, \"b\\\"c\"]"}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\\/\b\f\n\r\t é 漢 🦀"}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel\"lo\n🦀"}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"not a text block"}}"#,
                true,
            ),
            (r#"{"type":"content_block_stop","index":1}"#, true),
            (r#"{"type":"content_block_stop","index":0}"#, true),
            (r#"{"type":"content_block_stop","index":9}"#, true),
            (
                r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"u","name":"m","input":{}}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"\u00e9 \"x\""}}"#,
                true,
            ),
            (
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
                true,
            ),
            // Left to serde: escapes it decides on, other text, other shapes.
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\u0041"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\ud83e"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\x"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a\"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a"}},"x":{"y":"b"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a"}} "#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a"}}}"#,
                false,
            ),
            (
                "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"a\tb\"}}",
                false,
            ),
            (
                "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"a\u{0}\"}}",
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":01,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1.0,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1e0,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":-1,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":18446744073709551616,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":7,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta", "index":1,"delta":{"type":"input_json_delta","partial_json":"a"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"partial_json":"a","type":"input_json_delta"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a","x":1}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9"}}"#,
                false,
            ),
            (
                r#"{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"x"}}"#,
                false,
            ),
            (r#"{"type":"content_block_stop","index":1 }"#, false),
            (r#"{"type":"content_block_stop","index":01}"#, false),
            (
                r#"{"type":"content_block_stop","index":1,"error":null}"#,
                false,
            ),
        ];
        let mut by_hand = 0;
        for (data, hand) in cases {
            let mut fast = started();
            let read = fast.as_sent(data);
            assert_eq!(read.is_some(), hand, "{data}");
            let read = match read {
                Some(read) => {
                    by_hand += 1;
                    read
                }
                None => match fast.in_place(data) {
                    Some(read) => read,
                    None => {
                        let Ok(value) = serde_json::from_str(data) else {
                            continue;
                        };
                        fast.push("event", value)
                    }
                },
            };
            let mut general = started();
            let expected = match serde_json::from_str(data) {
                Ok(value) => general.push("event", value),
                Err(error) => Err(WireError::NotJson(error)),
            };
            assert_eq!(format!("{read:?}"), format!("{expected:?}"), "{data}");
            assert_eq!(finished(fast), finished(general), "{data}");
        }
        assert_eq!(by_hand, 12);
    }

    #[test]
    fn an_event_read_in_place_reads_as_the_general_path_reads_it() {
        let cases = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel\"lo\n"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 1}"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"},"extra":[1]}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": \"x\\ny\\\\u00e9\/\"}"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"not here"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":null}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta"}}"#,
            r#"{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"error":null}"#,
            // Each of these reads otherwise, or fails, on the general path alone.
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":5}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": \"\u00e9\ud83e\udd80\"}"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\ud83e"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"error":{"message":"no"}}"#,
            r#"{"type":"content_block_delta","index":0,"index":1,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":1.0,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}"#,
            r#"{"type":"content_block_delta","index":0}"#,
            r#"{"type":"ping"}"#,
            r#"["content_block_delta",0,{"type":"text_delta","text":"x"}]"#,
            // A block's end: read in place, with or without a delta member, and an unknown
            // index said to be out of order.
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"content_block_stop","index":1,"delta":{"type":"text_delta"}}"#,
            r#"{"type":"content_block_stop","index":9}"#,
            r#"{"type":"content_block_stop","index":1,"delta":5}"#,
            r#"{"type":"content_block_stop","index":-1}"#,
            r#"{"type":"content_block_stop","index":1,"error":true}"#,
            // A block's start: read in place when its block is an object.
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"u","name":"m","input":{}}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":null}"#,
            r#"{"type":"content_block_start","index":2}"#,
            r#"{"type":"content_block_start","index":2,"content_block":[1]}"#,
        ];
        let mut in_place = 0;
        for data in cases {
            let mut fast = started();
            let Some(read) = fast.in_place(data) else {
                continue;
            };
            in_place += 1;
            let mut general = started();
            let expected = general.push("event", serde_json::from_str(data).unwrap());
            assert_eq!(format!("{read:?}"), format!("{expected:?}"), "{data}");
            assert_eq!(finished(fast), finished(general), "{data}");
        }
        // Eight deltas, three ends and two starts are read in place; the rest are left to the
        // general path.
        assert_eq!(in_place, 13);
    }
}

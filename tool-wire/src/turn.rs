//! One model response as read ([`ModelTurn`]): its text, its calls, itself as the conversation
//! keeps it, and why a response could not be read ([`WireError`]).

use std::collections::HashSet;

use serde_json::Value;

/// The most calls one model turn may have, streamed or not: past them, the turn is
/// [`WireError::TooMany`].
pub const MAX_CALLS: usize = 10_000;

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
    /// The searches the provider's own tool search ran in the turn (Anthropic's tool search
    /// tool, OpenAI Responses' `tool_search`), each with the tools it found, in order.
    pub searches: Vec<ToolSearch>,
    /// Per call: whether the provider gave its id (Gemini's may be missing).
    pub(crate) provider_ids: Vec<bool>,
}

/// One search of a provider's own tool search, as its response carries it: what the model
/// asked and the tools it found (each a deferred tool of the request, by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolSearch {
    /// The query (a regular expression for Anthropic's regex variant); the search's input as
    /// JSON when it has no `query` or `pattern`.
    pub query: String,
    /// The tools found, in order.
    pub tools: Vec<String>,
}

impl ToolSearch {
    /// The query of a search whose input (`arguments`) is `input`.
    pub(crate) fn query_of(input: Option<&Value>) -> String {
        match input {
            Some(input) => ["query", "pattern"]
                .iter()
                .find_map(|key| input.get(key).and_then(Value::as_str))
                .map_or_else(|| input.to_string(), str::to_owned),
            None => String::new(),
        }
    }
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
    pub(crate) fn openai_chat(usage: &Value) -> Option<Usage> {
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
    pub(crate) fn openai_responses(usage: &Value) -> Option<Usage> {
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
    pub(crate) fn anthropic(usage: &Value) -> Option<Usage> {
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
    pub(crate) fn gemini(usage: &Value) -> Option<Usage> {
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
    /// ([`MAX_CALLS`], [`MAX_PIECES`](crate::MAX_PIECES)).
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
    pub(crate) fn new(message: Vec<Value>, stop_reason: Option<&Value>) -> Self {
        ModelTurn {
            text: String::new(),
            calls: Vec::new(),
            message,
            stop_reason: stop_reason.and_then(Value::as_str).map(str::to_owned),
            usage: None,
            response_id: None,
            response_model: None,
            searches: Vec::new(),
            provider_ids: Vec::new(),
        }
    }

    /// The response's id and model, read from `response`'s members `id` and `model`.
    pub(crate) fn identify(&mut self, response: &Value, id: &str, model: &str) {
        let text = |key| response.get(key).and_then(Value::as_str).map(str::to_owned);
        self.response_id = text(id);
        self.response_model = text(model);
    }

    pub(crate) fn push_text(&mut self, text: &str) {
        self.text.push_str(text);
    }

    pub(crate) fn push_call(
        &mut self,
        id: Option<&str>,
        name: &str,
        args: String,
    ) -> Result<(), WireError> {
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

impl ModelTurn {
    /// Gives each call whose id was generated (`gemini-call-<n>`) one no call of the provider's
    /// has: a provider's own id may look like a generated one, and two calls must never share
    /// an id, or the second would be refused as reused.
    pub(crate) fn settle_generated_ids(&mut self) {
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

//! Request bodies, per provider: the model, the conversation and the tools' definitions.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tool_wire::Provider;

/// What goes into a request besides the conversation.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct RequestOptions<'a> {
    /// The model (Gemini's goes in the URL instead).
    pub model: &'a str,
    /// The tools' definitions in the provider's dialect, a JSON array
    /// ([`ToolRegistry::definitions_json`](tool_runtime::ToolRegistry::definitions_json)); an
    /// empty array sends none.
    pub tools: &'a RawValue,
    /// Ask for a streamed response.
    pub stream: bool,
    /// The most tokens the model may write (Anthropic requires it; the others are sent none).
    pub max_tokens: u32,
}

/// The request body that sends `messages` (the conversation, in the provider's shapes) to
/// `provider`, as JSON bytes. The definitions are copied in as they are, not re-encoded.
///
/// ```
/// use serde_json::json;
/// use serde_json::value::RawValue;
/// use tool_agent::request::{RequestOptions, body, user_message};
/// use tool_wire::Provider;
///
/// let tools = RawValue::from_string("[]".to_owned()).unwrap();
/// let options = RequestOptions::new("claude-test", &tools);
/// let messages = [user_message(Provider::Anthropic, "Hello")];
/// let body: serde_json::Value =
///     serde_json::from_slice(&body(Provider::Anthropic, &options, messages.iter())).unwrap();
/// assert_eq!(
///     body,
///     json!({
///         "model": "claude-test",
///         "max_tokens": 8192,
///         "messages": [{"role": "user", "content": "Hello"}]
///     })
/// );
/// ```
pub fn body<'m>(
    provider: Provider,
    options: &RequestOptions<'_>,
    messages: impl Iterator<Item = &'m Value> + Clone,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    let mut serializer = serde_json::Serializer::new(&mut out);
    write(provider, options, Messages(messages), &mut serializer).expect("a request serializes");
    out
}

impl<'a> RequestOptions<'a> {
    /// Options for `model` with `tools`, not streamed, at most 8192 tokens.
    pub fn new(model: &'a str, tools: &'a RawValue) -> Self {
        RequestOptions {
            model,
            tools,
            stream: false,
            max_tokens: 8192,
        }
    }
}

/// A user's message, in the provider's shape.
pub fn user_message(provider: Provider, text: &str) -> Value {
    match provider {
        Provider::Gemini => json!({"role": "user", "parts": [{"text": text}]}),
        _ => json!({"role": "user", "content": text}),
    }
}

struct Messages<I>(I);

impl<'m, I: Iterator<Item = &'m Value> + Clone> Serialize for Messages<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.clone())
    }
}

#[derive(Serialize)]
struct GeminiTools<'a> {
    #[serde(rename = "functionDeclarations")]
    function_declarations: &'a RawValue,
}

fn write<'m, S: Serializer>(
    provider: Provider,
    options: &RequestOptions<'_>,
    messages: Messages<impl Iterator<Item = &'m Value> + Clone>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let tools = (options.tools.get().trim() != "[]").then_some(options.tools);
    let mut map = serializer.serialize_map(None)?;
    if provider != Provider::Gemini {
        map.serialize_entry("model", options.model)?;
    }
    if provider == Provider::Anthropic {
        map.serialize_entry("max_tokens", &options.max_tokens)?;
    }
    let key = match provider {
        Provider::OpenAiResponses => "input",
        Provider::Gemini => "contents",
        _ => "messages",
    };
    map.serialize_entry(key, &messages)?;
    if let Some(tools) = tools {
        if provider == Provider::Gemini {
            map.serialize_entry(
                "tools",
                &[GeminiTools {
                    function_declarations: tools,
                }],
            )?;
        } else {
            map.serialize_entry("tools", tools)?;
        }
    }
    // Gemini streams by its URL (`:streamGenerateContent?alt=sse`), the others by a flag.
    if options.stream && provider != Provider::Gemini {
        map.serialize_entry("stream", &true)?;
    }
    // Chat Completions reports a stream's usage only when asked, in a last chunk.
    if options.stream && provider == Provider::OpenAiChat {
        map.serialize_entry(
            "stream_options",
            &serde_json::json!({"include_usage": true}),
        )?;
    }
    map.end()
}

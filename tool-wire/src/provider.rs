//! The providers whose wire formats are read and written here.

use std::fmt;

use tool_runtime::Dialect;

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
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

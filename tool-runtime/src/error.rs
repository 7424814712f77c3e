//! Errors: the one tools return to the model, and the one hosts handle when a plugin cannot
//! load (a session's is `tool-session`'s).

use std::borrow::Cow;

/// An error a tool returns to the model. Its `Display` is the message; the model sees
/// `Error: <message>`.
///
/// ```
/// # use tool_runtime::{IntoToolOutput, ToolError};
/// let result: Result<String, ToolError> = Err(ToolError::new("no such file"));
/// assert_eq!(result.into_tool_output().text, "Error: no such file");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: Cow<'static, str>,
}

impl ToolError {
    /// An error with this message (without the `Error: ` prefix, which the runtime adds).
    pub fn new(message: impl Into<Cow<'static, str>>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message, without the `Error: ` prefix.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&'static str> for ToolError {
    fn from(message: &'static str) -> Self {
        ToolError::new(message)
    }
}

/// Why a plugin could not be loaded into a [`Ctx`](crate::Ctx).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The plugin injects a host service the host did not provide.
    #[error(
        "plugin `{plugin}` needs the host service `{service}`, which this host does not provide"
    )]
    MissingService {
        /// The plugin's name.
        plugin: &'static str,
        /// The service's type name.
        service: &'static str,
    },
    /// The tool's schema cannot be sent to a model (a recursive argument type).
    #[error("tool `{tool}` cannot be loaded: {reason}")]
    Schema {
        /// The tool's name.
        tool: String,
        /// Why.
        reason: String,
    },
    /// A tool of this name is loaded already.
    #[error("a tool named `{name}` is already loaded, from {loaded}; {again} cannot load another")]
    DuplicateTool {
        /// The tool's name.
        name: String,
        /// Where the tool loaded first came from: `plugin `TYPE`` or `tool `TYPE``.
        loaded: String,
        /// Where the second came from.
        again: String,
    },
    /// A resource at this URI (or a template of this pattern) is loaded already.
    #[error("a resource at `{0}` is already loaded; another cannot be")]
    DuplicateResource(String),
    /// A prompt of this name is loaded already.
    #[error("a prompt named `{0}` is already loaded; another cannot be")]
    DuplicatePrompt(String),
    /// The tool cannot be expressed in a dialect the host requires
    /// ([`ToolRegistry::require_dialects`](crate::ToolRegistry::require_dialects)).
    #[error(transparent)]
    Dialect(#[from] tool_schema::DialectError),
}

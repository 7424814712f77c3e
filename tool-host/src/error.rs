//! What stops a command of the host: one error type, and the exit status each error means.

use std::io;
use std::process::ExitCode;

use tool_runtime::{DialectError, LoadError, SessionError};

use tool_todo::ListError;

/// Why a command of the host could not do its work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// Input the command cannot take: an unknown tool, arguments over the cap or not UTF-8.
    #[error("{0}")]
    Input(String),
    /// A plugin could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A definition cannot be rendered in the dialect asked for.
    #[error(transparent)]
    Dialect(#[from] DialectError),
    /// A session could not be opened, read or written.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The latest todo list of a session log cannot be read.
    #[error(transparent)]
    List(#[from] ListError),
    /// An MCP connection could not start, or ended with an error.
    #[cfg(feature = "mcp")]
    #[error("{0}")]
    Mcp(String),
    /// An agent loop stopped: the provider could not be reached or answered an error, or the
    /// model passed its turn limit.
    #[cfg(feature = "agent")]
    #[error(transparent)]
    Agent(#[from] tool_agent::AgentError),
    /// Writing the output, or another operating-system call, failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl HostError {
    /// The exit status: 1 for an agent loop the provider stopped, 2 for input the command
    /// cannot take (a missing API key or an unusable base URL too), 3 for everything else that
    /// stops it (a session that cannot be opened or read, above all), 4 for an agent run that
    /// reached one of its budgets, 5 for one paused for a person's decision.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            HostError::Input(_) => ExitCode::from(2),
            #[cfg(feature = "agent")]
            HostError::Agent(error) if error.is_usage() => ExitCode::from(2),
            #[cfg(feature = "agent")]
            HostError::Agent(error) if error.is_session() => ExitCode::from(3),
            #[cfg(feature = "agent")]
            HostError::Agent(error) if error.is_budget() => ExitCode::from(4),
            #[cfg(feature = "agent")]
            HostError::Agent(error) if error.is_paused() => ExitCode::from(5),
            #[cfg(feature = "agent")]
            HostError::Agent(_) => ExitCode::from(1),
            _ => ExitCode::from(3),
        }
    }

    /// Whether the error is a reader that closed the output pipe (`toolhost schema | head`),
    /// which wanted no more: the command ends quietly.
    pub fn is_closed_output(&self) -> bool {
        matches!(self, HostError::Io(error) if error.kind() == io::ErrorKind::BrokenPipe)
    }
}

#[cfg(feature = "mcp")]
impl From<tool_mcp::McpError> for HostError {
    fn from(error: tool_mcp::McpError) -> Self {
        use tool_mcp::McpError;
        match error {
            McpError::Input(text) => HostError::Input(text),
            McpError::Dialect(error) => HostError::Dialect(error),
            McpError::Session(error) => HostError::Session(error),
            McpError::List(error) => HostError::List(error),
            McpError::Protocol(text) | McpError::NotStarted(text) => HostError::Mcp(text),
            McpError::Io(error) => HostError::Io(error),
            // A kind of failure added later: its text.
            other => HostError::Mcp(other.to_string()),
        }
    }
}

impl From<serde_json::Error> for HostError {
    fn from(error: serde_json::Error) -> Self {
        HostError::Io(error.into())
    }
}

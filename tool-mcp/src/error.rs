//! Why an MCP server could not start, serve or stop.

use std::io;

use tool_runtime::{DialectError, SessionError};
use tool_todo::ListError;

/// Why an MCP server or one of its parts could not do its work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A setting the server cannot take: an address it may not serve, an unreadable tokens
    /// file, an issuer without keys.
    #[error("{0}")]
    Input(String),
    /// A definition cannot be said in MCP's dialect.
    #[error(transparent)]
    Dialect(#[from] DialectError),
    /// A session could not be opened, read or written.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The latest todo list of a session cannot be read.
    #[error(transparent)]
    List(#[from] ListError),
    /// A connection ended before it began: the client closed it, or sent something else,
    /// before `initialize` was done. Nothing was served.
    #[error("{0}")]
    NotStarted(String),
    /// A connection ended with an error; the HTTP server failed.
    #[error("{0}")]
    Protocol(String),
    /// An operating-system call failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<serde_json::Error> for McpError {
    fn from(error: serde_json::Error) -> Self {
        McpError::Io(error.into())
    }
}

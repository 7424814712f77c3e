//! The parts of `toolhost` other hosts and tests can link: the MCP server and the REPL.

pub mod mcp;
pub mod repl;

use std::path::{Path, PathBuf};

use tool_runtime::Session;
use tool_runtime::text::neutralize;
use tool_todo::Todo;

/// The latest todo list of a session log cannot be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "session log {}: line {line}: the todo list cannot be read: {}",
    path.display(),
    neutralize(&source.to_string())
)]
pub struct ListError {
    /// The log file.
    pub path: PathBuf,
    /// The 1-based line of the event.
    pub line: u64,
    /// What the deserializer said; the message shows it neutralized, as it may quote the log.
    pub source: serde_json::Error,
}

/// The current todo list of `session`, persisted at `path`: an error names the file and line,
/// and what it quotes from the log cannot drive a terminal.
pub fn current_todos(session: &Session, path: &Path) -> Result<Option<Vec<Todo>>, ListError> {
    tool_todo::current(session).map_err(|source| ListError {
        path: path.to_path_buf(),
        line: session
            .latest(tool_todo::EVENT_KIND)
            .map_or(0, |event| event.seq + 1),
        source,
    })
}

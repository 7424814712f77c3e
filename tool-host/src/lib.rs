//! `toolhost` as a library: a [`Host`] serves any `#[tool]` plugins with the command line of
//! `toolhost` (`repl`, `call`, `replay`, `schema`, `sizes`, `mcp`), and its parts — the MCP
//! server, the REPL — serve hosts of their own.
//!
//! ```no_run
//! use tool_host::Host;
//!
//! fn main() -> std::process::ExitCode {
//!     Host::new("toolhost").plugin::<tool_todo::TodoWrite>().main()
//! }
//! ```
//!
//! The runtime, and so every host, is for Unix: session logs rely on Unix file semantics
//! (`O_NOFOLLOW`, `O_EXCL`, positioned reads and writes, file modes).

/// Writes one line to standard error, neutralized (a path or a name can hold escape sequences),
/// and never panics: a standard error that cannot be written (a full disk, a closed pipe) must
/// not turn a committed call into a crash.
macro_rules! note {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let text = ::std::format!($($arg)*);
        let _ = ::std::writeln!(
            ::std::io::stderr(),
            "{}",
            ::tool_runtime::text::neutralize(&text)
        );
    }};
}
pub(crate) use note;

mod cli;
mod commands;
mod error;
mod host;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod repl;
mod store;
#[cfg(feature = "otel")]
pub mod telemetry;
#[cfg(feature = "toolsets")]
pub mod toolsets;

pub use error::HostError;

/// The event that records who a session belongs to (`{"issuer": …, "subject": …}`: the token
/// that began it over an HTTP endpoint that checks its callers); `sessions list --owner` reads
/// it.
pub const OWNER_EVENT: &str = "session/owner";

/// Who a session belongs to: the data of its [`OWNER_EVENT`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Owner {
    /// The issuer of the token that began the session.
    pub issuer: String,
    /// Its subject.
    pub subject: String,
}

impl Owner {
    /// Whether this is the owner `subject` names (of `issuer`, when one is given).
    pub fn is(&self, subject: &str, issuer: Option<&str>) -> bool {
        self.subject == subject && issuer.is_none_or(|issuer| self.issuer == issuer)
    }
}
pub use host::Host;

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

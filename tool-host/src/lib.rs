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
//!
//! # The room
//!
//! The top: it uses every other crate (MCP through `tool-mcp`, the agent through `tool-agent`,
//! PostgreSQL through `tool-session-pg`, each behind a feature) and adds the command line, the
//! REPL and telemetry. Nothing depends on it but binaries; a host that needs only MCP can use
//! `tool-mcp` without it.

// One line to standard error, neutralized, never a panic.
pub(crate) use tool_runtime::text::note;

mod cli;
mod commands;
mod error;
mod host;
/// MCP both ways: the `tool-mcp` crate.
#[cfg(feature = "mcp")]
pub use tool_mcp as mcp;
pub mod repl;
mod store;
#[cfg(feature = "otel")]
pub mod telemetry;
/// Other MCP servers' tools in an agent loop: `tool-mcp`'s toolsets.
#[cfg(feature = "toolsets")]
pub use tool_mcp::toolsets;

pub use error::HostError;

pub use host::Host;
pub use tool_runtime::{OWNER_EVENT, Owner};

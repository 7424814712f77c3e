//! MCP in both directions, on the `rmcp` crate: a host's tools served over stdio and Streamable
//! HTTP ([`McpServer`]), and other MCP servers' tools as toolsets of an agent (`toolsets`).
//!
//! # Serving over stdio
//!
//! One client connection is one agent session, persisted in a JSON Lines file, so its lists can
//! be replayed with `toolhost replay`. `tools/list` answers with each tool's MCP definition (the
//! bytes of `toolhost schema --dialect mcp`); `tools/call` runs the call through the registry and
//! answers with the exact model-facing text, `isError` set from the result. A call the runtime
//! refuses (an unknown tool, wrong or oversized arguments) is a tool result with `isError: true`,
//! which the model sees; the protocol's own errors (malformed JSON-RPC, unknown methods) are
//! JSON-RPC errors. Standard output is the protocol: everything else goes to standard error.
//!
//! The connection runs on this crate's [`LineTransport`] under rmcp's service: every request with
//! an id gets an answer, whatever its bytes (see [`transport`] for what is skipped, and why), and
//! a call's arguments reach the runtime as the exact text the client sent, so they are checked
//! as `toolhost call` checks them.
//!
//! Calls on one connection run one at a time, in the order they arrived: a client may send many
//! without waiting, and their events land in the session in the order sent, so the last list
//! sent is the current one. (rmcp runs each request in a task of its own; each call waits for
//! every call that arrived before it to finish.)
//!
//! Over HTTP, see [`http`]; who may call, [`auth`].
//!
//! # The room
//!
//! It uses `tool-runtime` (the tools, their sessions), `tool-todo` (a session's list is checked
//! as it opens), `tool-session-pg` with `postgres`, and rmcp, tokio and, with `http`, axum and
//! hyper. It builds no REPL, no command line and no provider client: a host that only serves
//! MCP depends on this crate and `tool-runtime` (see the `tool-host` crate for a whole
//! command line).
//!
//! Features: `http` (Streamable HTTP and its OAuth resource server), `toolsets` (the client),
//! `postgres` (sessions in PostgreSQL behind HTTP), `otel` (trace context in `_meta`).

mod approval;
mod asking;
mod catalog;
mod error;
mod forward;
#[cfg(feature = "http")]
mod front;
mod lock;
mod logging;
mod order;
#[cfg(feature = "otel")]
mod otel;
mod rounds;
mod server;
#[cfg(feature = "http")]
mod sessions;
mod tasks;

#[cfg(feature = "http")]
pub mod auth;
#[cfg(feature = "toolsets")]
mod dpop;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "toolsets")]
pub mod oauth;
#[cfg(feature = "toolsets")]
pub mod toolsets;
pub mod transport;

pub use error::McpError;
pub use server::McpServer;
pub use transport::LineTransport;

/// The largest `--max-args-bytes` the transport carries: 256 MiB. A line may be
/// [`transport::MAX_LINE_BYTES_OVER_ARGS`] longer, and is held in memory whole.
pub const MAX_ARGS_BYTES_CEILING: usize = 256 << 20;

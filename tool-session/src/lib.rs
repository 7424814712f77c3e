//! Sessions: an agent's append-only event log, its replayed state, and its event stream — the
//! session room of the `#[tool]` framework.
//!
//! A [`Session`] owns a [`Log`] (where events are kept) and keeps, for each event kind, the most
//! recent event, so replay helpers such as `tool_todo::current` answer in O(1) however long the
//! log is, and a session's memory is bounded by its kinds, not its length. Appends are totally
//! ordered: each takes the session's lock, gets the next seq, is written to the log, and is
//! published to subscribers before the lock is released, so every subscriber sees events in seq
//! order. Under a grouped-fsync policy the append then waits, outside the lock, until its event is
//! durable, so several appends share one fsync.
//!
//! Logs: [`MemoryLog`] for tests, [`JsonlLog`] (one JSON Lines file per session, the embedded
//! default) through a [`SessionDir`], and any store that implements [`Log`] (the
//! `tool-session-pg` crate keeps sessions in PostgreSQL). [`SessionHub`] gathers the sessions of
//! a host so it can subscribe to all of them at once.
//!
//! ```
//! use tool_session::Session;
//!
//! let session = Session::in_memory();
//! let seq = session.append("note/add", &"buy milk").unwrap();
//! assert_eq!(seq, 1, "seq 0 is the log's header");
//! let latest = session.latest("note/add").unwrap();
//! assert_eq!(latest.data::<String>().unwrap(), "buy milk");
//! ```
//!
//! # The room
//!
//! It uses `tool-text` (what a message shows of a path or a line), serde, tokio's channels and
//! the C library's file calls; nothing of the framework's above it: no tool, schema or
//! transport. Tools reach it through `tool-runtime`, which re-exports it as
//! `tool_runtime::session` and names [`Session`] and [`Event`] at its root.

#[cfg(not(unix))]
compile_error!(
    "tool-session runs on Unix: session logs rely on Unix file semantics (O_NOFOLLOW, file modes, positioned reads)"
);

mod blocking;
mod dir;
mod encodable;
mod error;
mod event;
mod follow;
mod hub;
mod jsonl;
mod log;
mod memory;
mod order;
mod publish;
mod session;
mod subscription;
mod sync;

pub use blocking::blocking;
pub use dir::SessionDir;
pub use error::SessionError;
pub use event::Event;
pub use hub::{HubSubscription, SessionHub};
pub use jsonl::{Durability, HEADER as JSONL_HEADER, JsonlLog, MAX_LINE_BYTES, OpenMode, TornTail};
pub use log::{Ack, Log, Recovered};
pub use memory::MemoryLog;
pub use order::{Gate, Turn};
pub use publish::HubEvent;
pub use session::Session;
pub use subscription::Subscription;
pub use sync::GroupSync;

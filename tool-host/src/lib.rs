//! The parts of `toolhost` other hosts and tests can link: the MCP server and the REPL.

pub mod mcp;
pub mod repl;

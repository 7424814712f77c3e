//! The parts of `toolhost` other hosts and tests can link: the MCP server.

pub mod mcp;

//! A model parameter without a doc comment is a warning on it (an error here, denied), unless the
//! tool says `allow_undocumented`; context parameters need none.
#![deny(deprecated)]

use tool_runtime::{Agent, tool};

/// Searches.
#[tool]
fn search(
    agent: Option<Agent>,
    /// What to look for.
    query: String,
    limit: Option<u32>,
) -> String {
    let _ = (agent, limit);
    query
}

/// Searches, its parameters' names said enough.
#[tool(allow_undocumented)]
fn find(query: String) -> String {
    query
}

fn main() {}

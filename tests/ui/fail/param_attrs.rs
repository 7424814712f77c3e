//! Attributes a parameter does not take: each is reported on its key, all at once.
use tool_runtime::{Agent, tool};

/// Searches.
#[tool]
fn search(
    #[serde(rename = "who")] agent: Agent,
    #[serde(alias = "q", rename = "query")] text: String,
    #[schemars(title = "Query", length(max = 5))] more: String,
    #[serde(rename = "query")] again: String,
) -> String {
    let _ = (agent, text, more, again);
    String::new()
}

fn main() {}

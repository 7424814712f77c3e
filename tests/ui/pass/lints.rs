//! Generated code stays quiet under strict lints.
#![deny(missing_docs, unused_qualifications, unused_results, unreachable_pub, warnings)]

use tool_runtime::{Agent, ToolError, tool};

/// Checks a word.
#[tool]
pub fn check_word(
    agent: Option<Agent>,
    /// The word.
    word: String,
) -> Result<String, ToolError> {
    let _ = agent;
    if word.is_empty() {
        return Err(ToolError::new("empty"));
    }
    Ok(word)
}

fn main() {}

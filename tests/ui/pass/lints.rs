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

mod private {
    use tool_runtime::tool;

    /// A tool private to its module.
    #[tool]
    fn shout(
        /// The word.
        word: String,
    ) -> String {
        word.to_uppercase()
    }

    /// The private tool, used.
    pub(crate) fn plugin() -> Shout {
        Shout
    }
}

fn main() {
    /// A tool declared where it is used.
    #[tool]
    fn whisper(
        /// The word.
        word: String,
    ) -> String {
        word.to_lowercase()
    }

    let _ = (private::plugin(), Whisper, CheckWord);
}

//! `blocking` is for synchronous functions that block.
use tool_runtime::tool;

/// Waits.
#[tool(blocking)]
async fn wait(
    /// How long.
    ms: u64,
) -> String {
    ms.to_string()
}

fn main() {}

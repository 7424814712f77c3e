use tool_runtime::tool;

/// Counts.
#[tool]
fn count() -> u32 {
    3
}

fn main() {}

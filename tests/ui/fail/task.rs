use tool_runtime::{Detach, tool};

/// Not a kind of support.
#[tool(task = "sometimes")]
async fn vague() -> String {
    String::new()
}

/// Not a string.
#[tool(task = true)]
async fn bare() -> String {
    String::new()
}

/// Detaches, but never runs as a task.
#[tool]
async fn loose(detach: Detach) -> String {
    detach.now();
    String::new()
}

fn main() {}

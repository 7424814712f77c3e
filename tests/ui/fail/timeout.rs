use tool_runtime::tool;

/// Runs on its caller's thread.
#[tool(timeout = "30s")]
fn plain() -> String {
    String::new()
}

/// Not a duration.
#[tool(timeout = "soon")]
async fn vague() -> String {
    String::new()
}

/// Zero.
#[tool(timeout = "0s")]
async fn instant() -> String {
    String::new()
}

/// Not a string.
#[tool(timeout = 30)]
async fn bare() -> String {
    String::new()
}

fn main() {}

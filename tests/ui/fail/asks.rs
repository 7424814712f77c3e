use tool_runtime::tool;

/// Asks no one the macro knows.
#[tool(asks = "oracle")]
async fn seer() -> String {
    String::new()
}

/// Asks the same twice.
#[tool(asks = "model model")]
async fn echo() -> String {
    String::new()
}

/// Names nothing.
#[tool(asks = "")]
async fn silent() -> String {
    String::new()
}

fn main() {}

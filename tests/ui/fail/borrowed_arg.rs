use tool_runtime::tool;

/// Shouts.
#[tool]
fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}

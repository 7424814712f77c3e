use tool_runtime::tool;

/// Adds two numbers.
#[tool]
fn add((a, b): (u8, u8)) -> String {
    (a + b).to_string()
}

fn main() {}

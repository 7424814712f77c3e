use tool_runtime::tool;

/// Says hi.
#[tool(name = "say hi!")]
fn hi() -> &'static str {
    "hi"
}

fn main() {}

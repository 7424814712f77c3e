use tool_runtime::tool;

/// Says hi.
#[tool(name = "hi", name = "hello")]
fn hi() -> &'static str {
    "hi"
}

fn main() {}

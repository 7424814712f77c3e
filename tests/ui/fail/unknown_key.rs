use tool_runtime::tool;

/// Says hi.
#[tool(nme = "hi")]
fn hi() -> &'static str {
    "hi"
}

fn main() {}

use tool_runtime::tool;

/// Says hi.
#[tool]
const fn hi() -> &'static str {
    "hi"
}

fn main() {}

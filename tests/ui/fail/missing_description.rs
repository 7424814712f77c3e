use tool_runtime::tool;

#[tool]
fn hi() -> &'static str {
    "hi"
}

fn main() {}

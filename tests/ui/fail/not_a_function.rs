use tool_runtime::tool;

/// Not a function.
#[tool]
struct Weather {
    city: String,
}

fn main() {}

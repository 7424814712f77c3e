use tool_runtime::tool;

/// No scope at all.
#[tool(scopes = "")]
fn empty() -> &'static str {
    "none"
}

/// Two spaces between.
#[tool(scopes = "todos:read  todos:write")]
fn spaced() -> &'static str {
    "spaced"
}

/// A character OAuth does not allow in a scope.
#[tool(scopes = "todos:wr\"ite")]
fn quoted() -> &'static str {
    "quoted"
}

/// The same scope twice.
#[tool(scopes = "todos:write todos:write")]
fn twice() -> &'static str {
    "twice"
}

/// Not a string.
#[tool(scopes = 5)]
fn number() -> &'static str {
    "number"
}

fn main() {}

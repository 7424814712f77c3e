use tool_runtime::tool;

/// A count, neither text nor data: it has no `Serialize` or `JsonSchema`.
pub struct Tally(pub u32);

/// Counts.
#[tool]
fn count() -> Tally {
    Tally(3)
}

fn main() {}

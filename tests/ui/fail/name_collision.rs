use tool_runtime::tool;

/// What to bump, and by how much.
#[derive(Debug)]
pub struct Bump {
    pub by: u32,
}

/// Bumps the counter.
#[tool]
pub fn bump(
    /// By how much.
    by: u32,
) -> String {
    Bump { by }.by.to_string()
}

fn main() {}

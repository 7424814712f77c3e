//! Annotation keys take what they say: a title is a string, a hint a flag or a `bool`.
use tool_runtime::tool;

/// Deletes a file.
#[tool(title = 5, destructive = "yes", idempotent, idempotent)]
fn delete_file(
    /// The file's path.
    path: String,
) -> String {
    path
}

fn main() {}

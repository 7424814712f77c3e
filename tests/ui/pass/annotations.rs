//! A title and the four behaviour hints, as flags or with values.
use tool_runtime::{Annotations, Tool, tool};

/// Deletes a file.
#[tool(title = "Delete a file", destructive, idempotent = true, read_only = false, open_world = false)]
fn delete_file(
    /// The file's path.
    path: String,
) -> String {
    path
}

fn main() {
    assert_eq!(
        DeleteFile.definition().annotations(),
        &Annotations::new()
            .with_title("Delete a file")
            .with_destructive(true)
            .with_idempotent(true)
            .with_read_only(false)
            .with_open_world(false)
    );
}

use tool_runtime::tool;

struct Notes;

impl Notes {
    /// Adds a note.
    #[tool]
    fn add(&self, text: String) -> String {
        text
    }
}

fn main() {}

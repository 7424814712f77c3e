use tool_runtime::{Tool, tool};

/// For people reading the code; the model sees the file's text.
#[tool(description = include_str!("description.txt"))]
fn described() -> &'static str {
    "ok"
}

/// Literal descriptions work too.
#[tool(name = "literal-name", description = "  spaced  ")]
fn literal() -> &'static str {
    "ok"
}

///  Two spaces: one is kept.
///
/// `code`, and an empty line above.
#[tool]
fn doc_lines() -> &'static str {
    "ok"
}

fn main() {
    assert_eq!(
        Described.definition().description(),
        "Reads the description from a file.\n\nSecond paragraph, kept as it is.  "
    );
    assert_eq!(Literal.definition().description(), "  spaced  ");
    assert_eq!(Literal.definition().name(), "literal-name");
    assert_eq!(
        DocLines.definition().description(),
        " Two spaces: one is kept.\n\n`code`, and an empty line above."
    );
}

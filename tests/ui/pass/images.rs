//! An `Image`, or a `Result` of one, is a text result that carries an image.
use tool_runtime::{Image, Tool, tool};

/// Takes a screenshot.
#[tool]
fn screenshot() -> Image {
    Image::png(vec![1, 2, 3])
}

/// Loads an icon.
#[tool]
fn icon(
    /// The icon's name.
    name: String,
) -> Result<Image, String> {
    if name.is_empty() {
        return Err("no name".into());
    }
    Ok(Image::new("image/svg+xml", b"<svg/>".to_vec()))
}

fn main() {
    // Images are not data: no output schema.
    assert!(Screenshot.definition().output_schema().is_none());
    assert!(Icon.definition().output_schema().is_none());
}

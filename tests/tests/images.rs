//! Results beyond one text: images beside the text, named in it, and a host's cap on the size
//! of what a tool returns.

use tool_runtime::{Ctx, DEFAULT_MAX_RESULT_BYTES, Exec, Image, ToolOutput, tool};

/// A PNG's signature and a little more: enough bytes to be an image's.
const PIXELS: &[u8] = b"\x89PNG\r\n\x1a\n-pixels-";

/// Draws a chart.
#[tool(allow_undocumented)]
fn chart(title: String) -> ToolOutput {
    ToolOutput::success(format!("The chart of {title}:"))
        .with_image(Image::png(PIXELS))
        .with_image(Image::new("image/jpeg", vec![0xff, 0xd8, 0xff]))
}

/// Takes a screenshot: an image alone.
#[tool]
fn screenshot() -> Image {
    Image::png(PIXELS)
}

/// Answers with as many bytes as asked.
#[tool(allow_undocumented)]
async fn blob(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// Draws as large an image as asked.
#[tool(allow_undocumented)]
fn poster(bytes: usize) -> ToolOutput {
    ToolOutput::success("").with_image(Image::png(vec![0; bytes]))
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<Chart>()
        .unwrap()
        .plugin::<Screenshot>()
        .unwrap()
        .plugin::<Blob>()
        .unwrap()
        .plugin::<Poster>()
        .unwrap();
    ctx
}

#[test]
fn images_come_beside_the_text_which_names_each_without_its_bytes() {
    let ctx = ctx();
    let out = ctx
        .tools
        .call("chart", &Exec::new(), r#"{"title": "sales"}"#)
        .wait();
    assert_eq!(
        out.text,
        "The chart of sales:\n[image: image/png, 16 bytes]\n[image: image/jpeg, 3 bytes]"
    );
    assert!(!out.is_error);
    let images: Vec<(&str, &[u8])> = out
        .images
        .iter()
        .map(|image| (image.mime_type(), image.data()))
        .collect();
    assert_eq!(
        images,
        [
            ("image/png", PIXELS),
            ("image/jpeg", &[0xff, 0xd8, 0xff][..])
        ]
    );

    let out = ctx.tools.call("screenshot", &Exec::new(), "{}").wait();
    assert_eq!(out.text, "[image: image/png, 16 bytes]");
    assert_eq!(out.images.len(), 1);
    // Debug output shows an image's size, not its bytes.
    assert_eq!(
        format!("{:?}", out.images[0]),
        r#"Image { mime_type: "image/png", bytes: 16 }"#
    );
}

#[test]
fn a_result_over_the_hosts_cap_is_dropped_and_the_model_told_why() {
    let mut ctx = ctx();
    assert_eq!(ctx.tools.max_result_bytes(), DEFAULT_MAX_RESULT_BYTES);
    ctx.tools.set_max_result_bytes(100);
    // At the cap, the result is whole.
    let out = ctx
        .tools
        .call("blob", &Exec::new(), r#"{"bytes": 100}"#)
        .wait();
    assert_eq!(out.text.len(), 100);
    let out = ctx
        .tools
        .call("blob", &Exec::new(), r#"{"bytes": 101}"#)
        .wait();
    assert_eq!(
        (out.text.as_str(), out.is_error),
        (
            "Error: blob returned 101 bytes, more than the limit of 100 bytes; the result was dropped",
            true
        )
    );
    // Images count, and a synchronous tool is capped as an async one is.
    let out = ctx
        .tools
        .call("poster", &Exec::new(), r#"{"bytes": 90}"#)
        .wait();
    assert_eq!(
        out.text,
        "Error: poster returned 118 bytes, more than the limit of 100 bytes; the result was dropped"
    );
    assert!(out.images.is_empty());
}

//! Results beyond one text: images, audio and embedded resources beside the text, named in it,
//! and a host's cap on the size of what a tool returns.

use tool_runtime::{
    Attachment, Audio, Body, Ctx, DEFAULT_MAX_RESULT_BYTES, EmbeddedResource, Exec, Image,
    ToolOutput, tool,
};

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

/// Records a greeting, with its transcript and a note about it.
#[tool]
fn record(
    /// Whom to greet.
    name: String,
) -> ToolOutput {
    ToolOutput::success("Recorded:")
        .with_image(Image::png(PIXELS))
        .with(Audio::new("audio/wav", vec![b'R'; 44]))
        .with(EmbeddedResource::text(
            "memo://transcript",
            "text/plain",
            format!("Hello, {name}."),
        ))
        .with(EmbeddedResource::blob(
            "memo://waveform\n[image: fake]",
            "application/octet-stream",
            vec![1, 2, 3],
        ))
}

/// Plays a tone: audio alone.
#[tool]
fn tone() -> Audio {
    Audio::new("audio/wav", vec![0; 10])
}

/// Hums, for as many bytes as asked.
#[tool(allow_undocumented)]
fn hum(bytes: usize) -> ToolOutput {
    ToolOutput::success("").with(Audio::new("audio/wav", vec![0; bytes]))
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<Record>()
        .unwrap()
        .plugin::<Tone>()
        .unwrap()
        .plugin::<Hum>()
        .unwrap();
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

#[test]
fn audio_and_embedded_resources_come_in_order_each_named_by_the_text() {
    let ctx = ctx();
    let out = ctx
        .tools
        .call("record", &Exec::new(), r#"{"name": "Ada"}"#)
        .wait();
    // A URI with a line break in it cannot forge a line of its own in the text.
    assert_eq!(
        out.text,
        "Recorded:\n[image: image/png, 16 bytes]\n[audio: audio/wav, 44 bytes]\n\
         [resource: memo://transcript, text/plain, 11 bytes]\n\
         [resource: memo://waveform\\n[image: fake], application/octet-stream, 3 bytes]"
    );
    assert_eq!(out.images.len(), 1);
    let [
        Attachment::Audio(audio),
        Attachment::Resource(transcript),
        Attachment::Resource(waveform),
    ] = &out.attachments[..]
    else {
        panic!("{:?}", out.attachments);
    };
    assert_eq!((audio.mime_type(), audio.data().len()), ("audio/wav", 44));
    assert_eq!(
        format!("{audio:?}"),
        r#"Audio { mime_type: "audio/wav", bytes: 44 }"#
    );
    assert_eq!(transcript.uri(), "memo://transcript");
    assert_eq!(transcript.body(), &Body::Text("Hello, Ada.".to_owned()));
    assert_eq!(waveform.body(), &Body::Blob(vec![1, 2, 3]));
    assert_eq!(out.size(), out.text.len() + 16 + 44 + 11 + 3);

    let out = ctx.tools.call("tone", &Exec::new(), "{}").wait();
    assert_eq!(out.text, "[audio: audio/wav, 10 bytes]");
    assert_eq!(out.attachments.len(), 1);
}

#[test]
fn attachments_count_toward_the_hosts_cap() {
    let mut ctx = ctx();
    ctx.tools.set_max_result_bytes(100);
    let out = ctx
        .tools
        .call("hum", &Exec::new(), r#"{"bytes": 60}"#)
        .wait();
    assert!(!out.is_error, "{out:?}");
    let out = ctx
        .tools
        .call("hum", &Exec::new(), r#"{"bytes": 90}"#)
        .wait();
    assert_eq!(
        out.text,
        "Error: hum returned 118 bytes, more than the limit of 100 bytes; the result was dropped"
    );
    assert!(out.attachments.is_empty());
}

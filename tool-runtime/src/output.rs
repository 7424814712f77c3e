//! What a model sees of one tool call.

use std::borrow::Cow;
use std::fmt;

/// The exact text a model sees as the result of one tool call, and whether it is an error.
///
/// Every failure the model should see is a `ToolOutput` value: unknown tools, malformed or
/// oversized arguments, a missing owning agent, a tool's own error and a panic inside a tool all
/// come back this way, never as a host-side error. Error texts start with `Error: `.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ToolOutput {
    /// The model-facing text, byte for byte.
    pub text: String,
    /// Whether the call failed. Providers have a flag for it (`is_error` in Anthropic's and MCP's
    /// results); others see it only in the text.
    pub is_error: bool,
    /// Whether `text` is data: the compact JSON of a value the tool returned (a struct, a
    /// list) rather than prose. Hosts with structured results (MCP's `structuredContent`) send
    /// it as a value, [`ToolOutput::data`]; the text is its one serialization, so returning data
    /// costs what writing it does. `false` for text results and errors.
    pub structured: bool,
    /// Images the tool returned beside its text (a screenshot, a chart). Hosts that carry
    /// images send them as such (MCP's `image` content); `text` names each one
    /// (`[image: image/png, 48213 bytes]`), so a provider that takes text alone is told what
    /// was returned and never gets raw bytes. A boxed slice, not a `Vec`: results are moved
    /// often and almost all carry none, so the field stays two words.
    pub images: Box<[Image]>,
    /// Audio and embedded resources the tool returned beside its text and images, in order.
    /// Like images, hosts that carry them send them as such (MCP's `audio` and `resource`
    /// content) and `text` names each one.
    pub attachments: Box<[Attachment]>,
}

impl ToolOutput {
    /// A successful result with `text` as it is.
    pub fn success(text: impl Into<String>) -> Self {
        ToolOutput {
            text: text.into(),
            is_error: false,
            structured: false,
            images: Box::default(),
            attachments: Box::default(),
        }
    }

    /// A successful result that is data: `value`, whose compact JSON (keys in the order they were
    /// written) is the text a model reads.
    ///
    /// ```
    /// # use tool_runtime::ToolOutput;
    /// let out = ToolOutput::structured(serde_json::json!({"city": "Oslo", "temp": 21}));
    /// assert_eq!(out.text, r#"{"city":"Oslo","temp":21}"#);
    /// assert_eq!(out.data().unwrap()["temp"], 21);
    /// ```
    pub fn structured(value: serde_json::Value) -> Self {
        ToolOutput {
            text: value.to_string(),
            is_error: false,
            structured: true,
            images: Box::default(),
            attachments: Box::default(),
        }
    }

    /// A failed result whose text is `Error: ` followed by `message`.
    ///
    /// ```
    /// # use tool_runtime::ToolOutput;
    /// let out = ToolOutput::error("disk full");
    /// assert_eq!(out.text, "Error: disk full");
    /// assert!(out.is_error);
    /// ```
    pub fn error(message: impl fmt::Display) -> Self {
        ToolOutput {
            text: format!("Error: {message}"),
            is_error: true,
            structured: false,
            images: Box::default(),
            attachments: Box::default(),
        }
    }
}

impl ToolOutput {
    /// The same result with `image` beside its text, and a line in the text that names it.
    ///
    /// ```
    /// # use tool_runtime::{Image, ToolOutput};
    /// let out = ToolOutput::success("The chart:").with_image(Image::new("image/png", vec![0; 1200]));
    /// assert_eq!(out.text, "The chart:\n[image: image/png, 1200 bytes]");
    /// assert_eq!(out.images[0].mime_type(), "image/png");
    /// ```
    #[must_use]
    pub fn with_image(mut self, image: Image) -> Self {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(&image.describe());
        let mut images = std::mem::take(&mut self.images).into_vec();
        images.push(image);
        self.images = images.into_boxed_slice();
        self
    }

    /// The same result with `attachment` (audio, an embedded resource) after what it carries,
    /// and a line in the text that names it.
    ///
    /// ```
    /// # use tool_runtime::{Audio, EmbeddedResource, ToolOutput};
    /// let out = ToolOutput::success("Recorded:")
    ///     .with(Audio::new("audio/wav", vec![0; 44]))
    ///     .with(EmbeddedResource::text("file:///notes.md", "text/markdown", "# Notes"));
    /// assert_eq!(
    ///     out.text,
    ///     "Recorded:\n[audio: audio/wav, 44 bytes]\n[resource: file:///notes.md, text/markdown, 7 bytes]"
    /// );
    /// assert_eq!(out.attachments.len(), 2);
    /// ```
    #[must_use]
    pub fn with(mut self, attachment: impl Into<Attachment>) -> Self {
        let attachment = attachment.into();
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(&attachment.describe());
        let mut attachments = std::mem::take(&mut self.attachments).into_vec();
        attachments.push(attachment);
        self.attachments = attachments.into_boxed_slice();
        self
    }

    /// The value a tool returned as data, read from its text; `None` for text results and
    /// errors. The text is compact JSON that serde_json wrote, so it reads back as the same
    /// value (floats included: the workspace's serde_json parses them exactly).
    pub fn data(&self) -> Option<serde_json::Value> {
        if self.structured {
            serde_json::from_str(&self.text).ok()
        } else {
            None
        }
    }

    /// The bytes the result carries: its text, its images and its attachments.
    pub fn size(&self) -> usize {
        self.text.len()
            + self
                .images
                .iter()
                .map(|image| image.data.len())
                .sum::<usize>()
            + self.attachments.iter().map(Attachment::len).sum::<usize>()
    }
}

/// What a result may carry beside its text and images: audio, or a resource embedded in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Attachment {
    /// Audio ([`Audio`]).
    Audio(Audio),
    /// A resource embedded in the result ([`EmbeddedResource`]).
    Resource(EmbeddedResource),
}

impl Attachment {
    /// How many bytes it carries.
    pub fn len(&self) -> usize {
        match self {
            Attachment::Audio(audio) => audio.data.len(),
            Attachment::Resource(resource) => resource.body.len(),
        }
    }

    /// Whether it carries no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How the text of a result names it.
    fn describe(&self) -> String {
        match self {
            Attachment::Audio(audio) => format!(
                "[audio: {}, {} bytes]",
                crate::text::neutralize(&audio.mime_type),
                audio.data.len()
            ),
            Attachment::Resource(resource) => format!(
                "[resource: {}, {}, {} bytes]",
                crate::text::neutralize(&resource.uri),
                crate::text::neutralize(&resource.mime_type),
                resource.body.len()
            ),
        }
    }
}

impl From<Audio> for Attachment {
    fn from(audio: Audio) -> Self {
        Attachment::Audio(audio)
    }
}

impl From<EmbeddedResource> for Attachment {
    fn from(resource: EmbeddedResource) -> Self {
        Attachment::Resource(resource)
    }
}

/// Audio a tool returns: its bytes, and their MIME type (`audio/wav`, `audio/mpeg`, …).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Audio {
    mime_type: String,
    data: Vec<u8>,
}

impl Audio {
    /// Audio of `mime_type` made of `data`.
    pub fn new(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Audio {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }

    /// The audio's MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The audio's bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

impl fmt::Debug for Audio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audio")
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// A resource a tool returns inside its result (MCP's embedded resource): what it is (its
/// URI), its MIME type, and its contents, text or bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EmbeddedResource {
    uri: String,
    mime_type: String,
    body: Body,
}

/// A resource's contents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Body {
    /// Text (UTF-8).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

impl Body {
    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        match self {
            Body::Text(text) => text.len(),
            Body::Blob(bytes) => bytes.len(),
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl EmbeddedResource {
    /// A text resource at `uri`.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: Body::Text(text.into()),
        }
    }

    /// A resource of bytes at `uri`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: Body::Blob(data.into()),
        }
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The resource's MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The resource's contents.
    pub fn body(&self) -> &Body {
        &self.body
    }
}

/// An image a tool returns: its bytes, and their MIME type (`image/png`, `image/jpeg`, …).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Image {
    mime_type: String,
    data: Vec<u8>,
}

impl Image {
    /// An image of `mime_type` made of `data`.
    pub fn new(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Self {
        Image {
            mime_type: mime_type.into(),
            data: data.into(),
        }
    }

    /// A PNG image.
    pub fn png(data: impl Into<Vec<u8>>) -> Self {
        Image::new("image/png", data)
    }

    /// The image's MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The image's bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// How the text of a result names the image.
    fn describe(&self) -> String {
        format!(
            "[image: {}, {} bytes]",
            crate::text::neutralize(&self.mime_type),
            self.data.len()
        )
    }
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Image")
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl IntoToolOutput for Image {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success("").with_image(self)
    }
}

impl IntoToolOutput for Audio {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success("").with(self)
    }
}

impl IntoToolOutput for EmbeddedResource {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success("").with(self)
    }
}

impl fmt::Display for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// What a `#[tool]` function may return: its value becomes the model-facing [`ToolOutput`].
///
/// Implemented for `String`, `&'static str`, `Cow<'static, str>` and `ToolOutput` (success texts
/// as they are), [`Image`], [`Audio`] and [`EmbeddedResource`] (each named by the text), `()`
/// ([`DONE`]), and for
/// `Result<T, E>` where `T` is one of those and `E: Display`; an `Err` becomes `Error: ` followed
/// by the error's `Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] function as text",
    label = "this return type has no model-facing text",
    note = "return `String`, `&'static str`, `ToolOutput`, or `Result<T, E>` with `T` one of those and `E: Display`"
)]
pub trait IntoToolOutput {
    /// Turns the value into the model-facing result.
    fn into_tool_output(self) -> ToolOutput;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> ToolOutput {
        self
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success(self)
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success(self)
    }
}

impl IntoToolOutput for Cow<'static, str> {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success(self)
    }
}

/// A tool that returns nothing (`()`, or no return type) did its work: the model reads
/// [`DONE`].
impl IntoToolOutput for () {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::success(DONE)
    }
}

/// What the model reads from a tool that returns nothing: `()`, `Result<(), E>` that is `Ok`, or
/// no return type at all.
///
/// ```
/// use tool_runtime::{Ctx, Exec, ToolError, tool};
///
/// /// Clears the cache.
/// #[tool]
/// fn clear(
///     /// Only entries older than this many seconds.
///     older_than: Option<u64>,
/// ) -> Result<(), ToolError> {
///     if older_than == Some(0) {
///         return Err(ToolError::new("older_than must be positive"));
///     }
///     Ok(())
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Clear>().unwrap();
/// let out = ctx.tools.call("clear", &Exec::new(), "{}").wait();
/// assert_eq!((out.text.as_str(), out.is_error), (tool_runtime::DONE, false));
/// let out = ctx.tools.call("clear", &Exec::new(), r#"{"older_than": 0}"#).wait();
/// assert_eq!(out.text, "Error: older_than must be positive");
/// ```
pub const DONE: &str = "Done.";

impl<T: IntoToolOutput, E: fmt::Display> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> ToolOutput {
        match self {
            Ok(value) => value.into_tool_output(),
            Err(error) => ToolOutput::error(error),
        }
    }
}

/// A value a `#[tool]` function returns as data: any type that serializes and describes itself.
/// Its schema is the tool's output schema; the value is the result, its compact JSON the text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] function",
    label = "this return type is neither text nor data",
    note = "return data as a type with `serde::Serialize` and `schemars::JsonSchema` (derive both), or text as `String`, `&'static str`, `Cow<'static, str>` or `ToolOutput`, each possibly in a `Result<_, E: Display>`"
)]
pub trait StructuredOutput: serde::Serialize + schemars::JsonSchema {}

impl<T: serde::Serialize + schemars::JsonSchema> StructuredOutput for T {}

/// The result of a tool that returned `value` as data: its compact JSON, written once.
#[doc(hidden)]
pub fn structured_output<T: StructuredOutput>(value: &T) -> ToolOutput {
    match serde_json::to_string(value) {
        Ok(text) => ToolOutput {
            text,
            is_error: false,
            structured: true,
            images: Box::default(),
            attachments: Box::default(),
        },
        Err(error) => ToolOutput::error(format_args!(
            "the tool's result could not be encoded as JSON: {error}"
        )),
    }
}

//! What a tool says about itself beyond its schema: a human title and MCP's four behaviour hints.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// A tool's title and behaviour hints, as `#[tool(title = "…", read_only, destructive,
/// idempotent, open_world)]` declares them. Hosts read them for approval policies
/// ([`Definition::annotations`](crate::Definition::annotations)); MCP's `tools/list` carries them
/// as `title` and `annotations`. What is not declared is not sent: MCP clients then assume their
/// defaults (a tool may be destructive and open-world).
///
/// The hints describe; they do not bind. A client must not trust them from a server it does not
/// trust, as MCP says.
///
/// ```
/// use serde_json::json;
/// use tool_schema::{Annotations, Definition};
///
/// // What `#[tool(title = "Read a file", read_only, open_world = false)]` declares.
/// let read_file = Definition::new("read_file", "Reads a file.", json!({"type": "object"}))
///     .with_annotations(
///         Annotations::new()
///             .with_title("Read a file")
///             .with_read_only(true)
///             .with_open_world(false),
///     );
/// let annotations = read_file.annotations();
/// assert_eq!(annotations.title(), Some("Read a file"));
/// assert_eq!(annotations.read_only(), Some(true));
/// assert_eq!(annotations.open_world(), Some(false));
/// assert_eq!(annotations.destructive(), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    title: Option<Cow<'static, str>>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

impl Annotations {
    /// Nothing declared.
    pub const fn new() -> Self {
        Annotations {
            title: None,
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
        }
    }

    /// A title for people (a user interface's label), beside the name the model uses.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Whether the tool only reads (changes nothing in its environment).
    #[must_use]
    pub const fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = Some(read_only);
        self
    }

    /// Whether the tool may destroy or overwrite (meaningful when it is not read-only).
    #[must_use]
    pub const fn with_destructive(mut self, destructive: bool) -> Self {
        self.destructive = Some(destructive);
        self
    }

    /// Whether calling it again with the same arguments has no further effect.
    #[must_use]
    pub const fn with_idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = Some(idempotent);
        self
    }

    /// Whether the tool reaches an open world (the web, other systems) rather than a closed one.
    #[must_use]
    pub const fn with_open_world(mut self, open_world: bool) -> Self {
        self.open_world = Some(open_world);
        self
    }

    /// The title, if declared.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The read-only hint, if declared.
    pub fn read_only(&self) -> Option<bool> {
        self.read_only
    }

    /// The destructive hint, if declared.
    pub fn destructive(&self) -> Option<bool> {
        self.destructive
    }

    /// The idempotent hint, if declared.
    pub fn idempotent(&self) -> Option<bool> {
        self.idempotent
    }

    /// The open-world hint, if declared.
    pub fn open_world(&self) -> Option<bool> {
        self.open_world
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        *self == Annotations::new()
    }

    /// MCP's `annotations` object: the declared hints, under MCP's names.
    pub(crate) fn mcp_hints(&self) -> Option<Value> {
        let mut hints = Map::new();
        for (key, hint) in [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ] {
            if let Some(hint) = hint {
                hints.insert(key.into(), hint.into());
            }
        }
        (!hints.is_empty()).then_some(Value::Object(hints))
    }
}

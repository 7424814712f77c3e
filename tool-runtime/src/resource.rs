//! Resources: documents a host serves at URIs for a client to list and read (MCP's
//! `resources/*`), beside its tools.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{LoadError, ToolError};
use crate::output::EmbeddedResource;

/// What reads a resource: the URI asked for, and the template's variables (empty for a fixed
/// resource); the contents, or why there are none.
type Reader = Arc<
    dyn Fn(&str, &BTreeMap<String, String>) -> Result<Vec<EmbeddedResource>, ToolError>
        + Send
        + Sync,
>;

/// What a listing says of a resource or a template.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct About {
    /// A name for people (`title`), beside the programmatic name.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// The MIME type of its contents.
    pub mime_type: Option<String>,
}

/// A resource at one URI: fixed contents, or contents read on each request.
///
/// ```
/// use tool_runtime::{EmbeddedResource, Resource, Resources};
///
/// let mut resources = Resources::default();
/// resources.add(Resource::text("docs://readme", "readme", "text/markdown", "# Hello")).unwrap();
/// resources.add(Resource::new("clock://now", "now", |uri| {
///     Ok(vec![EmbeddedResource::text(uri, "text/plain", "12:00")])
/// })).unwrap();
/// let read = resources.read("docs://readme").unwrap();
/// assert_eq!(read[0].uri(), "docs://readme");
/// ```
#[derive(Clone)]
pub struct Resource {
    uri: String,
    name: String,
    about: About,
    read: Reader,
}

impl Resource {
    /// A resource at `uri` whose contents `read` gives on each request (it gets the URI).
    pub fn new<F>(uri: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(&str) -> Result<Vec<EmbeddedResource>, ToolError> + Send + Sync + 'static,
    {
        Resource {
            uri: uri.into(),
            name: name.into(),
            about: About::default(),
            read: Arc::new(move |uri, _| read(uri)),
        }
    }

    /// A resource whose contents are `text`, of `mime_type`.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let contents = EmbeddedResource::text(uri, mime_type, text);
        Resource::fixed(contents, name)
    }

    /// A resource whose contents are the bytes `data`, of `mime_type`.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Self {
        let contents = EmbeddedResource::blob(uri, mime_type, data);
        Resource::fixed(contents, name)
    }

    fn fixed(contents: EmbeddedResource, name: impl Into<String>) -> Self {
        Resource {
            uri: contents.uri().to_owned(),
            name: name.into(),
            about: About {
                mime_type: Some(contents.mime_type().to_owned()),
                ..About::default()
            },
            read: Arc::new(move |_, _| Ok(vec![contents.clone()])),
        }
    }

    /// The same resource with a title for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.about.title = Some(title.into());
        self
    }

    /// The same resource with a description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.about.description = Some(description.into());
        self
    }

    /// The same resource, listed as of `mime_type`.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.about.mime_type = Some(mime_type.into());
        self
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What its listing says.
    pub fn about(&self) -> &About {
        &self.about
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Resources whose URIs follow a template (RFC 6570's simple `{name}` expressions, each
/// matching one or more characters other than `/`): `files://{path}/meta`.
///
/// ```
/// use tool_runtime::{EmbeddedResource, ResourceTemplate, Resources};
///
/// let mut resources = Resources::default();
/// resources.add_template(ResourceTemplate::new("user://{id}/profile", "profile", |uri, vars| {
///     Ok(vec![EmbeddedResource::text(uri, "text/plain", format!("user {}", vars["id"]))])
/// })).unwrap();
/// let read = resources.read("user://42/profile").unwrap();
/// assert_eq!(read[0].body(), &tool_runtime::Body::Text("user 42".into()));
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    template: String,
    name: String,
    about: About,
    read: Reader,
}

impl ResourceTemplate {
    /// Resources at the URIs `template` matches, read by `read` with the URI and its variables.
    pub fn new<F>(template: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(&str, &BTreeMap<String, String>) -> Result<Vec<EmbeddedResource>, ToolError>
            + Send
            + Sync
            + 'static,
    {
        ResourceTemplate {
            template: template.into(),
            name: name.into(),
            about: About::default(),
            read: Arc::new(read),
        }
    }

    /// The same template with a title for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.about.title = Some(title.into());
        self
    }

    /// The same template with a description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.about.description = Some(description.into());
        self
    }

    /// The same template, listed as of `mime_type`.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.about.mime_type = Some(mime_type.into());
        self
    }

    /// Its URI template.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What its listing says.
    pub fn about(&self) -> &About {
        &self.about
    }

    /// The variables of `uri` when the template matches it.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        let mut rest = uri;
        let mut pattern = self.template.as_str();
        while !pattern.is_empty() {
            match pattern.find('{') {
                Some(0) => {
                    let close = pattern.find('}')?;
                    let name = &pattern[1..close];
                    pattern = &pattern[close + 1..];
                    // The value runs to the next literal piece, and never across a `/`.
                    let literal_end = pattern.find('{').unwrap_or(pattern.len());
                    let literal = &pattern[..literal_end];
                    let end = if literal.is_empty() {
                        rest.find('/').unwrap_or(rest.len())
                    } else {
                        rest.find(literal)?
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    vars.insert(name.to_owned(), value.to_owned());
                    rest = &rest[end..];
                }
                found => {
                    let literal = &pattern[..found.unwrap_or(pattern.len())];
                    rest = rest.strip_prefix(literal)?;
                    pattern = &pattern[literal.len()..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("template", &self.template)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Why a resource could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// No resource is at the URI, and no template matches it.
    #[error("no resource at {}", crate::text::quote(.0))]
    NotFound(String),
    /// The resource's reader failed.
    #[error("{}: {}", crate::text::quote(.0), .1)]
    Failed(String, ToolError),
}

/// The resources and templates a host serves.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    fixed: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    changes: ResourceChanges,
}

/// Where a host says that a resource's contents changed: the clients subscribed to its URI hear
/// it (MCP's `notifications/resources/updated`, in the `initialize` era). Clones are one handle:
/// the host keeps one ([`Resources::changes`]), or gives one to the tool that changes the
/// contents (as a host service).
///
/// ```
/// use tool_runtime::Resources;
///
/// let resources = Resources::default();
/// let mut heard = resources.changes().watch();
/// resources.changes().updated("notes://today");
/// assert_eq!(heard.try_recv().unwrap(), "notes://today");
/// ```
#[derive(Clone, Debug)]
pub struct ResourceChanges(tokio::sync::broadcast::Sender<String>);

impl Default for ResourceChanges {
    fn default() -> Self {
        ResourceChanges(tokio::sync::broadcast::channel(CHANGES_KEPT).0)
    }
}

/// How many changes a slow listener may fall behind by before it misses some.
const CHANGES_KEPT: usize = 256;

impl ResourceChanges {
    /// The contents at `uri` changed.
    pub fn updated(&self, uri: impl Into<String>) {
        // No one listening is no one to tell.
        let _ = self.0.send(uri.into());
    }

    /// The URIs said to have changed from now on (a server's subscriptions listen here).
    pub fn watch(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.0.subscribe()
    }
}

impl Resources {
    /// Adds `resource`; a second resource at one URI is an error.
    pub fn add(&mut self, resource: Resource) -> Result<&mut Self, LoadError> {
        if self.fixed.iter().any(|known| known.uri == resource.uri) {
            return Err(LoadError::DuplicateResource(resource.uri));
        }
        self.fixed.push(resource);
        Ok(self)
    }

    /// Adds `template`; a second template of one pattern is an error.
    pub fn add_template(&mut self, template: ResourceTemplate) -> Result<&mut Self, LoadError> {
        if self
            .templates
            .iter()
            .any(|known| known.template == template.template)
        {
            return Err(LoadError::DuplicateResource(template.template));
        }
        self.templates.push(template);
        Ok(self)
    }

    /// The resources, in the order they were added.
    pub fn list(&self) -> &[Resource] {
        &self.fixed
    }

    /// The templates, in the order they were added.
    pub fn templates(&self) -> &[ResourceTemplate] {
        &self.templates
    }

    /// Where the host says that a resource's contents changed ([`ResourceChanges`]).
    pub fn changes(&self) -> &ResourceChanges {
        &self.changes
    }

    /// The host says changes through `changes`, a handle it made before the context.
    pub fn set_changes(&mut self, changes: ResourceChanges) {
        self.changes = changes;
    }

    /// Whether there is neither a resource nor a template.
    pub fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.templates.is_empty()
    }

    /// Whether `uri` names a resource: one added, or one a template matches.
    pub fn knows(&self, uri: &str) -> bool {
        self.fixed.iter().any(|resource| resource.uri == uri)
            || self.templates.iter().any(|t| t.matches(uri).is_some())
    }

    /// The contents at `uri`: the resource's there, else the first matching template's.
    pub fn read(&self, uri: &str) -> Result<Vec<EmbeddedResource>, ReadError> {
        let failed = |error| ReadError::Failed(uri.to_owned(), error);
        if let Some(resource) = self.fixed.iter().find(|resource| resource.uri == uri) {
            return (resource.read)(uri, &BTreeMap::new()).map_err(failed);
        }
        for template in &self.templates {
            if let Some(vars) = template.matches(uri) {
                return (template.read)(uri, &vars).map_err(failed);
            }
        }
        Err(ReadError::NotFound(uri.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(pattern: &str) -> ResourceTemplate {
        ResourceTemplate::new(pattern, "t", |_, _| Ok(Vec::new()))
    }

    #[test]
    fn a_template_matches_what_its_pattern_says_and_nothing_else() {
        let t = template("test://template/{id}/data");
        let vars = t.matches("test://template/123/data").unwrap();
        assert_eq!(vars["id"], "123");
        for uri in [
            "test://template//data",
            "test://template/1/2/data",
            "test://template/123/data/",
            "test://template/123",
            "test://other/123/data",
        ] {
            assert_eq!(t.matches(uri), None, "{uri}");
        }
        let t = template("db://{table}/{row}");
        let vars = t.matches("db://users/7").unwrap();
        assert_eq!(
            (vars["table"].as_str(), vars["row"].as_str()),
            ("users", "7")
        );
        assert_eq!(t.matches("db://users/7/x"), None);
        assert_eq!(t.matches("db://users"), None);
    }

    #[test]
    fn a_second_resource_at_one_uri_is_refused_and_an_unknown_one_is_not_found() {
        let mut resources = Resources::default();
        resources
            .add(Resource::text("a://x", "x", "text/plain", "1"))
            .unwrap();
        assert_eq!(
            resources
                .add(Resource::text("a://x", "y", "text/plain", "2"))
                .unwrap_err(),
            LoadError::DuplicateResource("a://x".into())
        );
        assert_eq!(
            resources.read("a://nothing").unwrap_err(),
            ReadError::NotFound("a://nothing".into())
        );
        assert!(resources.knows("a://x") && !resources.knows("a://y"));
    }
}

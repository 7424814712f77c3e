//! The host's context: the tool registry, host services, and plugin loading.

use std::any::TypeId;
use std::sync::Arc;

use crate::error::LoadError;
use crate::prompt::Prompts;
use crate::registry::ToolRegistry;
use crate::resource::Resources;
use crate::service::{Service, ServiceKey};
use crate::session::SessionHub;

/// What a host builds once and shares across calls: the loaded tools and the host services they
/// may use.
///
/// ```
/// use tool_runtime::{Ctx, Exec, tool};
///
/// /// Says hello.
/// #[tool]
/// fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let mut ctx = Ctx::new();
/// ctx.plugin::<Greet>().unwrap();
/// let out = ctx.tools.call("greet", &Exec::new(), r#"{"name": "Ada"}"#).wait();
/// assert_eq!(out.text, "Hello, Ada!");
/// ```
#[derive(Debug, Default)]
pub struct Ctx {
    /// The loaded tools.
    pub tools: ToolRegistry,
    /// The host's agent sessions, and one event stream over all of them.
    pub sessions: SessionHub,
    /// The resources the host serves beside its tools (MCP's `resources/*`).
    pub resources: Resources,
    /// The prompts the host offers (MCP's `prompts/*`).
    pub prompts: Prompts,
}

impl Ctx {
    /// A context with no tools and no host services.
    pub fn new() -> Self {
        Ctx::default()
    }

    /// Provides a host service that plugins may inject as [`Service<T>`]. Providing a second
    /// value of one type replaces the first.
    pub fn provide<T: Send + Sync + 'static>(&mut self, service: T) -> &mut Self {
        self.tools.services.insert(Arc::new(service));
        self
    }

    /// The host service of type `T`, if the host provided one.
    pub fn service<T: Send + Sync + 'static>(&self) -> Option<Service<T>> {
        self.tools.services.get::<T>()
    }

    /// Loads a plugin: checks that every service it injects is provided, then applies it.
    ///
    /// A missing service is an error naming the plugin and the service; nothing is applied then.
    pub fn plugin<P: Plugin>(&mut self) -> Result<&mut Self, LoadError> {
        if let Some(missing) = P::INJECT.iter().find(|key| !self.provides(key)) {
            return Err(LoadError::MissingService {
                plugin: P::NAME,
                service: missing.name(),
            });
        }
        let outer = self.tools.loading.replace(std::any::type_name::<P>());
        let applied = P::apply(self);
        self.tools.loading = outer;
        applied?;
        Ok(self)
    }

    /// Loads a tool value: one built at run time ([`DynamicTool`](crate::DynamicTool)), or any
    /// [`Tool`](crate::Tool) a host made. A second tool of one name is refused, as it is for
    /// plugins.
    pub fn tool(&mut self, tool: impl crate::Tool) -> Result<&mut Self, LoadError> {
        self.tools.register(tool)?;
        Ok(self)
    }

    /// Whether the host provides the service `key` names. The tool registry is always provided.
    pub fn provides(&self, key: &ServiceKey) -> bool {
        key.type_id() == TypeId::of::<ToolRegistry>() || self.tools.services.contains(key.type_id())
    }
}

/// A plugin: a named part a host loads into a [`Ctx`]. `#[tool]` implements it for each tool.
///
/// The three parts are all required, so none can go missing: the name, the host services it
/// injects (checked when it is loaded), and `apply`, which registers what it brings.
pub trait Plugin {
    /// The plugin's name (for a tool, the tool's name).
    const NAME: &'static str;
    /// The host services the plugin needs. [`Ctx::plugin`] refuses to load it when one is missing.
    const INJECT: &'static [ServiceKey];
    /// Registers what the plugin brings, such as its tool on `ctx.tools`.
    fn apply(ctx: &mut Ctx) -> Result<(), LoadError>;
}

//! The host's context: the tool registry, host services, and plugin loading.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::session::SessionHub;
use crate::{LoadError, ToolRegistry};

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
        P::apply(self)?;
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

/// Names a host service by its type.
#[derive(Clone, Copy)]
pub struct ServiceKey {
    type_id: fn() -> TypeId,
    name: fn() -> &'static str,
}

impl ServiceKey {
    /// The key of the service of type `T`.
    pub const fn of<T: ?Sized + 'static>() -> Self {
        ServiceKey {
            type_id: TypeId::of::<T>,
            name: type_name::<T>,
        }
    }

    /// The service type's id.
    pub fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    /// The service type's name, for messages.
    pub fn name(&self) -> &'static str {
        (self.name)()
    }
}

impl fmt::Debug for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for ServiceKey {
    fn eq(&self, other: &Self) -> bool {
        self.type_id() == other.type_id()
    }
}

impl Eq for ServiceKey {}

/// A host service, as a `#[tool]` function receives it: a parameter `db: Service<Db>` is resolved
/// from the host's [`Ctx::provide`]d services, never from the model's arguments, and makes the
/// tool's plugin inject `Db`.
pub struct Service<T: ?Sized>(Arc<T>);

impl<T: ?Sized> Service<T> {
    /// The shared service.
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }
}

impl<T: ?Sized> Clone for Service<T> {
    fn clone(&self) -> Self {
        Service(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for Service<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Service<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The services a host provides, by type.
#[derive(Default)]
pub(crate) struct Services {
    by_type: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Services {
    fn insert<T: Send + Sync + 'static>(&mut self, service: Arc<T>) {
        self.by_type.insert(TypeId::of::<T>(), service);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Service<T>> {
        let any = Arc::clone(self.by_type.get(&TypeId::of::<T>())?);
        any.downcast::<T>().ok().map(Service)
    }

    fn contains(&self, id: TypeId) -> bool {
        self.by_type.contains_key(&id)
    }
}

impl fmt::Debug for Services {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Services")
            .field("count", &self.by_type.len())
            .finish()
    }
}

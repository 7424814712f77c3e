//! Host services: what a host provides and a tool injects, by type.

use std::any::{Any, TypeId, type_name};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

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
/// from the host's [`Ctx::provide`](crate::Ctx::provide)d services, never from the model's arguments, and makes the
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

/// The services a host provides, by type, as the tool registry keeps them for its calls.
#[derive(Clone, Default)]
pub(crate) struct Services {
    by_type: foldhash::HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Services {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, service: Arc<T>) {
        self.by_type.insert(TypeId::of::<T>(), service);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Service<T>> {
        let any = Arc::clone(self.by_type.get(&TypeId::of::<T>())?);
        any.downcast::<T>().ok().map(Service)
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
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

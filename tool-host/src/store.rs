//! Where the host keeps sessions: JSON Lines files (the default), or PostgreSQL
//! (`--store postgres://…` or `TOOLHOST_STORE`), where `--session` takes a session id.

#[cfg(feature = "postgres")]
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(feature = "postgres")]
use tool_runtime::session::{Durability, OpenMode};
#[cfg(feature = "postgres")]
use tool_runtime::{Session, SessionError, SessionHub};
#[cfg(feature = "postgres")]
use tool_session_pg::PgStore;

use crate::HostError;

/// The host's session store.
#[derive(Debug)]
pub(crate) enum Store {
    /// A JSON Lines file per session.
    Files,
    /// A PostgreSQL database.
    #[cfg(feature = "postgres")]
    Postgres(Box<PgStore>),
}

impl Store {
    /// The store `url` names: none for files, `postgres://` or `postgresql://` for PostgreSQL.
    pub(crate) fn connect(url: Option<&str>) -> Result<Store, HostError> {
        match url.filter(|url| !url.is_empty()) {
            None => Ok(Store::Files),
            #[cfg(feature = "postgres")]
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Store::Postgres(Box::new(PgStore::connect(url)?)))
            }
            #[cfg(not(feature = "postgres"))]
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Err(HostError::Input(
                    "this host was built without PostgreSQL (tool-host's `postgres` feature): \
                     sessions are kept in files"
                        .into(),
                ))
            }
            // Only its scheme is shown: the rest may hold a password.
            Some(url) => Err(HostError::Input(format!(
                "unknown session store {:?}: give a postgres:// URL, or none for files",
                match url.split_once("://") {
                    Some((scheme, _)) => format!("{}://…", tool_runtime::text::neutralize(scheme)),
                    None => "…".to_owned(),
                }
            ))),
        }
    }
}

#[cfg(feature = "postgres")]
/// A new session of the database `pg`, its id starting with `prefix`.
pub(crate) fn create(pg: &PgStore, hub: &SessionHub, prefix: &str) -> Result<Session, HostError> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let id = format!("{prefix}-{nanos:x}-{}", std::process::id());
    Ok(pg.open(hub, &id, OpenMode::Create, Durability::default())?)
}

#[cfg(feature = "postgres")]
/// The error for a session `id` the database `pg` does not hold.
pub(crate) fn missing(pg: &PgStore, id: &str) -> SessionError {
    SessionError::Store {
        reason: format!(
            "no session {} in {}",
            tool_runtime::text::neutralize(id),
            pg.url()
        ),
    }
}

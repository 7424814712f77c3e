//! Opening a command's session: a file or a store's session by name, or a new one.

use std::path::{Path, PathBuf};

use tool_runtime::session::{Durability, JsonlLog, OpenMode, SessionDir};
use tool_runtime::{Session, SessionHub};

use crate::HostError;
use crate::store::Store;

/// The session in `file`, or a new one (its id starting with `prefix`) in the session directory,
/// opened through the host's hub; with the file's path.
pub(super) fn open_or_create(
    name: &str,
    store: &Store,
    hub: &SessionHub,
    session_dir: Option<PathBuf>,
    file: Option<PathBuf>,
    prefix: &str,
) -> Result<(Session, PathBuf), HostError> {
    match (file, store) {
        (Some(path), _) => Ok((
            open_session(name, store, hub, &path, OpenMode::Write)?,
            path,
        )),
        #[cfg(feature = "postgres")]
        (None, Store::Postgres(pg)) => {
            let session = crate::store::create(pg, hub, prefix)?;
            let id = PathBuf::from(session.id());
            Ok((session, id))
        }
        (None, Store::Files) => {
            let dir = SessionDir::new(session_dir.unwrap_or_else(|| default_session_dir(name)))?;
            let (id, log) = dir.create(prefix)?;
            let path = log.path().to_path_buf();
            Ok((hub.open(id, log)?, path))
        }
    }
}

/// `$XDG_STATE_HOME/NAME/sessions`, else `~/.local/state/NAME/sessions`, else
/// `./NAME-sessions`, for the host called `name`.
pub(super) fn default_session_dir(name: &str) -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/state")));
    match state {
        Some(state) => state.join(name).join("sessions"),
        None => PathBuf::from(format!("{name}-sessions")),
    }
}

/// Opens the session persisted at `path` through the host's hub (so `ctx.sessions` sees it),
/// reporting a torn tail on standard error.
///
/// Its todo list is read too: a log whose latest list cannot be read is refused whatever the
/// command (replay in any format, a call, the REPL, MCP), so a log has one verdict.
pub(super) fn open_session(
    name: &str,
    store: &Store,
    hub: &SessionHub,
    path: &Path,
    mode: OpenMode,
) -> Result<Session, HostError> {
    #[cfg(not(feature = "postgres"))]
    let Store::Files = store;
    #[cfg(feature = "postgres")]
    if let Store::Postgres(pg) = store {
        // On a database, `--session` names the session's id.
        let id = path.to_string_lossy();
        let session = pg.open(hub, &id, mode, Durability::default())?;
        if mode == OpenMode::Read && session.next_seq() == 1 {
            // As a missing file is to the file store.
            return Err(crate::store::missing(pg, &id).into());
        }
        tool_todo::current_in(&session, path)?;
        return Ok(session);
    }
    let log = JsonlLog::open(path, mode, Durability::default())?;
    if let Some(torn) = log.torn_tail() {
        crate::note!("{name}: warning: {torn}");
    }
    let id = path.file_stem().map_or_else(
        || "session".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let session = hub.open(id, log)?;
    tool_todo::current_in(&session, path)?;
    Ok(session)
}

/// Removes the file of a session this command created when nothing was recorded in it, so a
/// run that did nothing (a REPL left at once, an MCP client that closed before it called)
/// leaves no header-only log behind. A store's session is left to the store.
pub(super) fn discard_if_unused(
    store: &Store,
    created: bool,
    session: &Session,
    path: &Path,
    kept: u64,
) -> Result<(), HostError> {
    // `kept`: the events the command itself recorded, which are not a use (a run's options).
    if created && matches!(store, Store::Files) && session.next_seq() == 1 + kept {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

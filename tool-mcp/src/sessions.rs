//! The agent sessions an HTTP endpoint serves: named by a stateless request, or opened by
//! `initialize`, kept in the store (files or PostgreSQL) and checked out for each call.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use rmcp::model::RequestMetaObject;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use tool_runtime::session::{Durability, JsonlLog, OpenMode, SessionDir};
use tool_runtime::{Agent, OWNER_EVENT, Owner, Session, SessionError, SessionHub};

use crate::error::McpError;
use crate::lock::lock;

/// The header a stateless-era request names its agent session with.
pub const SESSION_HEADER: &str = "Agent-Session";

/// The `_meta` member a stateless-era request names its agent session with.
pub const SESSION_META: &str = "agentSession";

/// The event that records an `initialize`-era MCP session's state: the client's `initialize`
/// parameters, as rmcp restores a session from them.
pub const SESSION_EVENT: &str = "mcp/session";

/// The prefix of the agent sessions a stateless-era caller names: its own, so that two
/// principals' names never meet (`u` and 24 hex digits of a SHA-256 of issuer and subject).
pub(crate) fn namespace(owner: &Owner) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{}\0{}", owner.issuer, owner.subject));
    let hex: String = digest[..12]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("u{hex}")
}

/// The event that records the end of an `initialize`-era MCP session (`DELETE`).
pub const ENDED_EVENT: &str = "mcp/ended";

/// How long a call waits for its session's writer lease while another replica holds it.
pub const LEASE_WAIT: Duration = Duration::from_secs(10);

/// How many session files the file store keeps open.
pub const OPEN_FILES: usize = 256;

/// How many PostgreSQL sessions a replica keeps open between calls (each with a connection of
/// its own, its lease let go).
pub const KEPT_SESSIONS: usize = 64;

/// How long an `initialize`-era session stays in a replica's memory without a request; after
/// that a request restores it from the store.
pub(crate) const IDLE_SESSION: Duration = Duration::from_secs(300);

/// Where an HTTP server's agent sessions live: a session directory, or PostgreSQL.
pub struct HttpSessions {
    hub: SessionHub,
    store: Backing,
}

enum Backing {
    Files {
        dir: SessionDir,
        open: Mutex<Kept<Agent>>,
    },
    #[cfg(feature = "postgres")]
    Postgres {
        pg: Box<tool_session_pg::PgStore>,
        open: Mutex<Kept<Arc<PgOpen>>>,
    },
}

/// Sessions kept open, at most a number of them, the oldest let go first.
struct Kept<T> {
    open: HashMap<String, T>,
    order: VecDeque<String>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            open: HashMap::new(),
            order: VecDeque::new(),
        }
    }
}

impl<T: Clone> Kept<T> {
    fn get(&self, id: &str) -> Option<T> {
        self.open.get(id).cloned()
    }

    /// Keeps `value` as session `id`'s, letting the oldest go past `most`.
    fn keep(&mut self, id: &str, value: T, most: usize) {
        if self.open.insert(id.to_owned(), value).is_none() {
            self.order.push_back(id.to_owned());
        }
        while self.open.len() > most
            && let Some(oldest) = self.order.pop_front()
        {
            self.open.remove(&oldest);
        }
    }

    fn forget(&mut self, id: &str) {
        if self.open.remove(id).is_some() {
            self.order.retain(|kept| kept != id);
        }
    }
}

/// A PostgreSQL session kept open between calls, its lease let go between them.
#[cfg(feature = "postgres")]
struct PgOpen {
    agent: Agent,
    lease: tool_session_pg::Lease,
    /// One piece of work at a time: the lease is taken for it and let go after.
    turn: Arc<tokio::sync::Mutex<()>>,
}

/// An agent session checked out for one piece of work (a call, or the MCP session's own
/// event). On PostgreSQL it holds the session's writer lease until it is dropped.
pub(crate) struct Checkout {
    agent: Agent,
    #[cfg(feature = "postgres")]
    lease: Option<(tool_session_pg::Lease, tokio::sync::OwnedMutexGuard<()>)>,
}

impl Checkout {
    /// The agent whose session the work goes to.
    pub(crate) fn agent(&self) -> &Agent {
        &self.agent
    }
}

impl Drop for Checkout {
    /// The lease is let go (a round trip, off an async worker), then the turn.
    fn drop(&mut self) {
        #[cfg(feature = "postgres")]
        if let Some((lease, turn)) = self.lease.take() {
            tool_runtime::blocking(move || {
                // A lease that cannot be let go is on a lost connection, which lets it go.
                let _ = lease.release();
                drop(turn);
            });
        }
    }
}

impl std::fmt::Debug for HttpSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.store {
            Backing::Files { dir, .. } => f
                .debug_struct("HttpSessions")
                .field("dir", &dir.path())
                .finish(),
            #[cfg(feature = "postgres")]
            Backing::Postgres { pg, .. } => f
                .debug_struct("HttpSessions")
                .field("postgres", &pg.url())
                .finish(),
        }
    }
}

impl HttpSessions {
    /// Sessions as files of `dir`, opened through `hub`.
    pub fn files(hub: SessionHub, dir: SessionDir) -> Self {
        HttpSessions {
            hub,
            store: Backing::Files {
                dir,
                open: Mutex::new(Kept::default()),
            },
        }
    }

    /// Sessions in the database of `pg`, opened through `hub`.
    #[cfg(feature = "postgres")]
    pub fn postgres(hub: SessionHub, pg: tool_session_pg::PgStore) -> Self {
        HttpSessions {
            hub,
            store: Backing::Postgres {
                pg: Box::new(pg),
                open: Mutex::new(Kept::default()),
            },
        }
    }

    /// Session `id` checked out for writing (created if absent), waiting up to
    /// [`LEASE_WAIT`] while another process holds it. Blocks.
    pub(crate) fn agent(&self, id: &str, owner: Option<&Owner>) -> Result<Checkout, McpError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match self.check_out(id).and_then(|checkout| {
                Self::record_owner(&checkout, owner)?;
                Ok(checkout)
            }) {
                Err(McpError::Session(
                    SessionError::Leased { .. }
                    | SessionError::Locked { .. }
                    | SessionError::AlreadyOpen { .. },
                )) if started.elapsed() < LEASE_WAIT => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                result => return result,
            }
        }
    }

    /// Session `id` checked out without blocking, when that needs nothing of the store: a
    /// session file this process keeps open, whose owner (if `owner` is given) is recorded
    /// already. `None` sends the caller to [`HttpSessions::agent`], which blocks.
    pub(crate) fn kept(&self, id: &str, owner: Option<&Owner>) -> Option<Checkout> {
        match &self.store {
            Backing::Files { open, .. } => {
                let agent = lock(open).get(id)?;
                if owner.is_some() && agent.session().latest(OWNER_EVENT).is_none() {
                    return None;
                }
                Some(Checkout::of(agent))
            }
            // A kept PostgreSQL session's lease is taken again: a round trip.
            #[cfg(feature = "postgres")]
            Backing::Postgres { .. } => None,
        }
    }

    /// Records `owner` in a session that has none yet.
    fn record_owner(checkout: &Checkout, owner: Option<&Owner>) -> Result<(), McpError> {
        let session = checkout.agent().session();
        if let Some(owner) = owner
            && session.latest(OWNER_EVENT).is_none()
        {
            session.append(OWNER_EVENT, owner)?;
        }
        Ok(())
    }

    /// The owner of session `id`, if it exists and has one. Blocks.
    pub(crate) fn owner(&self, id: &str) -> Result<Option<Owner>, McpError> {
        let Some(session) = self.read(id)? else {
            return Ok(None);
        };
        Ok(session
            .latest(OWNER_EVENT)
            .and_then(|event| event.data::<Owner>().ok()))
    }

    fn check_out(&self, id: &str) -> Result<Checkout, McpError> {
        match &self.store {
            Backing::Files { dir, open } => {
                if let Some(agent) = lock(open).get(id) {
                    return Ok(Checkout::of(agent));
                }
                let log = dir.open_log(id, OpenMode::Write)?;
                if let Some(torn) = log.torn_tail() {
                    tool_runtime::text::note!("warning: {torn}");
                }
                let session = self.hub.open(id.to_owned(), log)?;
                tool_todo::current_in(&session, &dir.path_of(id)?)?;
                let agent = Agent::new(id.to_owned(), session);
                lock(open).keep(id, agent.clone(), OPEN_FILES);
                Ok(Checkout::of(agent))
            }
            #[cfg(feature = "postgres")]
            Backing::Postgres { pg, open } => {
                // Kept open: the lease taken again, and the session's last seq still the one
                // this replica wrote or read, else it is opened anew.
                let kept = lock(open).get(id);
                if let Some(kept) = kept {
                    let turn = Arc::clone(&kept.turn).blocking_lock_owned();
                    let last = kept.agent.session().next_seq() - 1;
                    match kept.lease.retake(last) {
                        Ok(true) => {
                            return Ok(Checkout {
                                agent: kept.agent.clone(),
                                lease: Some((kept.lease.clone(), turn)),
                            });
                        }
                        Err(error @ SessionError::Leased { .. }) => return Err(error.into()),
                        // Written elsewhere meanwhile, or its connection lost: let go, so that
                        // whoever waits for its turn finds it stale too.
                        Ok(false) | Err(_) => {
                            let _ = kept.lease.release();
                            let mut open = lock(open);
                            if open.get(id).is_some_and(|now| Arc::ptr_eq(&now, &kept)) {
                                open.forget(id);
                            }
                        }
                    }
                    drop(turn);
                }
                let log = pg.open_log(id, OpenMode::Write, Durability::default())?;
                let lease = log.lease().expect("a log opened for writing has a lease");
                let session = self.hub.open(id.to_owned(), log)?;
                tool_todo::current_in(&session, std::path::Path::new(id))?;
                let kept = Arc::new(PgOpen {
                    agent: Agent::new(id.to_owned(), session),
                    lease,
                    turn: Arc::new(tokio::sync::Mutex::new(())),
                });
                let turn = Arc::clone(&kept.turn).blocking_lock_owned();
                lock(open).keep(id, Arc::clone(&kept), KEPT_SESSIONS);
                Ok(Checkout {
                    agent: kept.agent.clone(),
                    lease: Some((kept.lease.clone(), turn)),
                })
            }
        }
    }

    /// Session `id` for reading, if it exists. Blocks.
    pub(crate) fn read(&self, id: &str) -> Result<Option<Session>, McpError> {
        match &self.store {
            Backing::Files { dir, open } => {
                if let Some(agent) = lock(open).get(id) {
                    return Ok(Some(agent.session().clone()));
                }
                let path = dir.path_of(id)?;
                if !path.exists() {
                    return Ok(None);
                }
                let log = JsonlLog::open(&path, OpenMode::Read, Durability::default())?;
                Ok(Some(Session::open(id.to_owned(), log)?))
            }
            #[cfg(feature = "postgres")]
            Backing::Postgres { pg, .. } => {
                let log = pg.open_log(id, OpenMode::Read, Durability::default())?;
                let session = Session::open(id.to_owned(), log)?;
                Ok((session.next_seq() > 1).then_some(session))
            }
        }
    }

    /// Lets session `id` go, if it is kept open.
    fn release(&self, id: &str) {
        match &self.store {
            Backing::Files { open, .. } => lock(open).forget(id),
            #[cfg(feature = "postgres")]
            Backing::Postgres { open, .. } => lock(open).forget(id),
        }
    }
}

impl Checkout {
    fn of(agent: Agent) -> Self {
        Checkout {
            agent,
            #[cfg(feature = "postgres")]
            lease: None,
        }
    }
}

/// Whether `session`'s MCP session was ended (`DELETE`) after it last began.
pub(crate) fn ended(session: &Session) -> bool {
    match (session.latest(ENDED_EVENT), session.latest(SESSION_EVENT)) {
        (Some(ended), Some(began)) => ended.seq > began.seq,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// rmcp's store of MCP sessions, kept as events of the agent sessions they are.
pub(crate) struct McpSessions(pub(crate) Arc<HttpSessions>);

#[async_trait::async_trait]
impl SessionStore for McpSessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let sessions = Arc::clone(&self.0);
        let id = session_id.to_owned();
        blocking_task(move || {
            let Some(session) = sessions.read(&id)? else {
                return Ok(None);
            };
            if ended(&session) {
                return Ok(None);
            }
            match session.latest(SESSION_EVENT) {
                Some(event) => Ok(Some(event.data::<SessionState>().map_err(|error| {
                    McpError::Protocol(format!("session {id}: its {SESSION_EVENT} event: {error}"))
                })?)),
                None => Ok(None),
            }
        })
        .await
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let sessions = Arc::clone(&self.0);
        let id = session_id.to_owned();
        let state = state.clone();
        blocking_task(move || {
            let checkout = sessions.agent(&id, None)?;
            checkout.agent().session().append(SESSION_EVENT, &state)?;
            Ok(())
        })
        .await
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let sessions = Arc::clone(&self.0);
        let id = session_id.to_owned();
        blocking_task(move || {
            let checkout = sessions.agent(&id, None)?;
            checkout
                .agent()
                .session()
                .append(ENDED_EVENT, &serde_json::json!({}))?;
            drop(checkout);
            sessions.release(&id);
            Ok(())
        })
        .await
    }
}

async fn blocking_task<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, McpError> + Send + 'static,
) -> Result<T, SessionStoreError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(Into::into),
        Err(error) => Err(format!("the session store's task failed: {error}").into()),
    }
}

/// The agent session a request names: its `Mcp-Session-Id` (an `initialize`-era session), else
/// the [`SESSION_HEADER`] header, else the [`SESSION_META`] member of its `_meta`.
pub(crate) fn session_named(
    headers: &HeaderMap,
    meta: Option<&RequestMetaObject>,
) -> Option<String> {
    for name in ["mcp-session-id", SESSION_HEADER] {
        if let Some(value) = headers.get(name) {
            return Some(String::from_utf8_lossy(value.as_bytes()).into_owned());
        }
    }
    meta.and_then(|meta| meta.0.0.get(SESSION_META))
        .and_then(|value| value.as_str())
        .map(str::to_owned)
}

/// A request's MCP session, if it belongs to an `initialize`-era one.
pub(crate) fn mcp_session(headers: &HeaderMap) -> bool {
    headers.contains_key("mcp-session-id")
}

/// The name of a session the server begins for a stateless call that names none: `m-` and 32
/// hex digits from the system's random source, so no two callers' sessions meet by chance
/// and none can be guessed.
pub(crate) fn mint() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("m-{hex}"))
}

/// A session name a stateless-era client may give.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "invalid session name {}: 1 to 128 ASCII letters, digits, `.`, `_` or `-`, not \
             starting with `.`",
            tool_runtime::text::neutralize(&name.chars().take(140).collect::<String>())
        ))
    }
}

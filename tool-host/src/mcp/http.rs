//! `toolhost mcp --http`: the tools over MCP's Streamable HTTP transport, on rmcp's server
//! service mounted in axum's server.
//!
//! # Both protocol eras on one endpoint
//!
//! - **2026-07-28** (stateless): every `POST` stands alone. `server/discover` tells the client
//!   what is served, and each request carries its protocol version and capabilities in `_meta`
//!   and the `Mcp-Method` / `Mcp-Name` headers, which rmcp checks against the body. There is no
//!   MCP session, so a `tools/call` names the **agent session** its events belong to: the
//!   `Agent-Session` header, or the `agentSession` member of the request's `_meta`
//!   (the header wins when both are given). A session that does not exist yet is created. A
//!   name is 1 to 128 ASCII letters, digits, `.`, `_` or `-`, not starting with `.`.
//! - **2025-06-18 and 2025-11-25** (the `initialize` era; 2025-03-26 too): `initialize` opens
//!   an MCP session whose `Mcp-Session-Id` *is* an agent session's id: its state (the client's
//!   `initialize` parameters, event `mcp/session`) and every call it makes are events of that
//!   session in the store. A request carrying the id can land on any replica sharing the store:
//!   one that does not hold the session in memory restores it from the store. `GET` opens the
//!   session's stream of server messages (resumable with `Last-Event-Id` while the replica
//!   serving it lives), `DELETE` ends the session (event `mcp/ended`; the log stays, to be
//!   replayed).
//!
//! A client picks its era as the MCP SDKs do: one that sends `server/discover` (or a request
//! whose `MCP-Protocol-Version` header or `_meta` says `2026-07-28`) is served statelessly; one
//! that sends `initialize` gets a session.
//!
//! # Answers
//!
//! A request's answer is JSON when it is the only message to send, and an SSE stream when a
//! call reports progress (or the server has other messages for it) before its result. In the
//! stateless era a client that closes its connection before the answer cancels the call; in a
//! session, `notifications/cancelled` does.
//!
//! # Every guarantee of the stdio server
//!
//! A layer in front of rmcp reads each `POST` body (refusing one over the limit with `413`
//! before reading it whole) and does what [`super::LineTransport`] does for a line: a
//! `tools/call`'s `arguments` go to the runtime as the exact text sent, so a duplicate key, a
//! lone surrogate, `1e400`, nesting past the depth limit or arguments over the size cap get the
//! texts `toolhost call` prints; a body that is not a message of the protocol but has an id gets
//! a JSON-RPC error naming the fault (`400`). Calls of one agent session run one at a time on a
//! replica, in the order their requests arrived; across replicas the session's writer lease
//! (PostgreSQL) orders them, a request waiting up to [`LEASE_WAIT`] for a lease another replica
//! holds.
//!
//! Calls never block a worker thread on I/O: the session's appends and opens step off the
//! worker ([`tool_runtime::blocking`]), as everywhere in this host.
//!
//! # Sessions in the store
//!
//! With the file store, sessions are files of the session directory named by id, kept open
//! (up to [`OPEN_FILES`]) while the server runs: one replica serves a directory. On PostgreSQL
//! a replica keeps the sessions it served open (up to [`KEPT_SESSIONS`], each with a
//! connection), but holds a session's writer lease only while one of its calls runs: the lease
//! is let go after the call, so the next request can land on any replica. Taking it again
//! reads the session's last seq in the same round trip; when another replica wrote the session
//! meanwhile, the replica's view is stale and the session is opened anew (its seqs checked
//! whole, its latest events read). A call then costs the lease, the append and the release
//! when the session stayed where it was. When a replica dies mid-call, PostgreSQL ends its
//! connection and the lease is free for the next.
//!
//! # Security
//!
//! The server binds where it is told (`127.0.0.1` when given only a port). `Host` is checked
//! against loopback names and the address bound (DNS-rebinding protection), and a request
//! carrying an `Origin` is served only when the origin is a loopback one (`http://localhost`,
//! `http://127.0.0.1`, `http://[::1]`, any port) or one allowed with `--allow-origin`.
//!
//! # Stopping
//!
//! On the future given to [`McpServer::serve_http`] (SIGTERM or Ctrl-C for `toolhost`), the
//! server stops accepting connections, lets the calls in flight finish for the grace period,
//! then cancels those still running (each answers that it was cancelled), and closes every
//! session's streams before it returns.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestMetaObject};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tool_runtime::session::{Durability, JsonlLog, OpenMode, SessionDir};
use tool_runtime::{Agent, Session, SessionError, SessionHub};

use super::McpServer;
use super::auth::{Auth, AuthOptions, Principal};
use super::order::Arrivals;
use super::transport::{self, Incoming, RawCall};
use crate::HostError;

/// The header a stateless-era request names its agent session with.
pub const SESSION_HEADER: &str = "Agent-Session";

/// The `_meta` member a stateless-era request names its agent session with.
pub const SESSION_META: &str = "agentSession";

/// The event that records an `initialize`-era MCP session's state: the client's `initialize`
/// parameters, as rmcp restores a session from them.
pub const SESSION_EVENT: &str = "mcp/session";

pub use crate::OWNER_EVENT;

pub use crate::Owner;

impl Owner {
    /// The owner a principal is.
    pub fn of(principal: &Principal) -> Owner {
        Owner {
            issuer: principal.issuer.clone(),
            subject: principal.subject.clone(),
        }
    }

    /// The prefix of the agent sessions a stateless-era caller names: its own, so that two
    /// principals' names never meet (`u` and 24 hex digits of a SHA-256 of issuer and subject).
    pub fn namespace(&self) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{}\0{}", self.issuer, self.subject));
        let hex: String = digest[..12]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        format!("u{hex}")
    }
}

/// The event that records the end of an `initialize`-era MCP session (`DELETE`).
pub const ENDED_EVENT: &str = "mcp/ended";

/// How long a call waits for its session's writer lease while another replica holds it.
pub const LEASE_WAIT: Duration = Duration::from_secs(10);

/// How long a connection may take to send a request's head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request's body may take to arrive whole.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// How many session files the file store keeps open.
pub const OPEN_FILES: usize = 256;

/// How many PostgreSQL sessions a replica keeps open between calls (each with a connection of
/// its own, its lease let go).
pub const KEPT_SESSIONS: usize = 64;

/// How long an `initialize`-era session stays in a replica's memory without a request; after
/// that a request restores it from the store.
const IDLE_SESSION: Duration = Duration::from_secs(300);

/// The options of an HTTP endpoint.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    path: String,
    allowed_origins: Vec<String>,
    allowed_hosts: Vec<String>,
    grace: Duration,
    auth: AuthOptions,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            grace: Duration::from_secs(10),
            auth: AuthOptions::default(),
        }
    }
}

impl HttpOptions {
    /// The endpoint's path (`/mcp` unless given).
    #[must_use]
    pub fn path(mut self, path: &str) -> Self {
        self.path = if path.starts_with('/') {
            path.to_owned()
        } else {
            format!("/{path}")
        };
        self
    }

    /// Serves requests from a browser page of `origin` (`https://app.example.com`, a port or
    /// `:*` after it) besides loopback pages.
    #[must_use]
    pub fn allow_origin(mut self, origin: &str) -> Self {
        self.allowed_origins.push(origin.to_owned());
        self
    }

    /// Serves requests whose `Host` is `host` (a name, or `name:port`) besides loopback names
    /// and the address bound.
    #[must_use]
    pub fn allow_host(mut self, host: &str) -> Self {
        self.allowed_hosts.push(host.to_owned());
        self
    }

    /// How long calls in flight may run on once the server is told to stop (10 s unless
    /// given).
    #[must_use]
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Checks callers as `auth` says (see [`auth`](super::auth)). Without it the server serves
    /// loopback addresses only.
    #[must_use]
    pub fn auth(mut self, auth: AuthOptions) -> Self {
        self.auth = auth;
        self
    }

    /// Refuses an address other machines reach when no way of checking callers is set.
    pub fn may_serve(&self, addr: SocketAddr) -> Result<(), HostError> {
        if addr.ip().is_loopback() || self.auth.enabled() {
            return Ok(());
        }
        Err(HostError::Input(format!(
            "{addr} is reachable from other machines, and without --auth-issuer, --auth-jwks or \
             --auth-tokens anyone who reaches it could call the tools: serve a loopback \
             address, or say who may call"
        )))
    }

    /// The endpoint's path.
    pub fn endpoint(&self) -> &str {
        &self.path
    }
}

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
    pub(crate) fn agent(&self, id: &str, owner: Option<&Owner>) -> Result<Checkout, HostError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match self.check_out(id).and_then(|checkout| {
                Self::record_owner(&checkout, owner)?;
                Ok(checkout)
            }) {
                Err(HostError::Session(
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

    /// Records `owner` in a session that has none yet.
    fn record_owner(checkout: &Checkout, owner: Option<&Owner>) -> Result<(), HostError> {
        let session = checkout.agent().session();
        if let Some(owner) = owner
            && session.latest(OWNER_EVENT).is_none()
        {
            session.append(OWNER_EVENT, owner)?;
        }
        Ok(())
    }

    /// The owner of session `id`, if it exists and has one. Blocks.
    fn owner(&self, id: &str) -> Result<Option<Owner>, HostError> {
        let Some(session) = self.read(id)? else {
            return Ok(None);
        };
        Ok(session
            .latest(OWNER_EVENT)
            .and_then(|event| event.data::<Owner>().ok()))
    }

    fn check_out(&self, id: &str) -> Result<Checkout, HostError> {
        match &self.store {
            Backing::Files { dir, open } => {
                if let Some(agent) = lock(open).get(id) {
                    return Ok(Checkout::of(agent));
                }
                let log = dir.open_log(id, OpenMode::Write)?;
                if let Some(torn) = log.torn_tail() {
                    crate::note!("warning: {torn}");
                }
                let session = self.hub.open(id.to_owned(), log)?;
                crate::current_todos(&session, &dir.path_of(id)?)?;
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
                crate::current_todos(&session, std::path::Path::new(id))?;
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
    fn read(&self, id: &str) -> Result<Option<Session>, HostError> {
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

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
struct McpSessions(Arc<HttpSessions>);

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
                    HostError::Mcp(format!("session {id}: its {SESSION_EVENT} event: {error}"))
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
    work: impl FnOnce() -> Result<T, HostError> + Send + 'static,
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

/// The text a call without a session gets.
pub(crate) fn no_session() -> String {
    format!(
        "this server keeps each call in an agent session: name it with the `{SESSION_HEADER}` \
         header or the `{SESSION_META}` member of the request's `_meta` (or open an MCP \
         session with `initialize`)"
    )
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

/// What the layer in front of rmcp shares.
struct Front {
    max_body: usize,
    max_args_bytes: usize,
    arrivals: Mutex<HashMap<String, Weak<Arrivals>>>,
    /// The tools, for the scopes each needs; and how callers are checked, if they are.
    ctx: Arc<tool_runtime::Ctx>,
    auth: Option<Arc<Auth>>,
    /// The sessions, for their owners; and the owners read, by session.
    sessions: Arc<HttpSessions>,
    owners: Mutex<HashMap<String, Owner>>,
}

impl Front {
    /// Whether MCP session `id` is `principal`'s (read from the store once, then kept).
    async fn owned_by(&self, id: &str, principal: &Principal) -> bool {
        let wanted = Owner::of(principal);
        if let Some(owner) = lock(&self.owners).get(id) {
            return *owner == wanted;
        }
        let sessions = Arc::clone(&self.sessions);
        let key = id.to_owned();
        let read = tokio::task::spawn_blocking(move || sessions.owner(&key)).await;
        match read {
            Ok(Ok(Some(owner))) => {
                let mine = owner == wanted;
                let mut owners = lock(&self.owners);
                if owners.len() >= 4096 {
                    owners.clear();
                }
                owners.insert(id.to_owned(), owner);
                mine
            }
            _ => false,
        }
    }

    /// Records `principal` as the owner of MCP session `id`, begun just now.
    async fn own(&self, id: &str, principal: &Principal) -> Result<(), HostError> {
        let sessions = Arc::clone(&self.sessions);
        let (key, owner) = (id.to_owned(), Owner::of(principal));
        let recorded = owner.clone();
        tokio::task::spawn_blocking(move || sessions.agent(&key, Some(&recorded)).map(drop))
            .await
            .map_err(|error| HostError::Mcp(error.to_string()))??;
        lock(&self.owners).insert(id.to_owned(), owner);
        Ok(())
    }

    fn arrivals(&self, key: String) -> Arc<Arrivals> {
        let mut map = lock(&self.arrivals);
        if let Some(arrivals) = map.get(&key).and_then(Weak::upgrade) {
            return arrivals;
        }
        if map.len() >= 1024 {
            map.retain(|_, arrivals| arrivals.strong_count() > 0);
        }
        let arrivals = Arrivals::new();
        map.insert(key, Arc::downgrade(&arrivals));
        arrivals
    }
}

/// Reads a `POST`'s body within the limit and hands a `tools/call`'s arguments on as text.
async fn front(State(front): State<Arc<Front>>, request: Request, next: Next) -> Response {
    // An MCP session is its owner's: anyone else's request for it is answered as for a session
    // that does not exist, word for word.
    let principal = request.extensions().get::<Principal>().cloned();
    if let Some(principal) = &principal
        && let Some(id) = request.headers().get("mcp-session-id")
    {
        let id = String::from_utf8_lossy(id.as_bytes()).into_owned();
        if !front.owned_by(&id, principal).await {
            return session_not_found();
        }
    }
    if request.method() == Method::DELETE {
        // rmcp accepts a session's end with 202; it is done, with nothing to say (204), as
        // clients expect of a DELETE.
        let mut response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return response;
    }
    if request.method() != Method::POST || !is_json(request.headers()) {
        // rmcp answers what is not a JSON POST (405, 415) without reading it.
        return next.run(request).await;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if let Some(length) = declared
        && length > front.max_body as u64
    {
        return too_large(Some(length), &front);
    }
    let (mut parts, body) = request.into_parts();
    let read = http_body_util::Limited::new(body, front.max_body).collect();
    let Ok(read) = tokio::time::timeout(BODY_TIMEOUT, read).await else {
        return jsonrpc_error(
            StatusCode::REQUEST_TIMEOUT,
            -32700,
            &format!(
                "the request body did not arrive whole within {} s",
                BODY_TIMEOUT.as_secs()
            ),
        );
    };
    let bytes = match read {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return too_large(None, &front);
        }
        Err(error) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                -32700,
                &format!("the request body could not be read: {error}"),
            );
        }
    };
    match transport::parse_line(&bytes) {
        Incoming::Call(message, args) => {
            if let (Some(auth), Some(principal)) =
                (&front.auth, parts.extensions.get::<Principal>())
                && let Some(refused) = lacks_scopes(&front.ctx, auth, principal, &message)
            {
                return refused;
            }
            let meta = call_meta(&message);
            let key = session_named(&parts.headers, meta).unwrap_or_default();
            let ticket = Arc::new(front.arrivals(key).ticket());
            parts.extensions.insert(RawCall { args, ticket });
            match serde_json::to_vec(&message) {
                Ok(body) => next.run(Request::from_parts(parts, Body::from(body))).await,
                Err(error) => jsonrpc_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    -32603,
                    &error.to_string(),
                ),
            }
        }
        Incoming::Answer(message) => match serde_json::to_string(&message) {
            Ok(text) => json_response(StatusCode::BAD_REQUEST, text),
            Err(error) => jsonrpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                -32603,
                &error.to_string(),
            ),
        },
        Incoming::RawAnswer(text) => json_response(StatusCode::BAD_REQUEST, text),
        // Over stdio a line without an id is passed over; a POST is answered all the same.
        Incoming::Skip(reason) => {
            let parses = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok();
            let (code, kind) = if parses {
                (-32600, "invalid request")
            } else {
                (-32700, "parse error")
            };
            jsonrpc_error(StatusCode::BAD_REQUEST, code, &format!("{kind}: {reason}"))
        }
        Incoming::Ignore if bytes.trim_ascii().is_empty() => jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32700,
            "parse error: the request body is empty",
        ),
        Incoming::Message(message) => {
            let initialize = matches!(
                &message,
                ClientJsonRpcMessage::Request(request)
                    if matches!(request.request, ClientRequest::InitializeRequest(_))
            );
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            // A session begun by a caller whose token was checked is its caller's.
            match (
                initialize,
                principal,
                response.headers().get("mcp-session-id"),
            ) {
                (true, Some(principal), Some(id)) => {
                    let id = String::from_utf8_lossy(id.as_bytes()).into_owned();
                    match front.own(&id, &principal).await {
                        Ok(()) => response,
                        Err(error) => {
                            crate::note!("mcp: session {id}: {error}");
                            jsonrpc_error(
                                StatusCode::INTERNAL_SERVER_ERROR,
                                -32603,
                                "the session's owner could not be recorded",
                            )
                        }
                    }
                }
                _ => response,
            }
        }
        Incoming::Ignore => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// The `403` of a call whose tool needs scopes the caller's token does not grant (checked
/// before its arguments are read), with the challenge that lets a client ask for them.
fn lacks_scopes(
    ctx: &tool_runtime::Ctx,
    auth: &Auth,
    principal: &Principal,
    message: &ClientJsonRpcMessage,
) -> Option<Response> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::CallToolRequest(call) = &request.request else {
        return None;
    };
    let tool = ctx.tools.get(&call.params.name)?;
    let needed: Vec<&str> = tool.definition().scopes().collect();
    if needed.iter().all(|scope| principal.has_scope(scope)) {
        return None;
    }
    let scopes = needed.join(" ");
    let message = format!(
        "forbidden: calling {} needs the scope {scopes}, which the token does not grant",
        tool_runtime::text::quote(&call.params.name)
    );
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": request.id,
        "error": {"code": -32003, "message": message},
    });
    let mut response = json_response(StatusCode::FORBIDDEN, body.to_string());
    if let Ok(value) = HeaderValue::from_str(&auth.insufficient_scope(&scopes)) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    Some(response)
}

/// What rmcp answers for a session it does not hold, to the byte.
fn session_not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

fn call_meta(message: &ClientJsonRpcMessage) -> Option<&RequestMetaObject> {
    match message {
        ClientJsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::CallToolRequest(call) => call.params.meta.as_ref(),
            _ => None,
        },
        _ => None,
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        })
}

fn too_large(length: Option<u64>, front: &Front) -> Response {
    let size = match length {
        Some(length) => format!("the request body is {length} bytes, more than"),
        None => "the request body is more than".to_owned(),
    };
    jsonrpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!(
            "{size} the limit of {} bytes for one message; arguments may be {} bytes \
             (--max-args-bytes)",
            front.max_body, front.max_args_bytes
        ),
    )
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    json_response(status, body.to_string())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

impl McpServer {
    /// A server whose calls go to the agent sessions of `sessions`, one per MCP session or as
    /// each stateless request names (see [`http`](self)).
    pub fn for_http(
        ctx: Arc<tool_runtime::Ctx>,
        sessions: HttpSessions,
    ) -> Result<Self, HostError> {
        let mut server = McpServer::new(ctx, Agent::new("unused", Session::in_memory()))?;
        server.agents = super::Agents::PerRequest(Arc::new(sessions));
        Ok(server)
    }

    /// Serves Streamable HTTP on `listener` at the options' path until `stop` resolves, then
    /// stops as the [module](self) says.
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HostError> {
        let local = listener.local_addr()?;
        options.may_serve(local)?;
        let auth = if options.auth.enabled() {
            let auth_options = options.auth.clone();
            let resource = format!("http://{local}{}", options.path);
            let built = tokio::task::spawn_blocking(move || Auth::new(&auth_options, resource))
                .await
                .map_err(|error| HostError::Mcp(error.to_string()))??;
            Some(Arc::new(built))
        } else {
            None
        };
        let sessions = match &self.agents {
            super::Agents::PerRequest(sessions) => Arc::clone(sessions),
            super::Agents::One(_) => {
                return Err(HostError::Mcp(
                    "serve_http needs a server made by McpServer::for_http".into(),
                ));
            }
        };
        let max_args_bytes = self.ctx.tools.max_args_bytes();
        let max_body = max_args_bytes.saturating_add(transport::MAX_LINE_BYTES_OVER_ARGS);
        let closing = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(allowed_hosts(local, &options))
            .with_allowed_origins(allowed_origins(&options))
            .enforce_origin_validation()
            .with_max_request_body_bytes(max_body)
            // A call answered at once comes back as JSON; one that reports progress first, as
            // an SSE stream of its notifications and then its result.
            .with_json_response(true)
            .with_cancellation_token(closing.clone());
        config.session_store = Some(Arc::new(McpSessions(Arc::clone(&sessions))));
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(IDLE_SESSION);
        let calls = self.calls.clone();
        let factory = self.clone();
        let service =
            StreamableHttpService::new(move || Ok(factory.clone()), Arc::new(manager), config);
        let front_state = Arc::new(Front {
            max_body,
            max_args_bytes,
            arrivals: Mutex::new(HashMap::new()),
            ctx: Arc::clone(&self.ctx),
            auth: auth.clone(),
            sessions: Arc::clone(&sessions),
            owners: Mutex::new(HashMap::new()),
        });
        let mut app = axum::Router::new()
            .route_service(&options.path, service)
            .layer(axum::middleware::from_fn_with_state(front_state, front));
        if let Some(auth) = auth {
            // Who calls is checked before anything of the request is read.
            app = app.layer(axum::middleware::from_fn_with_state(
                Arc::clone(&auth),
                super::auth::authorize,
            ));
            for path in auth.metadata_paths() {
                app = app.route(
                    &path,
                    axum::routing::get(super::auth::metadata).with_state(Arc::clone(&auth)),
                );
            }
        }
        let accepting = CancellationToken::new();
        let served = tokio::spawn(accept(listener, app, accepting.clone()));
        stop.await;
        crate::note!("{} mcp: stopping", self.name);
        accepting.cancel();
        calls.tracker.close();
        if tokio::time::timeout(options.grace, calls.tracker.wait())
            .await
            .is_err()
        {
            crate::note!(
                "{} mcp: {} calls still running after {:?}: cancelled",
                self.name,
                calls.tracker.len(),
                options.grace
            );
            calls.cancel.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(5), calls.tracker.wait()).await;
        }
        // Every answer is written; the sessions' streams end.
        tokio::time::sleep(Duration::from_millis(50)).await;
        closing.cancel();
        match tokio::time::timeout(Duration::from_secs(5), served).await {
            Ok(Err(error)) => Err(HostError::Mcp(format!("the HTTP server failed: {error}"))),
            Ok(Ok(())) | Err(_) => Ok(()),
        }
    }
}

/// Serves HTTP/1.1 connections of `listener` with `app` until `stop`, then lets each finish the
/// request it is answering. A connection that has not sent a request's whole head within
/// [`HEAD_TIMEOUT`] is closed, so clients that stall (slowloris) hold nothing for long.
async fn accept(listener: tokio::net::TcpListener, app: axum::Router, stop: CancellationToken) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, say: a pause, then the next.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(connection);
    }
    drop(listener);
    graceful.shutdown().await;
}

fn allowed_hosts(local: SocketAddr, options: &HttpOptions) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    let ip = local.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(ip.to_string());
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    hosts
}

fn allowed_origins(options: &HttpOptions) -> Vec<String> {
    let mut origins: Vec<String> = [
        "http://localhost:*",
        "http://127.0.0.1:*",
        "http://[::1]:*",
        "https://localhost:*",
        "https://127.0.0.1:*",
        "https://[::1]:*",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    origins.extend(options.allowed_origins.iter().cloned());
    origins
}

/// The address `--http` names: `PORT` (on 127.0.0.1), `HOST:PORT` with an IP, or
/// `localhost:PORT`.
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse::<SocketAddr>().map_err(|_| {
        format!(
            "{}: give PORT, IP:PORT ([IPv6]:PORT) or localhost:PORT",
            tool_runtime::text::neutralize(text)
        )
    })
}

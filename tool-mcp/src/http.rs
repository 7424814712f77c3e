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
//!   name is 1 to 128 ASCII letters, digits, `.`, `_` or `-`, not starting with `.`. A request
//!   that names none is served on its own: a tool that takes no session (no [`Agent`] among its
//!   parameters) runs without one; one that does runs in a session the server begins, named
//!   `m-` and 32 random hex digits, and the result's `_meta` member `agentSession` carries that
//!   name, for a client that wants its next call to continue the session.
//!
//! [`Agent`]: tool_runtime::Agent
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

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tool_runtime::{Agent, Session};

use crate::auth::{Auth, AuthOptions};
use crate::error::McpError;
pub use crate::front::BODY_TIMEOUT;
use crate::front::{Front, front};
use crate::server::McpServer;
pub use crate::sessions::{
    ENDED_EVENT, HttpSessions, KEPT_SESSIONS, LEASE_WAIT, OPEN_FILES, SESSION_EVENT,
    SESSION_HEADER, SESSION_META,
};
use crate::sessions::{IDLE_SESSION, McpSessions};
use crate::transport::{self};
pub use tool_runtime::{OWNER_EVENT, Owner};

/// How long a connection may take to send a request's head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

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
    pub fn may_serve(&self, addr: SocketAddr) -> Result<(), McpError> {
        // A tokens file open to others is refused before anything is served.
        if let Some(file) = &self.auth.tokens {
            crate::auth::check_tokens_file(file, self.auth.tokens_readable_by_others)?;
        }
        if addr.ip().is_loopback() || self.auth.enabled() {
            return Ok(());
        }
        Err(McpError::Input(format!(
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

impl McpServer {
    /// A server whose calls go to the agent sessions of `sessions`, one per MCP session or as
    /// each stateless request names (see [`http`](self)).
    pub fn for_http(ctx: Arc<tool_runtime::Ctx>, sessions: HttpSessions) -> Result<Self, McpError> {
        let mut server = McpServer::new(ctx, Agent::new("unused", Session::in_memory()))?;
        let sessions = Arc::new(sessions);
        // Tasks are kept where the sessions are: any replica answers for them.
        server.tasks = crate::tasks::Tasks::new(crate::tasks::Logs::store(Arc::clone(&sessions)));
        server.agents = crate::server::Agents::PerRequest(sessions);
        Ok(server)
    }

    /// Serves Streamable HTTP on `listener` at the options' path until `stop` resolves, then
    /// stops as the [module](self) says.
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let local = listener.local_addr()?;
        options.may_serve(local)?;
        let auth = if options.auth.enabled() {
            let mut auth_options = options.auth.clone();
            // The scopes the metadata names: those given, then every one a tool asks for.
            for definition in self.ctx.tools.definitions() {
                for scope in definition.scopes() {
                    if !auth_options.scopes.iter().any(|known| known == scope) {
                        auth_options.scopes.push(scope.to_owned());
                    }
                }
            }
            let resource = format!("http://{local}{}", options.path);
            let built = tokio::task::spawn_blocking(move || Auth::new(&auth_options, resource))
                .await
                .map_err(|error| McpError::Protocol(error.to_string()))??;
            Some(Arc::new(built))
        } else {
            None
        };
        let sessions = match &self.agents {
            crate::server::Agents::PerRequest(sessions) => Arc::clone(sessions),
            crate::server::Agents::One(_) => {
                return Err(McpError::Protocol(
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
        let service = StreamableHttpService::new(
            move || Ok(factory.for_session()),
            Arc::new(manager),
            config,
        );
        let front_state = Arc::new(Front {
            max_body,
            max_args_bytes,
            arrivals: Mutex::new(HashMap::new()),
            ctx: Arc::clone(&self.ctx),
            auth: auth.clone(),
            sessions: Arc::clone(&sessions),
            owners: Mutex::new(HashMap::new()),
            mirrored: self.with_headers.keys().cloned().collect(),
        });
        let mut app = axum::Router::new()
            .route_service(&options.path, service)
            .layer(axum::middleware::from_fn_with_state(front_state, front));
        if let Some(auth) = auth {
            // Who calls is checked before anything of the request is read.
            app = app.layer(axum::middleware::from_fn_with_state(
                Arc::clone(&auth),
                crate::auth::authorize,
            ));
            for path in auth.metadata_paths() {
                app = app.route(
                    &path,
                    axum::routing::get(crate::auth::metadata).with_state(Arc::clone(&auth)),
                );
            }
        }
        let accepting = CancellationToken::new();
        let served = tokio::spawn(accept(listener, app, accepting.clone()));
        stop.await;
        tool_runtime::text::note!("{} mcp: stopping", self.name);
        accepting.cancel();
        calls.tracker.close();
        if tokio::time::timeout(options.grace, calls.tracker.wait())
            .await
            .is_err()
        {
            tool_runtime::text::note!(
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
            Ok(Err(error)) => Err(McpError::Protocol(format!(
                "the HTTP server failed: {error}"
            ))),
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

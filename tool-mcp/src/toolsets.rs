//! Other MCP servers' tools in an agent loop: each server a toolset, its tools runtime-defined
//! tools of this framework.
//!
//! A [`McpServer`] is a command to start (its MCP on the child's standard input and output) or a
//! Streamable HTTP endpoint (with a bearer token read from the environment). [`Toolsets::connect`]
//! starts or reaches each one on rmcp's client and lists its tools; each becomes a
//! [`DynamicTool`], so:
//!
//! - its `inputSchema` is enforced here, before a call leaves: a model's malformed call never
//!   reaches the server, and the model reads the texts it reads for the host's own tools
//!   (`Error: invalid arguments: todos[0].status: …`). References to the schema's own `$defs`
//!   (pydantic writes every nested model so) are inlined. A schema this framework cannot enforce
//!   exactly (a keyword it does not check, a recursive type) is not offered: it is listed in
//!   [`Toolsets::skipped`], naming the tool and the construct — unless the server is
//!   [`McpServer::unchecked`], whose such tools are offered with their schema as written and
//!   their calls checked by the server alone.
//! - its results come back as the tool's outputs: text, structured content (as data), images
//!   (as images), embedded text resources (as text), and `isError` as an error result.
//! - a call runs at most [`McpServer::timeout`] (2 minutes by default): past it the call answers
//!   that it timed out and the server is told to cancel it. A server that exits or drops its
//!   connection makes its tools answer `Error: the MCP server … is not reachable`, at once, and
//!   the run goes on.
//! - a server's `notifications/tools/list_changed` marks its set changed; [`Toolsets::update`]
//!   (between an agent loop's turns) lists it again and gives the new whole set.
//!
//! Per server: a prefix for its tools' names (two servers with a tool of one name, or a tool
//! named as one of the host's), and allow and deny lists of its tools' names (as the server
//! names them).
//!
//! ```no_run
//! use std::time::Duration;
//! use tool_mcp::toolsets::{McpServer, Toolsets};
//!
//! let servers = vec![
//!     McpServer::command("python3 files_server.py --root .")?
//!         .prefix("files_")
//!         .deny(["delete_file"]),
//!     McpServer::http("https://tools.example.com/mcp")
//!         .bearer_env("TOOLS_TOKEN")?
//!         .timeout(Duration::from_secs(30)),
//! ];
//! let toolsets = Toolsets::connect(servers)?;
//! for skipped in toolsets.skipped() {
//!     eprintln!("{skipped}");
//! }
//! let mut ctx = tool_runtime::Ctx::new();
//! ctx.plugin::<tool_todo::TodoWrite>()?;
//! let tools = toolsets.registry(&ctx.tools)?; // the host's tools and the servers'
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `toolhost agent --mcp 'CMD ARGS…' --mcp https://… ` runs this for the agent's loop.

use crate::lock::lock;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::oauth::http_client;
pub use crate::oauth::{AUTHORIZE_TIMEOUT, IdentityProvider, OAuth, OAuthError};
use base64::Engine as _;
use base64::prelude::BASE64_STANDARD;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ContentBlock,
    Implementation, ProtocolVersion, ResourceContents,
};
use rmcp::service::ClientLifecycleMode;
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt, service::ClientServiceExt};
use serde_json::Value;
use tool_runtime::{
    Annotations, Call, DynamicTool, Image, LoadError, Tool, ToolOutput, ToolRegistry,
};

/// How long a call to another server's tool may run unless its server says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a server may take to start, answer `initialize` and list its tools.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// An MCP server whose tools an agent may call, and how: see the [module](self).
#[derive(Clone)]
pub struct McpServer {
    endpoint: Endpoint,
    oauth: Option<OAuth>,
    prefix: String,
    allow: Option<Vec<String>>,
    deny: Vec<String>,
    timeout: Duration,
    unchecked: bool,
    defer: Defer,
}

/// Whether a server's tools are deferred: kept out of a model's requests until a search of the
/// model's finds them (see `tool_agent::search`), which keeps a server of many tools from
/// costing every request their definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Defer {
    /// When the server offers more tools than this (the default: [`DEFER_PAST`]).
    Past(usize),
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How many tools a server offers at most before they are deferred, by default.
pub const DEFER_PAST: usize = 20;

impl Defer {
    /// Whether a server offering `offered` tools has them deferred.
    pub fn applies(self, offered: usize) -> bool {
        match self {
            Defer::Past(most) => offered > most,
            Defer::Always => true,
            Defer::Never => false,
        }
    }
}

impl Default for Defer {
    fn default() -> Self {
        Defer::Past(DEFER_PAST)
    }
}

impl std::str::FromStr for Defer {
    type Err = String;

    /// `always`, `never`, or a number of tools: deferred past it.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "always" => Ok(Defer::Always),
            "never" => Ok(Defer::Never),
            _ => text.parse().map(Defer::Past).map_err(|_| {
                format!(
                    "{} is not `always`, `never` or a number of tools",
                    tool_runtime::text::quote(text)
                )
            }),
        }
    }
}

#[derive(Clone)]
enum Endpoint {
    Command { program: String, args: Vec<String> },
    Http { url: String, bearer: Option<String> },
}

impl McpServer {
    /// A server started as `command` (split into words as a POSIX shell splits them, quotes
    /// kept: `python3 server.py --root 'my files'`), speaking MCP on its standard input and
    /// output; its standard error is this process's.
    pub fn command(command: &str) -> Result<Self, ToolsetError> {
        let words = shlex::split(command)
            .filter(|words| !words.is_empty())
            .ok_or_else(|| {
                ToolsetError::Usage(format!(
                    "{} is not a command: a program and its arguments, quoted as a shell quotes \
                     them",
                    tool_runtime::text::quote(command)
                ))
            })?;
        let mut words = words.into_iter();
        let program = words.next().unwrap_or_default();
        Ok(McpServer::of(Endpoint::Command {
            program,
            args: words.collect(),
        }))
    }

    /// A server at a Streamable HTTP endpoint (`https://…/mcp`). A redirect is not followed.
    pub fn http(url: impl Into<String>) -> Self {
        McpServer::of(Endpoint::Http {
            url: url.into(),
            bearer: None,
        })
    }

    /// `spec` as `toolhost agent --mcp` reads it: an `http://` or `https://` URL, or else a
    /// command.
    pub fn parse(spec: &str) -> Result<Self, ToolsetError> {
        let lower = spec.trim_start().to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            // Credentials in the URL would be shown and kept wherever the URL is (a session
            // records a run's servers): a token comes from the environment or OAuth.
            let url = reqwest::Url::parse(spec.trim()).map_err(|error| {
                ToolsetError::Usage(format!("the MCP server `{}`: {error}", spec.trim()))
            })?;
            if !url.username().is_empty() || url.password().is_some() {
                return Err(ToolsetError::Usage(format!(
                    "the MCP server URL {}://…@{} carries credentials (`user:password@`): give a \
                     token in the environment (`--mcp-bearer-env`) or authorize with OAuth",
                    url.scheme(),
                    url.host_str().unwrap_or_default()
                )));
            }
            Ok(McpServer::http(spec.trim()))
        } else {
            McpServer::command(spec)
        }
    }

    fn of(endpoint: Endpoint) -> Self {
        McpServer {
            endpoint,
            oauth: None,
            prefix: String::new(),
            allow: None,
            deny: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            unchecked: false,
            defer: Defer::default(),
        }
    }

    /// Sends `Authorization: Bearer <token>` to an HTTP server, the token read now from the
    /// environment variable `var` (never from the command line, where other users can read
    /// it). A command server takes no token: an error.
    pub fn bearer_env(mut self, var: &str) -> Result<Self, ToolsetError> {
        let Endpoint::Http { bearer, .. } = &mut self.endpoint else {
            return Err(ToolsetError::Usage(format!(
                "a bearer token is for an HTTP server; the command `{}` gets its secrets from its \
                 environment",
                self.label()
            )));
        };
        match std::env::var(var) {
            Ok(token) if !token.trim().is_empty() => {
                *bearer = Some(token.trim().to_owned());
                Ok(self)
            }
            _ => Err(ToolsetError::Usage(format!(
                "the environment variable {var} holds no token (for the MCP server {})",
                self.label()
            ))),
        }
    }

    /// Each of the server's tools is offered as `prefix` followed by its name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Only these of the server's tools (as the server names them) are offered.
    pub fn allow<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// These of the server's tools (as the server names them) are not offered.
    pub fn deny<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.deny.extend(names.into_iter().map(Into::into));
        self
    }

    /// How long one call may run (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether the server's tools are deferred (by default, past [`DEFER_PAST`] of them).
    pub fn defer(mut self, defer: Defer) -> Self {
        self.defer = defer;
        self
    }

    /// Offers the tools whose schema this framework cannot enforce exactly too, with their
    /// schema as the server wrote it; their calls are checked to be JSON objects here and
    /// everything else is left to the server. Their entries in [`Toolsets::skipped`] say so.
    pub fn unchecked(mut self) -> Self {
        self.unchecked = true;
        self
    }

    /// The same HTTP server, reached as an OAuth client when it asks for a token (`401`, MCP's
    /// authorization): its authorization server is found from the server's protected-resource
    /// metadata, the client registered (or named by its metadata document, or pre-registered),
    /// the person authorizes it through [`OAuth`]'s authorize step, and the token is refreshed
    /// and its scope stepped up as the server asks.
    pub fn oauth(mut self, oauth: OAuth) -> Result<Self, ToolsetError> {
        if let Endpoint::Command { .. } = self.endpoint {
            return Err(ToolsetError::Usage(format!(
                "OAuth is for an HTTP server; the command `{}` gets its secrets from its \
                 environment",
                self.label()
            )));
        }
        self.oauth = Some(oauth);
        Ok(self)
    }

    /// How the server is named in notes and errors: its URL, or its command.
    pub fn label(&self) -> String {
        match &self.endpoint {
            Endpoint::Http { url, .. } => url.clone(),
            Endpoint::Command { program, args } => std::iter::once(program)
                .chain(args)
                .map(|word| shlex::try_quote(word).map_or_else(|_| word.clone(), |q| q.into()))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn offers(&self, name: &str) -> bool {
        self.allow
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|allowed| allowed == name))
            && !self.deny.iter().any(|denied| denied == name)
    }
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The bearer token is never shown.
        f.debug_struct("McpServer")
            .field("server", &self.label())
            .field("prefix", &self.prefix)
            .field("allow", &self.allow)
            .field("deny", &self.deny)
            .field("timeout", &self.timeout)
            .field("unchecked", &self.unchecked)
            .finish()
    }
}

/// Why the servers' tools could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsetError {
    /// A server was described wrong: a command that cannot be split, a token variable unset.
    #[error("{0}")]
    Usage(String),
    /// A server could not be started or reached, or did not list its tools.
    #[error("the MCP server {server} {reason}")]
    Connect {
        /// The server ([`McpServer::label`]).
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// A server's [deny](McpServer::deny) list names tools the server does not have (an
    /// [allow](McpServer::allow) list's such names are [skipped](Toolsets::skipped)).
    #[error(
        "the MCP server {server} has no tool named {}, which its deny list names; its tools are: \
         {}",
        names.join(", "),
        if tools.is_empty() { "none".to_owned() } else { tools.join(", ") }
    )]
    NoSuchTools {
        /// The server, as it names itself or as it was given.
        server: String,
        /// The names it does not have.
        names: Vec<String>,
        /// The tools it has, as it names them.
        tools: Vec<String>,
    },
}

/// A tool of a server that is not offered, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The server ([`McpServer::label`]).
    pub server: String,
    /// The tool, as the server names it.
    pub tool: String,
    /// Why: the construct its schema uses that cannot be enforced, or a name a model cannot
    /// call. For a tool offered unchecked, what is left to the server.
    pub reason: String,
    /// Whether the tool is offered all the same ([`McpServer::unchecked`]).
    pub offered: bool,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offered {
            write!(
                f,
                "the tool `{}` of the MCP server {} is offered unchecked: {}; its arguments are \
                 checked by the server alone",
                self.tool, self.server, self.reason
            )
        } else {
            write!(
                f,
                "the tool `{}` of the MCP server {} is not offered: {}",
                self.tool, self.server, self.reason
            )
        }
    }
}

/// The connected servers and their tools: see the [module](self). Dropping it ends every
/// connection (a command server's process is killed).
pub struct Toolsets {
    runtime: tokio::runtime::Runtime,
    servers: Vec<Connected>,
}

struct Connected {
    spec: McpServer,
    label: Arc<str>,
    service: RunningService<RoleClient, Listener>,
    changed: Arc<AtomicBool>,
    tools: Vec<Arc<DynamicTool>>,
    skipped: Vec<Skipped>,
}

/// The client's side of a connection: it hears that the server's tools changed, and answers
/// the forms the server asks for in the `initialize` era.
#[derive(Clone)]
struct Listener {
    changed: Arc<AtomicBool>,
    info: ClientConfig,
    in_flight: Arc<InFlight>,
}

/// The forwarded calls in flight on a connection, by whoever their own questions go to.
#[derive(Default)]
struct InFlight {
    next: std::sync::atomic::AtomicU64,
    askers: std::sync::Mutex<Vec<(u64, Arc<dyn tool_runtime::Asker>)>>,
    /// How the connection authorizes itself again, when it was authorized.
    reauth: std::sync::OnceLock<Reauth>,
}

/// A connection's OAuth, for authorizing again while it runs.
struct Reauth {
    /// The token's manager, shared with the connection's HTTP client.
    manager: Arc<tokio::sync::Mutex<rmcp::transport::AuthorizationManager>>,
    oauth: OAuth,
    url: String,
    /// The connection's DPoP key, shared with its HTTP client.
    dpop: Arc<crate::dpop::Dpop>,
}

impl Reauth {
    /// Authorizes again after `error`, when it is the server asking for it: a scope that falls
    /// short (`403`, `insufficient_scope`) is stepped up to the union of the scopes held and
    /// asked for; a token no longer taken (`401`: another authorization server, say) is
    /// replaced by a new authorization from the start. `None` when `error` is no such thing.
    async fn after(&self, error: &ServiceError) -> Option<Result<(), String>> {
        use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
        let ServiceError::TransportSend(sent) = error else {
            return None;
        };
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(sent.error.as_ref());
        while let Some(current) = source {
            if let Some(short) = current.downcast_ref::<InsufficientScopeError>() {
                let scope = short.required_scope.clone().unwrap_or_default();
                return Some(self.step_up(&scope).await);
            }
            if let Some(required) = current.downcast_ref::<AuthRequiredError>() {
                let challenge = required.www_authenticate_header.clone();
                return Some(
                    match self
                        .oauth
                        .authorize(&self.url, &challenge, &self.dpop)
                        .await
                    {
                        Ok(manager) => {
                            *self.manager.lock().await = manager;
                            Ok(())
                        }
                        Err(reason) => Err(reason),
                    },
                );
            }
            source = current.source();
        }
        None
    }

    async fn step_up(&self, scope: &str) -> Result<(), String> {
        let text = |error: rmcp::transport::AuthError| error.to_string();
        let url = self
            .manager
            .lock()
            .await
            .request_scope_upgrade(scope)
            .await
            .map_err(text)?;
        let callback = self.oauth.person(url).await?;
        self.manager
            .lock()
            .await
            .exchange_code_for_token_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(text)?;
        Ok(())
    }
}

impl InFlight {
    /// Keeps `asker` while the call it belongs to is in flight.
    fn enter(self: &Arc<Self>, asker: Arc<dyn tool_runtime::Asker>) -> Entered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        lock(&self.askers).push((id, asker));
        Entered(Arc::clone(self), id)
    }

    /// Whoever the one call in flight asks; none when there are several, as which of them a
    /// server's request (of the `initialize` era) belongs to is not said.
    fn only(&self) -> Option<Arc<dyn tool_runtime::Asker>> {
        match lock(&self.askers).as_slice() {
            [(_, asker)] => Some(Arc::clone(asker)),
            _ => None,
        }
    }
}

/// A call's place among those in flight, given up when dropped.
struct Entered(Arc<InFlight>, u64);

impl Drop for Entered {
    fn drop(&mut self) {
        lock(&self.0.askers).retain(|(id, _)| *id != self.1);
    }
}

impl ClientHandler for Listener {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.changed.store(true, Ordering::Release);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    /// A form the server asks for (the `initialize` era): asked of whoever the forwarded call
    /// in flight asks, declined where that is no one, or not one call.
    fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<rmcp::model::ElicitResult, rmcp::ErrorData>> + Send + '_ {
        let asker = self.in_flight.only();
        async move {
            let declined = || {
                serde_json::from_value(serde_json::json!({"action": "decline"}))
                    .map_err(|error| rmcp::ErrorData::internal_error(error.to_string(), None))
            };
            let Ok(params) = serde_json::to_value(&request) else {
                return declined();
            };
            let wire = serde_json::json!({"method": "elicitation/create", "params": params});
            let Ok(request) = serde_json::from_value::<rmcp::model::InputRequest>(wire) else {
                return declined();
            };
            match answer("form", &request, asker.as_deref()).await {
                Ok(answer) => serde_json::from_value(answer)
                    .map_err(|error| rmcp::ErrorData::internal_error(error.to_string(), None)),
                Err(_) => declined(),
            }
        }
    }
}

impl Toolsets {
    /// Starts or reaches every server (all at once, each within [`CONNECT_TIMEOUT`]) and lists
    /// its tools. The first server that cannot be had is the error; nothing is left running.
    pub fn connect(servers: Vec<McpServer>) -> Result<Self, ToolsetError> {
        Toolsets::connect_as(servers, "toolhost", env!("CARGO_PKG_VERSION"))
    }

    /// [`Toolsets::connect`], the client introducing itself to the servers as `name` `version`
    /// (a host's own name).
    pub fn connect_as(
        servers: Vec<McpServer>,
        name: &str,
        version: &str,
    ) -> Result<Self, ToolsetError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mcp-client")
            .enable_all()
            .build()
            .map_err(|error| ToolsetError::Connect {
                server: "(none)".to_owned(),
                reason: format!("could not be reached: no async runtime: {error}"),
            })?;
        // Forms are answered: in the stateless era by whoever the forwarded call's own questions
        // go to (a person, an upstream client), declined where no one is; in the `initialize`
        // era declined.
        let mut capabilities = rmcp::model::ClientCapabilities::default();
        let mut elicitation = rmcp::model::ElicitationCapability::default();
        elicitation.form = Some(Default::default());
        capabilities.elicitation = Some(elicitation);
        let info = ClientConfig::new(capabilities, Implementation::new(name, version));
        let handle = runtime.handle().clone();
        let connected = runtime.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for (index, spec) in servers.into_iter().enumerate() {
                let info = info.clone();
                let handle = handle.clone();
                tasks.spawn(async move { (index, connect(spec, info, handle).await) });
            }
            let mut connected = Vec::new();
            while let Some(joined) = tasks.join_next().await {
                let (index, result) = joined.map_err(|error| ToolsetError::Connect {
                    server: "(unknown)".to_owned(),
                    reason: format!("could not be reached: {error}"),
                })?;
                connected.push((index, result?));
            }
            connected.sort_by_key(|(index, _)| *index);
            Ok::<_, ToolsetError>(connected.into_iter().map(|(_, server)| server).collect())
        })?;
        Ok(Toolsets {
            runtime,
            servers: connected,
        })
    }

    /// The tools of the servers that are not offered, and the ones offered unchecked, with why.
    pub fn skipped(&self) -> impl Iterator<Item = &Skipped> {
        self.servers.iter().flat_map(|server| &server.skipped)
    }

    /// The names of the tools offered, server by server, in the servers' order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers
            .iter()
            .flat_map(|server| &server.tools)
            .map(|tool| tool.definition().name())
    }

    /// `base`'s tools (shared, not copied) and, after them, every server's: two of one name are
    /// refused with both origins named (a [`McpServer::prefix`] tells them apart).
    pub fn registry(&self, base: &ToolRegistry) -> Result<ToolRegistry, LoadError> {
        let mut registry = base.clone();
        for tool in self.servers.iter().flat_map(|server| &server.tools) {
            registry.register(Arc::clone(tool))?;
        }
        Ok(registry)
    }

    /// Lists again the tools of each server that said its tools changed since they were last
    /// listed, and returns the new whole set on `base` when any did (`None` when none did). A
    /// server that cannot list them keeps its last set; the error is returned beside the set.
    pub fn update(
        &mut self,
        base: &ToolRegistry,
    ) -> Option<(Result<ToolRegistry, LoadError>, Vec<ToolsetError>)> {
        let handle = self.runtime.handle().clone();
        let mut errors = Vec::new();
        let mut any = false;
        for server in &mut self.servers {
            if !server.changed.swap(false, Ordering::AcqRel) {
                continue;
            }
            any = true;
            let peer = server.service.peer().clone();
            let in_flight = Arc::clone(&server.service.service().in_flight);
            let listed = self.runtime.block_on(async {
                tokio::time::timeout(
                    CONNECT_TIMEOUT,
                    list(&server.spec, &server.label, &peer, &handle, &in_flight),
                )
                .await
            });
            match listed {
                Ok(Ok((tools, skipped, _))) => {
                    server.tools = tools;
                    server.skipped = skipped;
                }
                Ok(Err(error)) => errors.push(error),
                Err(_) => errors.push(ToolsetError::Connect {
                    server: server.label.to_string(),
                    reason: format!(
                        "did not list its changed tools within {} s",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                }),
            }
        }
        any.then(|| (self.registry(base), errors))
    }
}

impl fmt::Debug for Toolsets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.servers.iter().map(|server| &server.spec))
            .finish()
    }
}

/// How long closing the connections may take when the toolsets are dropped: a command server
/// gets 3 s to exit once its input is closed, and 3 s more after SIGTERM (rmcp's shutdown).
const CLOSE_TIMEOUT: Duration = Duration::from_secs(8);

impl Drop for Toolsets {
    /// Closes every connection as MCP's shutdown says: a command server's input is closed and
    /// its exit waited for (then SIGTERM, then SIGKILL), so it ends as it chooses, its own
    /// telemetry sent and its session let go; the servers are closed at once, not one by one.
    fn drop(&mut self) {
        let servers = std::mem::take(&mut self.servers);
        if tokio::runtime::Handle::try_current().is_ok() {
            // Dropped inside an async runtime, where this one cannot be waited on: the
            // connections are cancelled, and their servers killed when the runtime stops.
            for server in &servers {
                server.service.cancellation_token().cancel();
            }
            return;
        }
        self.runtime.block_on(async move {
            let mut closing = tokio::task::JoinSet::new();
            for mut server in servers {
                closing.spawn(async move {
                    let _ = server.service.close_with_timeout(CLOSE_TIMEOUT).await;
                });
            }
            while closing.join_next().await.is_some() {}
        });
    }
}

async fn connect(
    spec: McpServer,
    info: ClientConfig,
    handle: tokio::runtime::Handle,
) -> Result<Connected, ToolsetError> {
    let label: Arc<str> = spec.label().into();
    let failed = |reason: String| ToolsetError::Connect {
        server: label.to_string(),
        reason,
    };
    let changed = Arc::new(AtomicBool::new(false));
    let in_flight = Arc::new(InFlight::default());
    let listener = Listener {
        changed: Arc::clone(&changed),
        info,
        in_flight: Arc::clone(&in_flight),
    };
    let started = async {
        match &spec.endpoint {
            Endpoint::Command { program, args } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                let transport = TokioChildProcess::new(command)
                    .map_err(|error| failed(format!("could not be started: {error}")))?;
                listener
                    .serve(transport)
                    .await
                    .map_err(|error| failed(format!("did not start MCP: {}", plain(&error))))
            }
            Endpoint::Http { url, bearer } => {
                let client = http_client()
                    .map_err(|error| failed(format!("could not be reached: {error}")))?;
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.auth_header = bearer.clone();
                let transport =
                    StreamableHttpClientTransport::with_client(client.clone(), config.clone());
                // The stateless era (2026-07-28: `server/discover`, each request carrying its
                // own `_meta`) where the server speaks it, else `initialize`.
                let lifecycle = ClientLifecycleMode::Auto {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    legacy_version: None,
                };
                match listener
                    .clone()
                    .serve_with_lifecycle(transport, lifecycle.clone())
                    .await
                {
                    Ok(service) => Ok(service),
                    // A server that asks for a token, of a toolset that can get one: the person
                    // authorizes, and the connection starts again with the token.
                    Err(error) if error.auth_challenge().is_some() && spec.oauth.is_some() => {
                        let challenge = error.auth_challenge().unwrap_or_default().to_owned();
                        let oauth = spec.oauth.as_ref().expect("checked above");
                        let could_not =
                            |reason| failed(format!("could not be authorized: {reason}"));
                        let dpop = Arc::new(crate::dpop::Dpop::new().map_err(could_not)?);
                        let manager = oauth
                            .authorize(url, &challenge, &dpop)
                            .await
                            .map_err(could_not)?;
                        // A token bound to the connection's key goes with a proof of it.
                        let proving = crate::dpop::Proving {
                            http: client,
                            dpop: Arc::clone(&dpop),
                        };
                        let authorized = rmcp::transport::AuthClient::new(proving, manager);
                        // Kept for the calls: a token whose scope falls short, or that the
                        // server stops taking, is authorized again.
                        let _ = in_flight.reauth.set(Reauth {
                            manager: Arc::clone(&authorized.auth_manager),
                            oauth: oauth.clone(),
                            url: url.clone(),
                            dpop,
                        });
                        let transport =
                            StreamableHttpClientTransport::with_client(authorized, config);
                        listener
                            .serve_with_lifecycle(transport, lifecycle)
                            .await
                            .map_err(|error| {
                                failed(format!("did not start MCP: {}", plain(&error)))
                            })
                    }

                    // A server that answers `server/discover` with something that is no
                    // answer to it (some answer every request they do not know with `{}`) is
                    // spoken to in the `initialize` era, on a connection of its own.
                    Err(_) => {
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        listener
                            .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
                            .await
                            .map_err(|error| {
                                failed(format!("did not start MCP: {}", plain(&error)))
                            })
                    }
                }
            }
        }
    };
    // A person who authorizes the client has their own time for it.
    let timeout = match &spec.oauth {
        Some(oauth) if oauth.asks_a_person() => CONNECT_TIMEOUT + AUTHORIZE_TIMEOUT,
        _ => CONNECT_TIMEOUT,
    };
    let service = tokio::time::timeout(timeout, started).await.map_err(|_| {
        failed(format!(
            "did not answer `initialize` within {} s",
            timeout.as_secs()
        ))
    })??;
    // Named from here on as it names itself (bounded, made printable), its command or URL
    // when it gives no name.
    let named = service
        .peer_info()
        .and_then(|info| info.server_info.as_ref().map(|server| server.name.clone()))
        .filter(|name| !name.trim().is_empty());
    let label: Arc<str> = match named {
        Some(name) => {
            let name: String = name.chars().take(64).collect();
            format!("`{}`", tool_runtime::text::neutralize(&name)).into()
        }
        None => Arc::clone(&label),
    };
    let peer = service.peer().clone();
    let (tools, skipped, names) = tokio::time::timeout(
        CONNECT_TIMEOUT,
        list(&spec, &label, &peer, &handle, &in_flight),
    )
    .await
    .map_err(|_| {
        failed(format!(
            "did not list its tools within {} s",
            CONNECT_TIMEOUT.as_secs()
        ))
    })??;
    // A deny list that names a tool the server does not have denies nothing: a mistake to say
    // at once. An allow list may name a tool the server adds later (it says its tools changed):
    // each such name is said, as a tool not offered.
    let unknown: Vec<String> = spec
        .deny
        .iter()
        .filter(|name| !names.contains(name))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(ToolsetError::NoSuchTools {
            server: label.to_string(),
            names: unknown,
            tools: names,
        });
    }
    let mut skipped = skipped;
    for name in spec.allow.iter().flatten() {
        if !names.contains(name) {
            skipped.push(Skipped {
                server: label.to_string(),
                tool: name.clone(),
                reason: format!(
                    "the server has no tool of that name (yet), which its allow list names; its \
                     tools are: {}",
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
                offered: false,
            });
        }
    }
    Ok(Connected {
        spec,
        label,
        service,
        changed,
        tools,
        skipped,
    })
}

/// An rmcp error's text without the transport's type, which it names in brackets
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: …`).
fn plain(error: &impl fmt::Display) -> String {
    let text = error.to_string();
    match (text.find(" ["), text.find("] error: ")) {
        (Some(open), Some(close)) if open < close => {
            format!("{}: {}", &text[..open], &text[close + "] error: ".len()..])
        }
        _ => text,
    }
}

/// The server's tools as this framework's, and the ones it does not offer.
async fn list(
    spec: &McpServer,
    label: &Arc<str>,
    peer: &Peer<RoleClient>,
    handle: &tokio::runtime::Handle,
    in_flight: &Arc<InFlight>,
) -> Result<(Vec<Arc<DynamicTool>>, Vec<Skipped>, Vec<String>), ToolsetError> {
    let failed = |error: &dyn fmt::Display| ToolsetError::Connect {
        server: label.to_string(),
        reason: format!("did not list its tools: {error}"),
    };
    let listed = match peer.list_all_tools().await {
        Ok(listed) => listed,
        // A server that asks for more authorization (its authorization server moved, say) gets
        // it once, and is asked again.
        Err(error) => match in_flight.reauth.get() {
            Some(reauth) => match reauth.after(&error).await {
                Some(Ok(())) => peer
                    .list_all_tools()
                    .await
                    .map_err(|error| failed(&error))?,
                Some(Err(reason)) => return Err(failed(&reason)),
                None => return Err(failed(&error)),
            },
            None => return Err(failed(&error)),
        },
    };
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let names = listed.iter().map(|tool| tool.name.to_string()).collect();
    let deferred = spec
        .defer
        .applies(listed.iter().filter(|tool| spec.offers(&tool.name)).count());
    let at = Proxied {
        spec,
        label,
        peer,
        handle,
        in_flight,
        deferred,
    };
    for tool in listed {
        if !spec.offers(&tool.name) {
            continue;
        }
        let skip = |reason: String, offered: bool| Skipped {
            server: label.to_string(),
            tool: tool.name.to_string(),
            reason,
            offered,
        };
        match proxy(&at, &tool, false) {
            Ok(proxied) => tools.push(Arc::new(proxied)),
            Err(LoadError::Schema { reason, .. }) if spec.unchecked => {
                match proxy(&at, &tool, true) {
                    Ok(proxied) => {
                        tools.push(Arc::new(proxied));
                        skipped.push(skip(reason, true));
                    }
                    Err(error) => skipped.push(skip(reason_of(error), false)),
                }
            }
            Err(error) => skipped.push(skip(reason_of(error), false)),
        }
    }
    Ok((tools, skipped, names))
}

fn reason_of(error: LoadError) -> String {
    match error {
        LoadError::Schema { reason, .. } => reason,
        other => other.to_string(),
    }
}

/// Where a server's tools are proxied from, and whether they are deferred.
struct Proxied<'a> {
    spec: &'a McpServer,
    label: &'a Arc<str>,
    peer: &'a Peer<RoleClient>,
    handle: &'a tokio::runtime::Handle,
    in_flight: &'a Arc<InFlight>,
    deferred: bool,
}

/// One of a server's tools as a runtime-defined tool that forwards its checked calls.
fn proxy(
    at: &Proxied<'_>,
    tool: &rmcp::model::Tool,
    unchecked: bool,
) -> Result<DynamicTool, LoadError> {
    let Proxied {
        spec,
        label,
        peer,
        handle,
        in_flight,
        deferred,
    } = *at;
    let mut builder = DynamicTool::builder(
        format!("{}{}", spec.prefix, tool.name),
        tool.description.as_deref().unwrap_or_default(),
        Value::Object((*tool.input_schema).clone()),
    )
    .source(format!("MCP server {label}"))
    .timeout(spec.timeout);
    let mut annotations = Annotations::new();
    if let Some(title) = tool
        .title
        .clone()
        .or_else(|| tool.annotations.as_ref()?.title.clone())
    {
        annotations = annotations.with_title(title);
    }
    if let Some(hints) = &tool.annotations {
        if let Some(read_only) = hints.read_only_hint {
            annotations = annotations.with_read_only(read_only);
        }
        if let Some(destructive) = hints.destructive_hint {
            annotations = annotations.with_destructive(destructive);
        }
        if let Some(idempotent) = hints.idempotent_hint {
            annotations = annotations.with_idempotent(idempotent);
        }
        if let Some(open_world) = hints.open_world_hint {
            annotations = annotations.with_open_world(open_world);
        }
    }
    builder = builder.annotations(annotations);
    if unchecked {
        builder = builder.unchecked();
    }
    if deferred {
        builder = builder.deferred().namespace(
            namespace_of(spec, label),
            format!("The tools of the MCP server {label}"),
        );
    }
    let forward = Forward {
        peer: peer.clone(),
        handle: handle.clone(),
        in_flight: Arc::clone(in_flight),
        name: tool.name.to_string(),
        label: Arc::clone(label),
    };
    builder.async_handler(move |call: Call, args: Value| forward.call(call, args))
}

/// The group a server's deferred tools are searched in: its prefix without a trailing `_`, or
/// its name, in the letters, digits, `_` and `-` a provider takes.
fn namespace_of(spec: &McpServer, label: &str) -> String {
    let prefix = spec.prefix.trim_end_matches(['_', '-', '.']);
    let from = if prefix.is_empty() { label } else { prefix };
    let name: String = from
        .trim_matches('`')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.trim_matches('_').is_empty() {
        "mcp".to_owned()
    } else {
        name
    }
}

/// Where a proxied tool's calls go.
#[derive(Clone)]
struct Forward {
    peer: Peer<RoleClient>,
    handle: tokio::runtime::Handle,
    in_flight: Arc<InFlight>,
    name: String,
    label: Arc<str>,
}

impl Forward {
    fn call(&self, call: Call, args: Value) -> impl Future<Output = ToolOutput> + Send + use<> {
        let forward = self.clone();
        let cancel = call.cancel().clone();
        let asker = call.exec().ask.clone();
        // The client's side of the call (OpenTelemetry's MCP conventions), a child of the call's
        // `execute_tool` span; its trace context goes in the request's `_meta`.
        let span = tracing::info_span!(
            "mcp.client",
            otel.name = tracing::field::Empty,
            otel.kind = "client",
            mcp.method.name = "tools/call",
            gen_ai.tool.name = forward.name.as_str(),
        );
        if !span.is_disabled() {
            span.record("otel.name", format!("tools/call {}", forward.name));
        }
        #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
        let mut meta = rmcp::model::RequestMetaObject::default();
        #[cfg(feature = "otel")]
        crate::otel::inject(&span, &mut meta);
        let task = self.handle.spawn(tracing::Instrument::instrument(
            async move {
                let Value::Object(arguments) = args else {
                    return ToolOutput::error("invalid arguments: expected an object");
                };
                let mut params =
                    CallToolRequestParams::new(forward.name.clone()).with_arguments(arguments);
                if !meta.is_empty() {
                    params.meta = Some(meta);
                }
                let _entered = asker
                    .as_ref()
                    .map(|asker| forward.in_flight.enter(Arc::clone(asker)));
                tokio::select! {
                    // Dropping the call tells the server to cancel it.
                    () = cancel.cancelled() => ToolOutput::error(format!(
                        "the call to the MCP server {} was cancelled", forward.label
                    )),
                    output = forward.rounds(params, asker) => output,
                }
            },
            span,
        ));
        let label = Arc::clone(&self.label);
        async move {
            task.await.unwrap_or_else(|error| {
                ToolOutput::error(format!(
                    "the call to the MCP server {label} failed: {error}"
                ))
            })
        }
    }

    /// The call, in as many rounds as its server asks for (SEP-2322, the stateless era): each
    /// round's questions answered by `asker` (the forwarded call's own: a person, an upstream
    /// client) and sent back with the round's state, until the server answers the call.
    async fn rounds(
        &self,
        mut params: CallToolRequestParams,
        asker: Option<Arc<dyn tool_runtime::Asker>>,
    ) -> ToolOutput {
        let mut authorized_again = 0;
        for _ in 0..MAX_ROUNDS {
            let required = match self.peer.call_tool_once(params.clone()).await {
                Ok(CallToolResponse::Complete(result)) => return self.output(Ok(result)),
                Ok(CallToolResponse::InputRequired(required)) => required,
                Ok(_) => return self.output(Err(ServiceError::UnexpectedResponse)),
                Err(error) => {
                    // A server that asks for more authorization gets it, twice at most, and
                    // the call is sent again.
                    let again = match self.in_flight.reauth.get() {
                        Some(reauth) if authorized_again < 2 => reauth.after(&error).await,
                        _ => None,
                    };
                    match again {
                        Some(Ok(())) => {
                            authorized_again += 1;
                            continue;
                        }
                        Some(Err(reason)) => {
                            return ToolOutput::error(format!(
                                "the MCP server {} asked to be authorized again, which failed: \
                                 {reason}",
                                self.label
                            ));
                        }
                        None => return self.output(Err(error)),
                    }
                }
            };
            let mut responses = std::collections::BTreeMap::new();
            for (key, request) in required.input_requests.unwrap_or_default() {
                match answer(&key, &request, asker.as_deref()).await {
                    Ok(response) => {
                        responses.insert(key, response);
                    }
                    Err(text) => {
                        return ToolOutput::error(format!(
                            "the MCP server {} asked what this client cannot answer: {text}",
                            self.label
                        ));
                    }
                }
            }
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = required.request_state;
        }
        ToolOutput::error(format!(
            "the MCP server {} asked for more than {MAX_ROUNDS} rounds of answers",
            self.label
        ))
    }

    fn output(&self, result: Result<CallToolResult, ServiceError>) -> ToolOutput {
        let label = &self.label;
        let result = match result {
            Ok(result) => result,
            Err(error @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                return ToolOutput::error(format!(
                    "the MCP server {label} is not reachable ({error}): its tools cannot be \
                     called now"
                ));
            }
            Err(ServiceError::McpError(error)) => {
                return ToolOutput::error(format!(
                    "the MCP server {label} refused the call: {}",
                    error.message
                ));
            }
            Err(error) => {
                return ToolOutput::error(format!(
                    "the MCP server {label} did not answer the call: {error}"
                ));
            }
        };
        output_of(result)
    }
}

/// How many rounds of questions a forwarded call answers before it gives up.
const MAX_ROUNDS: usize = 16;

/// The answer to a server's question `request` (key `key`), asked of `asker`: a form's
/// (`elicitation/create`) as the person answered it, declined where no one can be asked.
async fn answer(
    key: &str,
    request: &rmcp::model::InputRequest,
    asker: Option<&dyn tool_runtime::Asker>,
) -> Result<Value, String> {
    use tool_runtime::{Answer, Question, Reply};
    let wire = serde_json::to_value(request).map_err(|error| error.to_string())?;
    let method = wire["method"].as_str().unwrap_or_default();
    if method != "elicitation/create" {
        return Err(format!(
            "a request of `{}`",
            tool_runtime::text::neutralize(method)
        ));
    }
    let params = &wire["params"];
    if params
        .get("mode")
        .and_then(Value::as_str)
        .is_some_and(|mode| mode != "form")
    {
        return Ok(serde_json::json!({"action": "decline"}));
    }
    let form = tool_runtime::Form::new(
        params["message"].as_str().unwrap_or_default(),
        params["requestedSchema"].clone(),
    );
    let Some(asker) = asker else {
        return Ok(serde_json::json!({"action": "decline"}));
    };
    let schema = form.schema.clone();
    Ok(match asker.ask(key, Question::Person(form)).await {
        Ok(Reply::Person(Answer::Accepted(content))) => {
            serde_json::json!({"action": "accept", "content": with_defaults(&schema, content)})
        }
        Ok(Reply::Person(Answer::Dismissed)) => serde_json::json!({"action": "cancel"}),
        _ => serde_json::json!({"action": "decline"}),
    })
}

/// `content` with the default its form's `schema` gives each field the person left out
/// (SEP-1034).
fn with_defaults(schema: &Value, mut content: Value) -> Value {
    if let (Some(properties), Value::Object(given)) =
        (schema["properties"].as_object(), &mut content)
    {
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !given.contains_key(name)
            {
                given.insert(name.clone(), default.clone());
            }
        }
    }
    content
}

/// A tool result of MCP as this framework's.
fn output_of(result: CallToolResult) -> ToolOutput {
    let is_error = result.is_error == Some(true);
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for block in result.content {
        match block {
            ContentBlock::Text(text) => texts.push(text.text),
            ContentBlock::Image(image) => match BASE64_STANDARD.decode(image.data.as_bytes()) {
                Ok(data) => images.push(Image::new(image.mime_type, data)),
                Err(_) => texts.push(format!(
                    "[image: {}, not valid base64]",
                    tool_runtime::text::neutralize(&image.mime_type)
                )),
            },
            ContentBlock::Audio(audio) => texts.push(format!(
                "[audio: {}, {} bytes of base64]",
                tool_runtime::text::neutralize(&audio.mime_type),
                audio.data.len()
            )),
            ContentBlock::Resource(embedded) => match embedded.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    texts.push(format!("[resource: {uri}]\n{text}"));
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => texts.push(format!(
                    "[resource: {uri}, {}, {} bytes of base64]",
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    blob.len()
                )),
                _ => texts.push("[resource of a kind this host does not read]".to_owned()),
            },
            ContentBlock::ResourceLink(link) => {
                texts.push(format!("[resource link: {} ({})]", link.uri, link.name));
            }
            _ => texts.push("[content of a kind this host does not read]".to_owned()),
        }
    }
    // The text is what a model reads; structured content stands in for it only when there is
    // none (MCP asks a server to send its data as text too).
    let mut output = if is_error {
        ToolOutput::error(texts.join("\n"))
    } else {
        match result.structured_content {
            Some(data) if texts.is_empty() && !data.is_null() => ToolOutput::structured(data),
            _ => ToolOutput::success(texts.join("\n")),
        }
    };
    for image in images {
        output = output.with_image(image);
    }
    output
}

//! The MCP server ([`McpServer`]): the loaded tools' definitions and calls, on any transport.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

use base64::Engine as _;
use base64::prelude::BASE64_STANDARD;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use tool_runtime::{Agent, Cancel, Ctx, Dialect, Exec, ProgressUpdate};

use crate::error::McpError;
use crate::transport::{LineTransport, RawCall};

/// Serves one MCP connection, or (with the `http` feature) an HTTP endpoint.
#[derive(Clone)]
pub struct McpServer {
    pub(crate) ctx: Arc<Ctx>,
    pub(crate) agents: Agents,
    pub(crate) tools: Arc<Vec<Tool>>,
    pub(crate) name: Arc<str>,
    pub(crate) version: Arc<str>,
    pub(crate) calls: Calls,
    /// The least severe level of the messages tools log that the client hears (`logging/setLevel`;
    /// every level until it sets one): the connection's, or over HTTP the MCP session's.
    pub(crate) log_level: Arc<std::sync::atomic::AtomicU8>,
    /// What seals the state of a stateless call's rounds (`requestState`).
    pub(crate) state_key: crate::rounds::StateKey,
    /// The calls run as tasks, and where their state is kept.
    pub(crate) tasks: Arc<crate::tasks::Tasks>,
    /// Whether a tool's calls may run as tasks (the tasks extension is advertised).
    pub(crate) serves_tasks: bool,
    /// The resources the client subscribed to (`resources/subscribe`, the `initialize` era):
    /// the connection's, or over HTTP the MCP session's.
    pub(crate) subscribed: Arc<Subscribed>,
    /// The tools whose arguments a client mirrors in `Mcp-Param-*` headers (`x-mcp-header`,
    /// SEP-2243), by name: the HTTP layer checks those headers against the arguments.
    pub(crate) with_headers: Arc<std::collections::HashMap<String, Tool>>,
}

/// A connection's (or MCP session's) subscriptions to resources, and whether it listens for
/// their changes yet.
#[derive(Default)]
pub(crate) struct Subscribed {
    uris: std::sync::Mutex<std::collections::HashSet<String>>,
    listening: std::sync::atomic::AtomicBool,
}

/// Whose calls a server runs.
#[derive(Clone)]
pub(crate) enum Agents {
    /// One agent's: a connection's.
    One(Agent),
    /// Each request's own: an HTTP endpoint's.
    #[cfg(feature = "http")]
    PerRequest(Arc<crate::sessions::HttpSessions>),
}

/// What a call holds of its session while it runs: over HTTP, its checkout (on PostgreSQL,
/// the session's writer lease).
#[cfg(feature = "http")]
type Held = Option<crate::sessions::Checkout>;
#[cfg(not(feature = "http"))]
type Held = ();

/// The calls in flight, and the signal that cancels them all (a server stopping).
#[derive(Clone, Default)]
pub(crate) struct Calls {
    pub(crate) tracker: tokio_util::task::TaskTracker,
    pub(crate) cancel: tokio_util::sync::CancellationToken,
}

impl McpServer {
    /// A server for the tools of `ctx`, whose calls belong to `agent`.
    pub fn new(ctx: Arc<Ctx>, agent: Agent) -> Result<Self, McpError> {
        let tools = ctx
            .tools
            .definitions()
            .map(|definition| {
                let entry = definition.render(Dialect::Mcp)?;
                Ok(serde_json::from_value(entry.clone())?)
            })
            .collect::<Result<Vec<Tool>, McpError>>()?;
        let state_key = crate::rounds::StateKey::random().map_err(|error| {
            McpError::NotStarted(format!("the system's random source failed: {error}"))
        })?;
        let with_headers = tools
            .iter()
            .filter(|tool| mirrors_headers(&tool.input_schema))
            .map(|tool| (tool.name.to_string(), tool.clone()))
            .collect();
        let serves_tasks = ctx
            .tools
            .definitions()
            .any(|definition| definition.task_support() != tool_runtime::TaskSupport::Never);
        Ok(McpServer {
            ctx,
            tasks: crate::tasks::Tasks::new(crate::tasks::Logs::memory()),
            serves_tasks,
            with_headers: Arc::new(with_headers),
            agents: Agents::One(agent),
            tools: Arc::new(tools),
            name: "toolhost".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            calls: Calls::default(),
            log_level: Arc::default(),
            subscribed: Arc::default(),
            state_key,
        })
    }

    /// The same server sealing the state of stateless calls' rounds (a tool's questions in
    /// 2026-07-28, SEP-2322) with `secret`, at least 32 bytes, instead of a key of its own:
    /// replicas behind one endpoint given the same secret continue each other's rounds.
    pub fn with_state_secret(mut self, secret: &[u8]) -> Result<Self, McpError> {
        self.state_key = crate::rounds::StateKey::of(secret).map_err(McpError::Input)?;
        Ok(self)
    }

    /// The same server under the host's `name` (`toolhost` unless given): the name the client
    /// reads in `serverInfo`, and the one its notes on standard error go by.
    #[must_use]
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    /// The same server at `version` (this crate's unless given): the version the client reads
    /// in `serverInfo`.
    #[must_use]
    pub fn with_version(mut self, version: &str) -> Self {
        self.version = version.into();
        self
    }

    /// The same server for another MCP session: its own level of logging.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn for_session(&self) -> Self {
        McpServer {
            log_level: Arc::default(),
            subscribed: Arc::default(),
            ..self.clone()
        }
    }

    /// Serves the connection on this process's standard input and output until the client
    /// closes it.
    ///
    /// When both are pipes (as MCP clients start a server), they are read and written on the
    /// runtime's reactor rather than a thread per read or write (rmcp's `stdio_pipes`, on the
    /// pipes reopened, so the process's own standard streams keep their blocking mode);
    /// otherwise (a file, a terminal) through tokio's standard streams.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let (read, write) = rmcp::transport::stdio_pipes();
        self.serve_connection(read, write).await
    }

    /// Serves one connection, read from `read` and written to `write` as JSON Lines, until the
    /// client closes it. Lines may carry arguments as long as the registry's size cap.
    pub async fn serve_connection<R, W>(self, read: R, write: W) -> Result<(), McpError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let transport =
            LineTransport::new(read, write, self.ctx.tools.max_args_bytes()).with_name(&self.name);
        let running = self.serve(transport).await.map_err(|error| {
            McpError::NotStarted(format!("MCP connection failed to start: {error}"))
        })?;
        running.waiting().await.map_err(|error| {
            McpError::Protocol(format!("MCP connection ended with an error: {error}"))
        })?;
        Ok(())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        crate::logging::enable(&mut capabilities);
        // Resources, prompts and their completions are served when the host has some.
        if !self.ctx.resources.is_empty() {
            let mut resources = rmcp::model::ResourcesCapability::default();
            resources.subscribe = Some(true);
            capabilities.resources = Some(resources);
        }
        if !self.ctx.prompts.is_empty() {
            capabilities.prompts = Some(Default::default());
            capabilities.completions = Some(Default::default());
        }
        // The tasks extension, when a tool's calls may run as tasks.
        if self.serves_tasks {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    Default::default(),
                );
        }
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.name.to_string(),
            self.version.to_string(),
        ))
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::logging::set(&self.log_level, &request);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.serves_resources()?;
        Ok(crate::catalog::resources(&self.ctx))
    }

    /// What of a stateless-era `subscriptions/listen` filter is served: the subscriptions to
    /// resources the host serves (their changes, as the host says them); no list changes, as
    /// the lists are fixed while the server runs.
    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| self.ctx.resources.knows(uri))
            .cloned()
            .collect();
        let mut accepted = rmcp::model::SubscriptionFilter::new();
        if !uris.is_empty() {
            accepted.resource_subscriptions = Some(uris);
        }
        Some(accepted)
    }

    /// A stateless-era subscription: each change the host says of a resource it names is sent
    /// on its stream (tagged with its id by rmcp), until the client or the server ends it.
    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let wanted: std::collections::HashSet<String> = context
            .accepted()
            .resource_subscriptions
            .iter()
            .flatten()
            .cloned()
            .collect();
        let mut changes = self.ctx.resources.changes().watch();
        loop {
            let uri = tokio::select! {
                changed = changes.recv() => match changed {
                    Ok(uri) => uri,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return Ok(()),
                },
                () = context.cancelled() => return Ok(()),
                () = self.calls.cancel.cancelled() => return Ok(()),
            };
            if wanted.contains(&uri) && context.sink().notify_resource_updated(uri).await.is_err() {
                return Ok(());
            }
        }
    }

    #[allow(deprecated)] // resources/subscribe is the `initialize` era's, served to its clients.
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.serves_resources()?;
        if !self.ctx.resources.knows(&request.uri) {
            return Err(ErrorData::resource_not_found(
                format!("no resource at {}", tool_runtime::text::quote(&request.uri)),
                Some(serde_json::json!({"uri": request.uri})),
            ));
        }
        crate::lock::lock(&self.subscribed.uris).insert(request.uri);
        // The first subscription starts listening for changes, until the client is gone or the
        // server stops.
        if !self
            .subscribed
            .listening
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            let mut changes = self.ctx.resources.changes().watch();
            let subscribed = Arc::clone(&self.subscribed);
            let stop = self.calls.cancel.clone();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                loop {
                    let uri = tokio::select! {
                        changed = changes.recv() => match changed {
                            Ok(uri) => uri,
                            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                        },
                        () = stop.cancelled() => return,
                    };
                    if !crate::lock::lock(&subscribed.uris).contains(&uri) {
                        continue;
                    }
                    let param = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
                    if peer.notify_resource_updated(param).await.is_err() {
                        return;
                    }
                }
            });
        }
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.serves_resources()?;
        crate::lock::lock(&self.subscribed.uris).remove(&request.uri);
        Ok(())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.serves_resources()?;
        Ok(crate::catalog::templates(&self.ctx))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // A URI no resource is at is the same answer with or without resources (SEP-2164).
        let ctx = Arc::clone(&self.ctx);
        let read = tokio::task::spawn_blocking(move || crate::catalog::read(&ctx, &request.uri))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(read?.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.serves_prompts()?;
        Ok(crate::catalog::prompts(&self.ctx))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.serves_prompts()?;
        let asks = self
            .ctx
            .prompts
            .list()
            .iter()
            .any(|prompt| prompt.name() == request.name && prompt.asks());
        if asks {
            return self.get_asking_prompt(request, context).await;
        }
        let ctx = Arc::clone(&self.ctx);
        let got = tokio::task::spawn_blocking(move || crate::catalog::get(&ctx, &request))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(got?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.serves_prompts()?;
        let ctx = Arc::clone(&self.ctx);
        tokio::task::spawn_blocking(move || crate::catalog::complete(&ctx, &request))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] context: RequestContext<
            RoleServer,
        >,
    ) -> Result<ListToolsResult, ErrorData> {
        // A caller whose token was checked sees the tools it may call, and no other.
        #[cfg(feature = "http")]
        if let Some(principal) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::auth::Principal>())
        {
            let allowed = self
                .tools
                .iter()
                .filter(|tool| {
                    self.ctx.tools.get(&tool.name).is_none_or(|known| {
                        known
                            .definition()
                            .scopes()
                            .all(|scope| principal.has_scope(scope))
                    })
                })
                .cloned()
                .collect();
            return Ok(ListToolsResult::with_all_items(allowed));
        }
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    /// The tool `name` when a client mirrors some of its arguments in headers: rmcp's HTTP
    /// service then checks each `Mcp-Param-*` header against the argument (`-32020` and 400
    /// when one is missing, malformed or different). Other tools' calls carry none to check.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.with_headers.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = self.call_span(&request, &context);
        tracing::Instrument::instrument(self.serve_call(request, context), span).await
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.on_task(request.task_id, &context, |tasks, id, log| {
            tasks.get(id, log)
        })
        .await
        .map(rmcp::model::GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let responses = request.input_responses;
        self.on_task(request.task_id, &context, move |tasks, id, log| {
            tasks.update(id, log, responses)
        })
        .await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.on_task(request.task_id, &context, |tasks, id, log| {
            tasks.cancel(id, log)
        })
        .await
    }
}

impl McpServer {
    /// `-32601` unless the host serves resources.
    fn serves_resources(&self) -> Result<(), ErrorData> {
        if self.ctx.resources.is_empty() {
            Err(ErrorData::method_not_found::<
                rmcp::model::ListResourcesRequestMethod,
            >())
        } else {
            Ok(())
        }
    }

    /// `-32601` unless the host offers prompts.
    fn serves_prompts(&self) -> Result<(), ErrorData> {
        if self.ctx.prompts.is_empty() {
            Err(ErrorData::method_not_found::<
                rmcp::model::ListPromptsRequestMethod,
            >())
        } else {
            Ok(())
        }
    }

    /// The span of one `tools/call` served (OpenTelemetry's MCP conventions): a child of the
    /// caller's when the request carries its trace context.
    fn call_span(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> tracing::Span {
        let span = tracing::info_span!(
            "mcp.server",
            otel.name = tracing::field::Empty,
            otel.kind = "server",
            mcp.method.name = "tools/call",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = request.name.as_ref(),
            jsonrpc.request.id = tracing::field::Empty,
            network.transport = tracing::field::Empty,
        );
        if span.is_disabled() {
            return span;
        }
        span.record("otel.name", format!("tools/call {}", request.name));
        span.record("jsonrpc.request.id", context.id.to_string());
        #[cfg(feature = "http")]
        let headers = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map(|parts| &parts.headers);
        #[cfg(feature = "http")]
        let over_http = headers.is_some();
        #[cfg(not(feature = "http"))]
        let over_http = false;
        span.record("network.transport", if over_http { "tcp" } else { "pipe" });
        // rmcp moves a request's `_meta` into its context.
        #[cfg(feature = "otel")]
        {
            let meta: &serde_json::Map<String, serde_json::Value> = match &request.meta {
                Some(meta) => meta,
                None => &context.meta,
            };
            #[cfg(not(feature = "http"))]
            let headers = None;
            crate::otel::adopt_remote_parent(&span, meta, headers);
        }
        span
    }

    /// A `tools/call`, in its span.
    async fn serve_call(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The runtime takes the JSON text the client sent, as every host gives it: the line
        // transport and the HTTP layer hand it over beside the request. Over another
        // transport, rmcp hands over the arguments parsed: they are written out again.
        let raw = take_raw_call(&mut context);
        let args: Arc<str> = match (&raw, &request.arguments) {
            (Some(raw), _) => Arc::clone(&raw.args),
            (None, Some(arguments)) => serde_json::to_string(arguments)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
                .into(),
            (None, None) => "{}".into(),
        };
        let _in_flight = self.calls.tracker.token();
        // In the stateless era a tool's questions go in rounds: the call stops at one the
        // client has not answered, and is answered with the questions (SEP-2322).
        let binding = self.binding_of(&request, &context, &args);
        let rounds = match self.rounds_of(&request, &context, &binding) {
            Ok(rounds) => rounds,
            Err(crate::rounds::BadState(text)) => {
                return Err(ErrorData::invalid_params(text, None));
            }
        };
        let asker: Arc<dyn tool_runtime::Asker> = match &rounds {
            Some(rounds) => Arc::clone(rounds) as Arc<dyn tool_runtime::Asker>,
            None => Arc::new(crate::asking::Live(context.peer.clone())),
        };
        if let Some(raw) = &raw {
            raw.ticket.turn().await;
        }
        // A tool whose calls may run as tasks: a client that speaks the extension gets the
        // task's handle and the call goes on in the background; one that does not waits for
        // the call's end, or is refused where the tool runs only as a task.
        let definition = self
            .ctx
            .tools
            .get(&request.name)
            .map(|tool| tool.definition());
        let support = definition.map_or(tool_runtime::TaskSupport::Never, |d| d.task_support());
        // The client's capabilities are read (from the request's `_meta`) only for a tool that
        // depends on them.
        let speaks_tasks = match definition {
            Some(definition)
                if support != tool_runtime::TaskSupport::Never || !definition.asks().is_empty() =>
            {
                let declared = context.client_capabilities().unwrap_or_default();
                if let Some(missing) = missing_capabilities(definition, &declared) {
                    if let Some(raw) = raw {
                        raw.ticket.finish();
                    }
                    return Err(ErrorData::missing_required_client_capability(missing));
                }
                declared.supports_tasks()
            }
            _ => false,
        };
        // A tool that needs a person's approval runs only once the person, asked through the
        // client, accepts: in the session's turn (no later call overtakes it), before the
        // session is opened (no lease is held while a person thinks).
        let needs_approval = definition.is_some_and(|definition| definition.needs_approval());
        if needs_approval {
            let asked = tokio::select! {
                asked = crate::approval::ask(&*asker, &request.name, &args) => asked,
                () = asked_of(rounds.as_deref()) => {
                    return Ok(self.input_required(rounds.as_deref(), binding.bytes()));
                }
                () = context.ct.cancelled() => Err(tool_runtime::ToolOutput::error(format!(
                    "{} was cancelled", request.name
                ))),
            };
            if let Err(refused) = asked {
                if let Some(raw) = raw {
                    raw.ticket.finish();
                }
                return Ok(CallToolResult::error(vec![ContentBlock::text(refused.text)]).into());
            }
        }
        if support != tool_runtime::TaskSupport::Never && speaks_tasks {
            // A task leaves the session's order once it has its handle.
            if let Some(raw) = raw {
                raw.ticket.finish();
            }
            return self
                .start_task(request, context, args, rounds, asker, &binding)
                .await;
        }
        match self
            .clone()
            .run_call(
                request,
                context,
                raw,
                args,
                rounds.clone(),
                asker,
                None,
                None,
            )
            .await?
        {
            Some(result) => Ok(result.into()),
            None => Ok(self.input_required(rounds.as_deref(), binding.bytes())),
        }
    }

    /// The rest of a call, once asked questions are answered and its approval given: its
    /// session opened, the tool run, its output as MCP's result; `None` when it stopped at a
    /// question its client has not answered (rounds).
    #[allow(clippy::too_many_arguments)]
    async fn run_call(
        self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        raw: Option<RawCall>,
        args: Arc<str>,
        rounds: Option<Arc<crate::rounds::Rounds>>,
        asker: Arc<dyn tool_runtime::Asker>,
        detacher: Option<Arc<dyn tool_runtime::Detacher>>,
        panicked: Option<Arc<std::sync::OnceLock<String>>>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let (agent, _held, minted) = match self.agent_for(&request, &context).await {
            Ok(opened) => opened,
            Err(error) => {
                if let Some(raw) = raw {
                    raw.ticket.finish();
                }
                return Err(error);
            }
        };
        // `notifications/cancelled` cancels the request's token, and so the call; so does a
        // server that stops while the call runs past its grace period.
        let cancel = self.calls.cancel.child_token();
        let exec = match agent {
            Some(agent) => Exec::for_agent(agent),
            None => Exec::new(),
        };
        // What the tool asks goes to the client: a form to the person, a message to its model.
        let mut exec = exec
            .with_cancel(Cancel::from(cancel.clone()))
            .with_ask(asker);
        if let Some(detacher) = detacher {
            exec = exec.with_detach(detacher);
        }
        // A task tells the tool's panic (the server's failure) from its error.
        if let Some(panicked) = &panicked {
            let panicked = Arc::clone(panicked);
            exec = exec.with_panic_hook(move |message| {
                let _ = panicked.set(message.to_owned());
            });
        }
        // Who called, when the endpoint checked it; a tool that takes a `Principal` sees it.
        #[cfg(feature = "http")]
        if let Some(principal) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::auth::Principal>())
        {
            exec = exec.with_principal(principal.clone());
        }
        let progress = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            let (forwarder, send) =
                crate::forward::Forwarder::start(move |update: ProgressUpdate| {
                    let mut param = ProgressNotificationParam::new(token.clone(), update.done);
                    if let Some(total) = update.total {
                        param = param.with_total(total);
                    }
                    if let Some(message) = update.message {
                        param = param.with_message(message);
                    }
                    let peer = peer.clone();
                    async move { peer.notify_progress(param).await.is_ok() }
                });
            exec = std::mem::take(&mut exec).with_progress(move |update| {
                let _ = send.try_send(update);
            });
            forwarder
        });
        // What the tool logs goes to the client as `notifications/message`, from the level it
        // asked for up, named by the tool.
        let logged =
            crate::logging::forward(&mut exec, context.peer.clone(), Arc::clone(&self.log_level));
        // An unknown tool's error names only the tools a checked caller may call.
        #[cfg(feature = "http")]
        let unknown = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::auth::Principal>())
            .filter(|_| self.ctx.tools.get(&request.name).is_none())
            .map(|principal| {
                self.ctx.tools.unknown(&request.name, |definition| {
                    definition.scopes().all(|scope| principal.has_scope(scope))
                })
            });
        #[cfg(not(feature = "http"))]
        let unknown: Option<tool_runtime::ToolOutput> = None;
        // A synchronous tool whose session's writes block (todo_write on a file made durable)
        // is called on a blocking thread, as one step off the executor, rather than have each
        // write step out of it (`block_in_place` hands the worker's other tasks to a thread of
        // their own). Nothing can cut a synchronous call short, and it asks nothing.
        let off_executor = unknown.is_none()
            && self.ctx.tools.get(&request.name).is_some_and(|tool| {
                let definition = tool.definition();
                definition.synchronous() && definition.asks().is_empty()
            })
            && exec
                .agent
                .as_ref()
                .is_some_and(|agent| agent.session().blocks());
        let output = if let Some(unknown) = unknown {
            Some(unknown)
        } else if off_executor {
            let ctx = Arc::clone(&self.ctx);
            let name = request.name.to_string();
            let args = Arc::clone(&args);
            // The call's spans are children of this one's, as on the executor.
            let span = tracing::Span::current();
            let called = tokio::task::spawn_blocking(move || {
                let _in_call = span.enter();
                let output = ctx.tools.call(&name, &exec, &args).wait();
                (output, exec)
            })
            .await;
            match called {
                Ok((output, returned)) => {
                    exec = returned;
                    Some(output)
                }
                // The registry answers a tool's panic; this is the runtime shutting down.
                Err(error) => {
                    exec = Exec::new();
                    Some(tool_runtime::ToolOutput::error(format!(
                        "{} did not run: {error}",
                        request.name
                    )))
                }
            }
        } else {
            let call = self.ctx.tools.call(&request.name, &exec, &args);
            let mut call = std::pin::pin!(call);
            let mut cancelled = false;
            loop {
                tokio::select! {
                    output = &mut call => break Some(output),
                    // A question the client has not answered: the call stops (dropped here).
                    () = asked_of(rounds.as_deref()) => break None,
                    () = context.ct.cancelled(), if !cancelled => {
                        cancelled = true;
                        cancel.cancel();
                    }
                }
            }
        };
        // The session (on PostgreSQL, its lease) is let go before the next call's turn.
        drop(exec);
        #[cfg(feature = "http")]
        drop(_held);
        if let Some(raw) = raw {
            raw.ticket.finish();
        }
        if let Some(progress) = progress {
            progress.finish().await;
        }
        logged.finish().await;
        let Some(output) = output else {
            return Ok(None);
        };
        if let Some(message) = panicked.as_ref().and_then(|panicked| panicked.get()) {
            return Err(ErrorData::internal_error(
                format!("{} panicked: {message}", request.name),
                None,
            ));
        }
        // Data goes as structuredContent (an object, as the tool's outputSchema says) beside its
        // JSON text, for clients without structured results.
        let structured = match (output.data(), self.ctx.tools.get(&request.name)) {
            (Some(value), Some(tool)) => Some(tool.definition().mcp_structured_content(&value)),
            _ => None,
        };
        // The text names each image and attachment; they go as MCP's own parts after it.
        let mut content = vec![ContentBlock::text(output.text)];
        content.extend(output.images.iter().map(|image| {
            ContentBlock::image(BASE64_STANDARD.encode(image.data()), image.mime_type())
        }));
        content.extend(output.attachments.iter().map(attachment_block));
        let mut result = if output.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = structured;
        // A session the server began for a call that named none: its handle, for a client that
        // wants the next call to continue it (sent back as `_meta.agentSession`).
        #[cfg(feature = "http")]
        if let Some(minted) = minted {
            result
                .meta
                .get_or_insert_with(rmcp::model::MetaObject::new)
                .0
                .insert(crate::sessions::SESSION_META.to_owned(), minted.into());
        }
        #[cfg(not(feature = "http"))]
        let _: Option<String> = minted;
        Ok(Some(result))
    }
}

impl McpServer {
    /// A call run as a task: recorded in the store and answered with its handle, the call
    /// going on in the background. A tool that detaches itself runs as an ordinary call until
    /// it says so: what it asks until then goes the request's way, and if it ends (or stops at
    /// a question) first, its request is answered as any call's.
    async fn start_task(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
        args: Arc<str>,
        rounds: Option<Arc<crate::rounds::Rounds>>,
        asker: Arc<dyn tool_runtime::Asker>,
        binding: &Binding,
    ) -> Result<CallToolResponse, ErrorData> {
        let id = crate::tasks::Tasks::mint()?;
        let log = crate::tasks::Tasks::log_name(&id, &self.caller_namespace(&context))?;
        let capabilities = context.client_capabilities().unwrap_or_default();
        let on_task = self.tasks.asker(&log, capabilities);
        let tool = request.name.to_string();
        let detaches = self
            .ctx
            .tools
            .get(&tool)
            .is_some_and(|known| known.definition().detaches());
        // The request is answered when the task begins: the call's cancellation is the task's
        // (`tasks/cancel`, the server stopping).
        let cancel = self.calls.cancel.child_token();
        context.ct = cancel.clone();
        if !detaches {
            let task = self.begin_task(&id, &log, &tool, cancel).await?;
            on_task.begun();
            let call = tokio::spawn(self.clone().run_call(
                request,
                context,
                None,
                args,
                None,
                on_task,
                None,
                Some(Arc::default()),
            ));
            self.calls
                .tracker
                .spawn(Arc::clone(&self.tasks).finish(log, call));
            return Ok(rmcp::model::CreateTaskResult::new(task).into());
        }
        let detaching = Arc::new(Detaching {
            before: asker,
            after: Arc::clone(&on_task),
            detached: std::sync::atomic::AtomicBool::new(false),
            signal: tokio::sync::Notify::new(),
        });
        let mut call = tokio::spawn(self.clone().run_call(
            request,
            context,
            None,
            args,
            rounds.clone(),
            Arc::clone(&detaching) as Arc<dyn tool_runtime::Asker>,
            Some(Arc::clone(&detaching) as Arc<dyn tool_runtime::Detacher>),
            Some(Arc::default()),
        ));
        tokio::select! {
            ended = &mut call => {
                let ended = ended.map_err(|error| {
                    ErrorData::internal_error(format!("the call failed: {error}"), None)
                })?;
                match ended? {
                    Some(result) => Ok(result.into()),
                    None => Ok(self.input_required(rounds.as_deref(), binding.bytes())),
                }
            }
            () = detaching.signal.notified() => {
                let task = match self.begin_task(&id, &log, &tool, cancel).await {
                    Ok(task) => task,
                    Err(error) => {
                        call.abort();
                        return Err(error);
                    }
                };
                on_task.begun();
                self.calls
                    .tracker
                    .spawn(Arc::clone(&self.tasks).finish(log, call));
                Ok(rmcp::model::CreateTaskResult::new(task).into())
            }
        }
    }

    /// Records task `id` (log `log`) of `tool` as begun, off the async workers.
    async fn begin_task(
        &self,
        id: &str,
        log: &str,
        tool: &str,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<rmcp::model::Task, ErrorData> {
        let tasks = Arc::clone(&self.tasks);
        let (id, log, tool) = (id.to_owned(), log.to_owned(), tool.to_owned());
        tokio::task::spawn_blocking(move || tasks.create(&id, &log, &tool, cancel))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
            .map_err(|error| {
                ErrorData::internal_error(format!("the task could not be begun: {error}"), None)
            })
    }

    /// The namespace of the caller of a request: its principal's, when the endpoint checked
    /// it; empty when not.
    fn caller_namespace(
        &self,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] context: &RequestContext<
            RoleServer,
        >,
    ) -> String {
        #[cfg(feature = "http")]
        if let Some(principal) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::auth::Principal>())
        {
            return crate::sessions::namespace(&tool_runtime::Owner::of(principal));
        }
        String::new()
    }

    /// Task `id`'s log for the caller of `context`, and what the store call on it answers.
    async fn on_task<T: Send + 'static>(
        &self,
        id: String,
        context: &RequestContext<RoleServer>,
        what: impl FnOnce(&crate::tasks::Tasks, &str, &str) -> Result<T, ErrorData> + Send + 'static,
    ) -> Result<T, ErrorData> {
        let log = crate::tasks::Tasks::log_name(&id, &self.caller_namespace(context))?;
        let tasks = Arc::clone(&self.tasks);
        tokio::task::spawn_blocking(move || what(&tasks, &id, &log))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
    }
}

/// Where a call that detaches itself asks: the request's way until it detaches, then on its
/// task.
struct Detaching {
    before: Arc<dyn tool_runtime::Asker>,
    after: Arc<crate::tasks::OnTask>,
    detached: std::sync::atomic::AtomicBool,
    signal: tokio::sync::Notify,
}

impl tool_runtime::Asker for Detaching {
    fn ask<'a>(
        &'a self,
        key: &'a str,
        question: tool_runtime::Question,
    ) -> tool_runtime::Replying<'a> {
        if self.detached.load(std::sync::atomic::Ordering::Acquire) {
            self.after.ask(key, question)
        } else {
            self.before.ask(key, question)
        }
    }
}

impl tool_runtime::Detacher for Detaching {
    fn detach(&self) {
        if !self
            .detached
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            self.signal.notify_one();
        }
    }
}

impl McpServer {
    /// `prompts/get` of a prompt that asks: its questions go to the client, in the stateless
    /// era as rounds (the prompt filled in again with each round's answers, the state bound to
    /// the prompt, its arguments and the caller), else as requests.
    async fn get_asking_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let stateless = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let args = serde_json::to_string(&request.arguments).unwrap_or_default();
        let binding = format!(
            "prompts/get\0{}\0{args}\0{}",
            request.name,
            self.caller_namespace(&context)
        )
        .into_bytes();
        let rounds = if stateless {
            let meta = request.meta.as_ref().unwrap_or(&context.meta);
            let capabilities = meta.client_capabilities().unwrap_or_default();
            let opened = crate::rounds::Rounds::open(
                &self.state_key,
                &binding,
                capabilities,
                request.request_state.as_deref(),
                request.input_responses.as_ref(),
            )
            .map_err(|crate::rounds::BadState(text)| ErrorData::invalid_params(text, None))?;
            Some(Arc::new(opened))
        } else {
            None
        };
        let asker: Arc<dyn tool_runtime::Asker> = match &rounds {
            Some(rounds) => Arc::clone(rounds) as Arc<dyn tool_runtime::Asker>,
            None => Arc::new(crate::asking::Live(context.peer.clone())),
        };
        let got =
            crate::catalog::get_asking(&self.ctx, &request, tool_runtime::Ask::through(asker));
        tokio::select! {
            got = got => Ok(got?.into()),
            () = asked_of(rounds.as_deref()) => {
                let rounds = rounds.as_deref().expect("only rounds stop a prompt");
                Ok(GetPromptResponse::InputRequired(
                    rounds.input_required(&self.state_key, &binding),
                ))
            }
        }
    }
}

impl McpServer {
    /// What a stateless call's round state is bound to: the tool, its arguments, the caller.
    fn binding_of(
        &self,
        request: &CallToolRequestParams,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] context: &RequestContext<
            RoleServer,
        >,
        args: &Arc<str>,
    ) -> Binding {
        #[cfg(feature = "http")]
        let caller = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::auth::Principal>())
            .map(|principal| crate::sessions::namespace(&tool_runtime::Owner::of(principal)))
            .unwrap_or_default();
        #[cfg(not(feature = "http"))]
        let caller = String::new();
        Binding {
            tool: request.name.to_string(),
            args: Arc::clone(args),
            caller,
            bytes: std::sync::OnceLock::new(),
        }
    }

    /// The rounds of a stateless call (none in the `initialize` era, where questions are
    /// requests to the client), or why its state is refused.
    fn rounds_of(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        binding: &Binding,
    ) -> Result<Option<Arc<crate::rounds::Rounds>>, crate::rounds::BadState> {
        let stateless = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if !stateless {
            return Ok(None);
        }
        let meta = request.meta.as_ref().unwrap_or(&context.meta);
        let capabilities = meta.client_capabilities().unwrap_or_default();
        // Only a state handed back is checked against the binding.
        let binding = match request.request_state {
            Some(_) => binding.bytes(),
            None => &[],
        };
        crate::rounds::Rounds::open(
            &self.state_key,
            binding,
            capabilities,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )
        .map(|rounds| Some(Arc::new(rounds)))
    }

    /// The answer of a call stopped at a question: every question it waits on, and its state.
    fn input_required(
        &self,
        rounds: Option<&crate::rounds::Rounds>,
        binding: &[u8],
    ) -> CallToolResponse {
        match rounds {
            Some(rounds) => rounds.input_required(&self.state_key, binding).into(),
            // Only rounds stop a call for a question.
            None => CallToolResult::error(vec![ContentBlock::text("the call stopped unanswered")])
                .into(),
        }
    }

    /// The agent whose session a call goes to (none for a tool that takes no session, called
    /// without one), what holds the session while the call runs, and the name of a session
    /// this call began, when it named none and its tool takes one.
    async fn agent_for(
        &self,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] request: &CallToolRequestParams,
        #[cfg_attr(not(feature = "http"), allow(unused_variables))] context: &RequestContext<
            RoleServer,
        >,
    ) -> Result<(Option<Agent>, Held, Option<String>), ErrorData> {
        match &self.agents {
            Agents::One(agent) => Ok((Some(agent.clone()), Held::default(), None)),
            #[cfg(feature = "http")]
            Agents::PerRequest(sessions) => {
                let headers = context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .map(|parts| &parts.headers);
                let empty = axum::http::HeaderMap::new();
                let headers = headers.unwrap_or(&empty);
                // rmcp moves a request's `_meta` into its context.
                let meta = request.meta.as_ref().unwrap_or(&context.meta);
                let mut minted = None;
                let id = match crate::sessions::session_named(headers, Some(meta)) {
                    Some(id) => id,
                    // A stateless request that names no session is served on its own: a tool
                    // that takes no session runs without one; one that does (todo_write: the
                    // whole list in every call) runs in a session begun for it, whose handle
                    // the answer carries.
                    None => {
                        let takes_session = self
                            .ctx
                            .tools
                            .get(&request.name)
                            .is_some_and(|tool| tool.definition().requires_agent());
                        if !takes_session {
                            return Ok((None, Held::default(), None));
                        }
                        let id = crate::sessions::mint().map_err(|error| {
                            ErrorData::internal_error(
                                format!("cannot begin a session: the system's random source failed: {error}"),
                                None,
                            )
                        })?;
                        minted = Some(id.clone());
                        id
                    }
                };
                let of_mcp_session = crate::sessions::mcp_session(headers);
                let principal = context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<crate::auth::Principal>());
                let mut owner = None;
                let id = if of_mcp_session {
                    // Its owner was checked before the request was read.
                    id
                } else {
                    crate::sessions::check_name(&id)
                        .map_err(|text| ErrorData::invalid_params(text, None))?;
                    // A caller whose token was checked names sessions of its own.
                    match principal.map(tool_runtime::Owner::of) {
                        Some(of) => {
                            let id = format!("{}.{id}", crate::sessions::namespace(&of));
                            owner = Some(of);
                            id
                        }
                        None => id,
                    }
                };
                // A session this process keeps open is checked out here; one to open (or on
                // PostgreSQL, to lease) off the executor.
                let opened = match sessions.kept(&id, owner.as_ref()) {
                    Some(checkout) => Ok(checkout),
                    None => {
                        let sessions = Arc::clone(sessions);
                        tokio::task::spawn_blocking(move || sessions.agent(&id, owner.as_ref()))
                            .await
                            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
                    }
                };
                let checkout = opened.map_err(|error| {
                    tool_runtime::text::note!("{} mcp: {error}", self.name);
                    ErrorData::internal_error(
                        format!("the session could not be opened: {error}"),
                        None,
                    )
                })?;
                if of_mcp_session && crate::sessions::ended(checkout.agent().session()) {
                    return Err(ErrorData::invalid_request(
                        "the MCP session has ended (DELETE); start another with initialize",
                        None,
                    ));
                }
                Ok((Some(checkout.agent().clone()), Some(checkout), minted))
            }
        }
    }
}

/// What a stateless call's round state is bound to: the tool, its arguments (as their JSON
/// value writes them, so that spacing does not matter) and the caller; written out the first
/// time a state is opened or sealed, which most calls never need.
struct Binding {
    tool: String,
    args: Arc<str>,
    caller: String,
    bytes: std::sync::OnceLock<Vec<u8>>,
}

impl Binding {
    fn bytes(&self) -> &[u8] {
        self.bytes.get_or_init(|| {
            let args = serde_json::from_str::<serde_json::Value>(&self.args)
                .map_or_else(|_| self.args.to_string(), |value| value.to_string());
            format!("tools/call\0{}\0{args}\0{}", self.tool, self.caller).into_bytes()
        })
    }
}

/// What a client that declared `declared` lacks for a call of the tool `definition` describes,
/// if anything: the tasks extension for a tool that runs only as a task, and what the tool
/// cannot do without asking (`#[tool(asks = …)]`); the call is refused with `-32021` naming it.
fn missing_capabilities(
    definition: &tool_runtime::Definition,
    declared: &rmcp::model::ClientCapabilities,
) -> Option<rmcp::model::ClientCapabilities> {
    let mut missing = rmcp::model::ClientCapabilities::default();
    let mut lacks = false;
    if definition.task_support() == tool_runtime::TaskSupport::Required
        && !declared.supports_tasks()
    {
        missing = rmcp::model::ClientCapabilities::builder()
            .enable_tasks()
            .build();
        lacks = true;
    }
    for asks in definition.asks() {
        match asks {
            tool_runtime::Asks::Person if declared.elicitation.is_none() => {
                missing.elicitation = Some(Default::default());
                lacks = true;
            }
            #[allow(deprecated)]
            tool_runtime::Asks::Model if declared.sampling.is_none() => {
                missing.sampling = Some(Default::default());
                lacks = true;
            }
            #[allow(deprecated)]
            tool_runtime::Asks::Roots if declared.roots.is_none() => {
                missing.roots = Some(Default::default());
                lacks = true;
            }
            _ => {}
        }
    }
    lacks.then_some(missing)
}

/// Whether a tool's input schema names a header a client mirrors an argument in
/// (`x-mcp-header` on a property).
fn mirrors_headers(schema: &serde_json::Map<String, serde_json::Value>) -> bool {
    fn any(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(object) => {
                object.contains_key("x-mcp-header")
                    || object
                        .get("properties")
                        .and_then(serde_json::Value::as_object)
                        .is_some_and(|properties| properties.values().any(any))
            }
            _ => false,
        }
    }
    schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|properties| properties.values().any(any))
}

/// Resolves once a call of `rounds` asked a question its client has not answered; never
/// without rounds.
async fn asked_of(rounds: Option<&crate::rounds::Rounds>) {
    match rounds {
        Some(rounds) => rounds.asked().await,
        None => std::future::pending().await,
    }
}

/// The raw call the transport (in the request's extensions) or the HTTP layer (in the HTTP
/// request's, which rmcp puts in the request's) handed over.
fn take_raw_call(context: &mut RequestContext<RoleServer>) -> Option<RawCall> {
    if let Some(raw) = context.extensions.remove::<RawCall>() {
        return Some(raw);
    }
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get_mut::<axum::http::request::Parts>() {
        return parts.extensions.remove::<RawCall>();
    }
    None
}

/// An attachment of a result as MCP content.
fn attachment_block(attachment: &tool_runtime::Attachment) -> ContentBlock {
    match attachment {
        tool_runtime::Attachment::Audio(audio) => {
            ContentBlock::audio(BASE64_STANDARD.encode(audio.data()), audio.mime_type())
        }
        tool_runtime::Attachment::Resource(resource) => {
            ContentBlock::resource(crate::catalog::contents_of(resource))
        }
    }
}

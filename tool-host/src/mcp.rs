//! `toolhost mcp`: the loaded tools over MCP on stdio, built on the `rmcp` crate.
//!
//! One client connection is one agent session, persisted in a JSON Lines file, so its lists can
//! be replayed with `toolhost replay`. `tools/list` answers with each tool's MCP definition (the
//! bytes of `toolhost schema --dialect mcp`); `tools/call` runs the call through the registry and
//! answers with the exact model-facing text, `isError` set from the result. A call the runtime
//! refuses (an unknown tool, wrong or oversized arguments) is a tool result with `isError: true`,
//! which the model sees; the protocol's own errors (malformed JSON-RPC, unknown methods) are
//! rmcp's. Standard output is the protocol: everything else goes to standard error.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use tool_runtime::{Agent, Ctx, Dialect, Exec};

/// Serves one MCP connection.
#[derive(Clone)]
pub struct McpServer {
    ctx: Arc<Ctx>,
    agent: Agent,
    tools: Arc<Vec<Tool>>,
}

impl McpServer {
    /// A server for the tools of `ctx`, whose calls belong to `agent`.
    pub fn new(ctx: Arc<Ctx>, agent: Agent) -> Result<Self, String> {
        let tools = ctx
            .tools
            .definitions()
            .map(|definition| {
                let entry = definition.render(Dialect::Mcp).map_err(|e| e.to_string())?;
                serde_json::from_value(entry.clone()).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<Tool>, String>>()?;
        Ok(McpServer {
            ctx,
            agent,
            tools: Arc::new(tools),
        })
    }

    /// Serves the connection on this process's standard input and output until the client
    /// closes it.
    pub async fn serve_stdio(self) -> Result<(), String> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|error| format!("MCP connection failed to start: {error}"))?;
        running
            .waiting()
            .await
            .map_err(|error| format!("MCP connection ended with an error: {error}"))?;
        Ok(())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolhost", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // rmcp hands over the arguments parsed; the runtime takes the JSON text, as every host
        // gives it.
        let args = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?,
            None => "{}".to_owned(),
        };
        let exec = Exec::for_agent(self.agent.clone());
        let output = self.ctx.tools.call(&request.name, &exec, &args).await;
        let content = vec![ContentBlock::text(output.text)];
        let result = if output.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(result.into())
    }
}

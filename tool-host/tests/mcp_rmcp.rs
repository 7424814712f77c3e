//! The MCP server in-process, on its own transport, against rmcp's own client over in-memory
//! pipes: the connection's calls land in its agent's session.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use serde_json::{Value, json};
use tool_host::mcp::McpServer;
use tool_runtime::{Agent, Ctx, Dialect, Session, Tool};
use tool_todo::{Todo, TodoStatus, TodoWrite};

fn text(result: &CallToolResult) -> &str {
    match &result.content[..] {
        [content] => match content {
            ContentBlock::Text(text) => &text.text,
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_lists_and_calls_through_the_runtime() {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let session = Session::in_memory();
    let agent = Agent::new("mcp-test", session.clone());
    let server = McpServer::new(Arc::new(ctx), agent).unwrap();

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        server.serve_connection(read, write).await.unwrap();
    });
    let client = ().serve(client_io).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(
        serde_json::to_value(&tools[0]).unwrap(),
        *TodoWrite.definition().render(Dialect::Mcp).unwrap()
    );

    let ok = client
        .call_tool(
            CallToolRequestParams::new("todo_write").with_arguments(args(json!(
                {"todos": [{"content": "Plan", "status": "in_progress"}]}
            ))),
        )
        .await
        .unwrap();
    assert_eq!(
        text(&ok),
        "Updated todo list: 0 pending, 1 in progress, 0 completed"
    );
    assert_eq!(ok.is_error, Some(false));

    let bad = client
        .call_tool(
            CallToolRequestParams::new("todo_write").with_arguments(args(json!(
                {"todos": [{"content": "Plan", "status": "later"}]}
            ))),
        )
        .await
        .unwrap();
    assert_eq!(
        text(&bad),
        r#"Error: invalid arguments: todos[0].status: expected one of "pending", "in_progress", "completed", got "later""#
    );
    assert_eq!(bad.is_error, Some(true));

    let unknown = client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap();
    assert_eq!(
        text(&unknown),
        r#"Error: unknown tool "nope"; available tools: todo_write"#
    );

    // The accepted call, and only it, is in the connection's session.
    assert_eq!(session.next_seq(), 2);
    assert_eq!(
        tool_todo::current(&session).unwrap(),
        Some(vec![Todo::new("Plan", TodoStatus::InProgress)])
    );

    client.cancel().await.unwrap();
    server.await.unwrap();
}

/// Lists the first primes.
#[tool_runtime::tool]
fn primes(
    /// How many.
    count: usize,
) -> Vec<u32> {
    [2, 3, 5, 7, 11].into_iter().take(count).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_results_reach_an_rmcp_client_as_structured_content_its_output_schema_admits() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Primes>().unwrap();
    let server =
        McpServer::new(Arc::new(ctx), Agent::new("mcp-data", Session::in_memory())).unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        server.serve_connection(read, write).await.unwrap();
    });
    let client = ().serve(client_io).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let schema = serde_json::to_value(tools[0].output_schema.as_ref().unwrap()).unwrap();
    assert_eq!(schema["required"], json!(["result"]));
    let result = client
        .call_tool(CallToolRequestParams::new("primes").with_arguments(args(json!({"count": 4}))))
        .await
        .unwrap();
    assert_eq!(text(&result), "[2,3,5,7]");
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured, json!({"result": [2, 3, 5, 7]}));
    assert!(
        jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&structured)
    );

    client.cancel().await.unwrap();
    server.await.unwrap();
}

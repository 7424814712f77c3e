//! Any bytes as a message on an MCP connection, after the handshake: the server answers in
//! JSON-RPC only, and answers the next request — it keeps serving, whatever came before.
#![no_main]

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_host::mcp::McpServer;
use tool_runtime::{Agent, Ctx, Session};

static CTX: LazyLock<Arc<Ctx>> = LazyLock::new(|| {
    let mut ctx = Ctx::new();
    ctx.tools.set_max_args_bytes(64 * 1024);
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    Arc::new(ctx)
});

static RUNTIME: LazyLock<tokio::runtime::Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap());

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
const PROBE: &str = "{\"jsonrpc\":\"2.0\",\"id\":\"probe\",\"method\":\"tools/list\"}\n";

fuzz_target!(|data: &[u8]| {
    RUNTIME.block_on(async {
        let server = McpServer::new(Arc::clone(&CTX), Agent::new("fuzz", Session::in_memory())).unwrap();
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(async move {
            let (read, write) = tokio::io::split(server_io);
            let _ = server.serve_connection(read, write).await;
        });
        let (read, mut write) = tokio::io::split(client_io);
        write.write_all(INITIALIZE.as_bytes()).await.unwrap();
        write.write_all(data).await.unwrap();
        write.write_all(b"\n").await.unwrap();
        write.write_all(PROBE.as_bytes()).await.unwrap();
        let mut lines = BufReader::new(read).lines();
        let answered = tokio::time::timeout(Duration::from_secs(5), async {
            while let Ok(Some(line)) = lines.next_line().await {
                let message: serde_json::Value =
                    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON-RPC: {line:?}"));
                assert_eq!(message["jsonrpc"], "2.0", "{line}");
                if message["id"] == "probe" {
                    assert!(message["result"]["tools"].is_array(), "{line}");
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(answered, Ok(true), "the server stopped answering after {:?}", String::from_utf8_lossy(data));
        drop(write);
        drop(lines);
        let _ = serving.await;
    });
});

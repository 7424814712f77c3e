//! Any bytes as a message on an MCP connection, after the handshake: the server answers in
//! JSON-RPC only, answers the message itself when it is a request (an object with a `method` and
//! an integer or string `id`, whatever else it holds), and answers the next request — it keeps
//! serving, whatever came before.
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
        let mut request = is_request(data);
        let answered = tokio::time::timeout(Duration::from_secs(5), async {
            let mut probed = false;
            while let Ok(Some(line)) = lines.next_line().await {
                let message: serde_json::Value =
                    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON-RPC: {line:?}"));
                assert_eq!(message["jsonrpc"], "2.0", "{line}");
                if message["id"] == "probe" {
                    assert!(message["result"]["tools"].is_array(), "{line}");
                    probed = true;
                } else if message["id"] != "init" && !message["id"].is_null() {
                    request = false;
                }
                if probed && !request {
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

/// Whether `data` is one request the server must answer: a JSON object, on one line, with a
/// string `method` and an integer or string `id` (not the handshake's or the probe's), and
/// neither `result` nor `error` (a reply, which is never answered).
fn is_request(data: &[u8]) -> bool {
    if data.contains(&b'\n') {
        return false;
    }
    let Ok(serde_json::Value::Object(message)) = serde_json::from_slice(data) else {
        return false;
    };
    let id_ok = match message.get("id") {
        Some(serde_json::Value::String(id)) => id != "probe" && id != "init",
        Some(serde_json::Value::Number(id)) => id.is_i64(),
        _ => false,
    };
    id_ok
        && message.get("method").is_some_and(serde_json::Value::is_string)
        && !message.contains_key("result")
        && !message.contains_key("error")
}

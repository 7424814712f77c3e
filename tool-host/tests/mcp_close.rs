//! MCP answers everything it accepted: the client's end of input, with calls queued behind a
//! slow one for longer than rmcp's own grace after the end of input, still gets every answer;
//! and a result over `--max-result-bytes` of a call that recorded its work says the call ran.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tool_host::mcp::McpServer;
use tool_runtime::{Agent, Ctx, Session, tool};

/// Waits past its deadline.
#[tool(timeout = "3s")]
async fn stall() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "woke".into()
}

fn message(id: u64, name: &str, arguments: Value) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    format!("{call}\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_sent_before_the_input_ends_is_answered() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Stall>().unwrap();
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    let ctx = Arc::new(ctx);
    let session = Session::in_memory();
    let agent = Agent::new(session.id().to_owned(), session.clone());
    let server = McpServer::new(Arc::clone(&ctx), agent).unwrap();
    let (client, served) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(served);
    let serving = tokio::spawn(server.serve_connection(read, write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut input = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "closing", "version": "1"}}})
    .to_string();
    input.push('\n');
    input.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    // Two calls that each run to their 3 s deadline, then three lists: the last answers come
    // 6 s after the input ends, past rmcp's 5 s.
    input.push_str(&message(1, "stall", json!({})));
    input.push_str(&message(2, "stall", json!({})));
    for (id, content) in [(3, "a"), (4, "b"), (5, "c")] {
        let todos = json!({"todos": [{"content": content, "status": "pending"}]});
        input.push_str(&message(id, "todo_write", todos));
    }
    client_write.write_all(input.as_bytes()).await.unwrap();
    client_write.shutdown().await.unwrap();
    drop(client_write);
    let mut lines = tokio::io::BufReader::new(client_read).lines();
    let mut answers = std::collections::BTreeMap::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let answer: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = answer["id"].as_u64() {
            answers.insert(id, answer["result"]["content"][0]["text"].clone());
        }
    }
    serving.await.unwrap().unwrap();
    assert_eq!(
        answers.keys().copied().collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5],
        "{answers:?}"
    );
    assert_eq!(answers[&1], "Error: stall timed out after 3 s");
    assert_eq!(answers[&2], "Error: stall timed out after 3 s");
    assert_eq!(
        answers[&5],
        "Updated todo list: 1 pending, 0 in progress, 0 completed"
    );
    // Every list was applied, in the order sent.
    let todos = tool_todo::current(&session).unwrap().unwrap();
    assert_eq!(todos[0].content, "c");
    assert_eq!(session.next_seq(), 4);
}

#[test]
fn a_result_over_the_cap_of_a_call_that_recorded_its_work_says_it_ran() {
    let file = std::env::temp_dir().join(format!("mcp-capped-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--max-result-bytes", "16", "--session"])
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    write!(
        stdin,
        "{}\n{}\n{}",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "capped", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        message(
            1,
            "todo_write",
            json!({"todos": [{"content": "a", "status": "pending"}]})
        ),
    )
    .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let answer: Value = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|answer| answer["id"] == 1)
        .unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "todo_write ran and its work is recorded, but its result of 56 bytes is more than the \
         limit of 16 bytes; the result was dropped"
    );
    // And it did: the list is in the session.
    let replay = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("replay")
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&replay.stdout).contains("a"));
    assert_eq!(replay.status.code(), Some(0));
}

#[test]
fn every_tool_result_has_the_same_shape() {
    let file = std::env::temp_dir().join(format!("mcp-shapes-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--max-args-bytes", "1000", "--session"])
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "shapes", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let calls = [
        // Answered by the tool, by the runtime's parser, by the registry, and by the transport
        // (a message longer than a line may be).
        message(1, "todo_write", json!({"todos": []})),
        message(2, "todo_write", json!({"todos": 5})),
        message(3, "nope", json!({})),
        message(4, "todo_write", json!({"todos": "x".repeat(200_000)})),
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"todo_write\",\"arguments\":{\"todos\":[1e400]}}}\n".to_owned(),
    ];
    for call in calls {
        stdin.write_all(call.as_bytes()).unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let results: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|answer| answer["id"] != 0)
        .collect();
    assert_eq!(results.len(), 5);
    for answer in &results {
        let keys: Vec<&str> = answer["result"]
            .as_object()
            .unwrap_or_else(|| panic!("{answer}"))
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["content", "isError"], "{answer}");
    }
}

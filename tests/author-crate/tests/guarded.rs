//! Hooks on a host of the author's own (`author-guarded`): a denial, rewrites (one the schema then
//! refuses) and a redaction, seen the same in the REPL, `call` and over MCP.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

mod common;

const HOST: &str = env!("CARGO_BIN_EXE_author-guarded");

fn state() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("author-guarded-{}", std::process::id()))
}

const DENIED: &str = "Error: reset is not allowed on this host";
const REFUSED: &str = "Error: invalid arguments: key: expected a string, got 42";

#[test]
fn the_repl_and_call_show_what_the_hooks_decide() {
    let mut repl = Command::new(HOST)
        .arg("repl")
        .env("XDG_STATE_HOME", state())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = repl.stdin.take().unwrap();
        for line in [
            "reset",
            r#"page {"size": 50}"#,
            r#"page {"size": 5, "exact": true}"#,
            r#"forget {"key": "number"}"#,
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let out = String::from_utf8(repl.wait_with_output().unwrap().stdout).unwrap();
    for shown in [
        DENIED,
        "size 20, exact false",
        "size 5, exact [redacted]",
        REFUSED,
    ] {
        assert!(out.contains(shown), "{shown} not in {out}");
    }
    let call = Command::new(HOST)
        .args([
            "call",
            "--no-agent",
            "page",
            r#"{"size": 99, "exact": true}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&call.stdout),
        "size 20, exact [redacted]\n"
    );
}

#[test]
fn an_mcp_client_reads_what_the_hooks_decide() {
    let call = |id: u32, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    };
    let (answers, _) = common::mcp_exchange(
        HOST,
        &state().join("mcp"),
        &[
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "guarded", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            call(1, "reset", json!({})),
            call(2, "page", json!({"size": 50, "exact": true})),
            call(3, "forget", json!({"key": "number"})),
        ],
    );
    let result = |id: u32| {
        let answer = answers.iter().find(|answer| answer["id"] == id).unwrap();
        (
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned(),
            answer["result"]["isError"] == true,
        )
    };
    assert_eq!(result(1), (DENIED.to_owned(), true));
    assert_eq!(result(2), ("size 20, exact [redacted]".to_owned(), false));
    assert_eq!(result(3), (REFUSED.to_owned(), true));
}

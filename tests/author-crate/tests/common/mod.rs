//! Shared by the author's tests: one MCP session on standard input and output with a host of the
//! author's own.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Sends `messages` to `host mcp` (its sessions under `session_dir`), one per line, closes its
/// input, and returns the messages it answered, in order, and what it wrote on standard error.
pub fn mcp_exchange(host: &str, session_dir: &Path, messages: &[Value]) -> (Vec<Value>, String) {
    let mut mcp = Command::new(host)
        .args(["mcp", "--session-dir"])
        .arg(session_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = mcp.stdin.take().unwrap();
        for message in messages {
            writeln!(stdin, "{message}").unwrap();
        }
    }
    let output = mcp.wait_with_output().unwrap();
    let answers = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect();
    (
        answers,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

//! `toolhost mcp` byte for byte on its standard input and output: every request with an id gets
//! an answer, and calls land in the session in the order they were sent.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long an answer may take before the test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    dir: PathBuf,
}

impl Server {
    fn start(name: &str, extra: &[&str]) -> Server {
        let mut server = Server::spawn(name, extra);
        server.initialize();
        server
    }

    fn spawn(name: &str, extra: &[&str]) -> Server {
        let dir = std::env::temp_dir().join(format!("toolhost-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .arg("mcp")
            .arg("--session-dir")
            .arg(&dir)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            dir,
        }
    }

    fn initialize(&mut self) {
        let server = self;
        server.send(
            r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        );
        server.answer(&json!("init"));
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message on standard output.
    fn next(&self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {line:.200}")),
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The answer to the request `id`, skipping other messages.
    fn answer(&self, id: &Value) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let message = self.next(deadline);
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == *id {
                return message;
            }
        }
    }

    fn call(&mut self, id: &str, args: &str) -> Value {
        self.send(&call_line(id, args));
        self.answer(&json!(id))
    }

    fn ping_is_answered(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":"ping","method":"ping"}"#);
        let pong = self.answer(&json!("ping"));
        assert_eq!(pong["result"], json!({}), "{pong}");
    }

    /// Closes standard input, waits for the server to end, and gives the todo lists written to
    /// its session, in the session's order.
    fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        let files: Vec<_> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        todo_lists(&files[0])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn call_line(id: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"todo_write","arguments":{args}}}}}"#
    )
}

/// The text and `isError` of a tool result.
fn tool_result(answer: &Value) -> (&str, bool) {
    let result = &answer["result"];
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer:.300}"));
    assert_eq!(content.len(), 1, "{answer}");
    (
        content[0]["text"].as_str().unwrap(),
        result["isError"].as_bool().unwrap(),
    )
}

fn toolhost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .output()
        .unwrap()
}

/// What `toolhost call todo_write ARGS` prints for these arguments.
fn call_text(args: &str) -> String {
    let output = toolhost(&["call", "todo_write", args]);
    String::from_utf8(output.stdout)
        .unwrap()
        .strip_suffix('\n')
        .unwrap()
        .to_owned()
}

#[test]
fn arguments_a_typed_parse_refuses_get_the_answer_toolhost_call_gives() {
    let nested = format!(r#"{{"todos":{}{}}}"#, "[".repeat(128), "]".repeat(128));
    let cases = [
        r#"{"todos":[{"content":"\ud83d","status":"pending"}]}"#,
        r#"{"todos":[{"content":"a","status":"pending","n":1e400}]}"#,
        &nested,
        r#"{"todos":[],"todos":[{"content":"a","status":"pending"}]}"#,
    ];
    let mut server = Server::start("refused", &[]);
    for (i, args) in cases.iter().enumerate() {
        let expected = call_text(args);
        assert!(expected.starts_with("Error: "), "{expected}");
        let answer = server.call(&format!("c{i}"), args);
        assert_eq!(
            tool_result(&answer),
            (expected.as_str(), true),
            "{args:.80}"
        );
    }
    server.ping_is_answered();
}

#[test]
fn a_request_past_sixteen_mib_is_carried_when_the_size_cap_allows_it() {
    let mut server = Server::start("large", &["--max-args-bytes", "25165824"]);
    // A valid list is at most 1,000 todos of 10,000 characters: written as `\u` escapes, 350
    // of them are over 20 MiB.
    let todos: Vec<String> = (0..350)
        .map(|i| {
            let content = format!("{i:04}{}", "\\u0078".repeat(9_990));
            format!(r#"{{"content":"{content}","status":"pending"}}"#)
        })
        .collect();
    let args = format!(r#"{{"todos":[{}]}}"#, todos.join(","));
    assert!(args.len() > 20 << 20);
    let answer = server.call("large", &args);
    assert_eq!(
        tool_result(&answer),
        (
            "Updated todo list: 350 pending, 0 in progress, 0 completed",
            false
        )
    );
    // The size cap counts the bytes sent: spaces a re-serialization would drop count too.
    let padded = format!(r#"{{"todos":[{}]}}"#, " ".repeat(25165824));
    let answer = server.call("padded", &padded);
    let expected = format!(
        "Error: invalid arguments: {} bytes is more than the limit of 25165824 bytes",
        padded.len()
    );
    assert_eq!(tool_result(&answer), (expected.as_str(), true));
    server.ping_is_answered();
}

#[test]
fn a_request_past_the_line_limit_is_answered_with_its_id() {
    let mut server = Server::start("over", &["--max-args-bytes", "65536"]);
    let args = format!(r#"{{"todos":"{}"}}"#, "x".repeat(1 << 20));
    let line = call_line("over", &args);
    let answer = server.call("over", &args);
    let (text, is_error) = tool_result(&answer);
    assert!(is_error);
    assert!(
        text.starts_with(&format!(
            "Error: invalid arguments: the request is {} bytes, more than the limit of 131072 bytes",
            line.len()
        )),
        "{text}"
    );
    assert!(text.contains("--max-args-bytes"), "{text}");

    let ping = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"_meta":{{"x":"{}"}}}}}}"#,
        "y".repeat(1 << 20)
    );
    server.send(&ping);
    let answer = server.answer(&json!(9));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    server.ping_is_answered();
}

#[test]
fn a_broken_line_with_an_id_gets_an_error_with_it() {
    let mut server = Server::start("broken", &[]);
    server.send(r#"{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"todo_wr"#);
    let answer = server.answer(&json!("cut"));
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    server.send_bytes(
        b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\",\"params\":{\"\xff\":1}}",
    );
    let answer = server.answer(&json!(12));
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    server.send(r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{}}}"#);
    let answer = server.answer(&json!(13));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("name"), "{message}");
    // Lines with no id to answer are skipped; the connection goes on.
    server.send("garbage");
    server.send(r#"{"jsonrpc":"2.0","method":"tools/list","params":"#);
    server.ping_is_answered();
    server.finish();
}

fn todo_lists(file: &Path) -> Vec<Value> {
    let output = toolhost(&["replay", file.to_str().unwrap(), "--events"]);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["kind"] == "todo/write")
        .map(|event| event["data"]["todos"].clone())
        .collect()
}

#[test]
fn pipelined_calls_land_in_the_order_sent() {
    const CALLS: usize = 2000;
    let mut server = Server::start("order", &[]);
    let list = |i: usize| json!([{"content": format!("task {i}"), "status": "pending"}]);
    let mut batch = String::new();
    for i in 0..CALLS {
        batch.push_str(&call_line(
            &i.to_string(),
            &json!({"todos": list(i)}).to_string(),
        ));
        batch.push('\n');
    }
    server
        .stdin
        .as_mut()
        .unwrap()
        .write_all(batch.as_bytes())
        .unwrap();
    server.stdin.as_mut().unwrap().flush().unwrap();
    let deadline = Instant::now() + PATIENCE;
    let mut answered = 0;
    while answered < CALLS {
        let answer = server.next(deadline);
        assert!(!tool_result(&answer).1, "{answer}");
        answered += 1;
    }
    let lists = server.finish();
    assert_eq!(lists.len(), CALLS);
    let inversions = lists
        .iter()
        .enumerate()
        .filter(|(i, written)| **written != list(*i))
        .count();
    assert_eq!(inversions, 0, "calls out of the order sent");
    assert_eq!(lists.last(), Some(&list(CALLS - 1)));
}

#[test]
fn the_size_cap_has_a_ceiling_the_transport_carries() {
    let output = toolhost(&["mcp", "--max-args-bytes", "268435457"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("268435456"), "{stderr}");
    assert!(output.stdout.is_empty());

    let help = toolhost(&["mcp", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("268435456"), "{help}");
}

#[test]
fn a_call_answered_before_initialize_holds_up_no_later_call() {
    let mut server = Server::spawn("early", &[]);
    let early = server.call("early", r#"{"todos":[]}"#);
    assert!(early["error"]["code"].is_i64(), "{early}");
    server.initialize();
    let answer = server.call("later", r#"{"todos":[]}"#);
    assert_eq!(
        tool_result(&answer),
        (
            "Updated todo list: 0 pending, 0 in progress, 0 completed",
            false
        )
    );
    assert_eq!(server.finish(), [json!([])]);
}

// Regression (an attack round): three calls sharing an id in flight all ran, and one answer
// came back; the model never learned of two of its calls.
#[test]
fn every_call_sharing_an_id_in_flight_gets_an_answer() {
    let mut server = Server::start("same-id", &[]);
    let mut batch = String::new();
    for content in ["a", "b", "c"] {
        let args = json!({"todos": [{"content": content, "status": "pending"}]}).to_string();
        batch.push_str(&call_line("7", &args));
        batch.push('\n');
    }
    server.send(batch.trim_end());
    let deadline = Instant::now() + PATIENCE;
    let (mut results, mut refused) = (0, 0);
    while results + refused < 3 {
        let answer = server.next(deadline);
        assert_eq!(answer["id"], "7", "{answer}");
        if answer["error"]["code"] == -32600 {
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains("in flight already"), "{message}");
            refused += 1;
        } else {
            assert!(!tool_result(&answer).1, "{answer}");
            results += 1;
        }
    }
    server.ping_is_answered();
    // What ran is what was answered as run.
    assert_eq!(server.finish().len(), results);
}

// Regression (an attack round): ids JSON-RPC allows but rmcp cannot carry were skipped.
#[test]
fn a_request_with_an_id_rmcp_cannot_carry_is_answered_with_it() {
    let mut server = Server::start("odd-ids", &[]);
    for id in ["1.5", "18446744073709551616", "null", "-1e300"] {
        server.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let line = server.lines.recv_timeout(PATIENCE).unwrap();
        assert!(
            line.starts_with(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600"#
            )),
            "{line}"
        );
    }
    server.ping_is_answered();
    server.finish();
}

/// Standard input and output that are files, not pipes (`toolhost mcp < requests > answers`):
/// served through tokio's standard streams rather than the pipes' reactor, every request with
/// an id answered, and the server gone at the end of its input.
#[test]
fn requests_from_a_file_are_answered_into_a_file() {
    let dir = std::env::temp_dir().join(format!("toolhost-mcp-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let requests = dir.join("requests.jsonl");
    let answers = dir.join("answers.jsonl");
    let mut lines = vec![
        r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
    ];
    for i in 0..3 {
        lines.push(call_line(
            &format!("call-{i}"),
            &json!({"todos": [{"content": format!("task {i}"), "status": "pending"}]}).to_string(),
        ));
    }
    std::fs::write(&requests, lines.join("\n") + "\n").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("mcp")
        .arg("--session-dir")
        .arg(dir.join("sessions"))
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers).unwrap())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
    let answered: Vec<Value> = std::fs::read_to_string(&answers)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // Answers go out as calls end: in any order.
    let mut ids: Vec<&str> = answered
        .iter()
        .map(|answer| answer["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["call-0", "call-1", "call-2", "init"]);
    for answer in answered.iter().filter(|answer| answer["id"] != "init") {
        let (text, is_error) = tool_result(answer);
        assert!(!is_error, "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The flags of the server's descriptor `fd` (`/proc/PID/fdinfo`), and what it is open on; `None`
/// for a descriptor closed meanwhile.
fn descriptor(pid: u32, fd: &str) -> Option<(u32, PathBuf)> {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).ok()?;
    let flags = info
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .map(|flags| u32::from_str_radix(flags.trim(), 8).unwrap())?;
    let target = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
    Some((flags, target))
}

/// Pipes, as clients start a server: read and written through descriptors of the server's own
/// on the same pipes, non-blocking, while its standard input and output keep their blocking mode
/// (a process that shares them, or a child the server starts, is not surprised by `EAGAIN`).
#[cfg(target_os = "linux")]
#[test]
fn pipes_are_served_non_blocking_and_the_standard_streams_stay_blocking() {
    const NONBLOCK: u32 = 0o4000;
    let mut server = Server::start("pipes", &[]);
    server.send(&call_line(
        "one",
        r#"{"todos":[{"content":"a","status":"pending"}]}"#,
    ));
    assert!(!tool_result(&server.answer(&json!("one"))).1);
    let pid = server.child.id();
    for stdio in ["0", "1"] {
        let (flags, pipe) = descriptor(pid, stdio).unwrap();
        assert!(pipe.to_string_lossy().starts_with("pipe:"), "{pipe:?}");
        assert_eq!(flags & NONBLOCK, 0, "fd {stdio} was made non-blocking");
        let reopened: Vec<u32> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|fd| fd != stdio)
            .filter_map(|fd| descriptor(pid, &fd))
            .filter(|(_, target)| *target == pipe)
            .map(|(flags, _)| flags)
            .collect();
        assert!(
            reopened.iter().any(|flags| flags & NONBLOCK != 0),
            "no non-blocking descriptor on fd {stdio}'s pipe: {reopened:?}"
        );
    }
    server.finish();
}

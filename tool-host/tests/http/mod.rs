//! `toolhost mcp --http` as its tests start it, and a plain HTTP/1.1 client that can say what a
//! well-behaved one never would.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// The protocol revision of the stateless era.
pub const STATELESS: &str = "2026-07-28";

/// A `toolhost mcp --http` process on a free loopback port.
pub struct HttpServer {
    pub child: Child,
    pub addr: SocketAddr,
    pub url: String,
    stderr: Option<BufReader<ChildStderr>>,
}

impl HttpServer {
    /// `toolhost mcp --http 127.0.0.1:0 ARGS…`, once it says where it serves.
    pub fn start(args: &[&str]) -> HttpServer {
        Self::start_on("127.0.0.1:0", args)
    }

    /// `toolhost mcp --http ADDR ARGS…`.
    pub fn start_on(addr: &str, args: &[&str]) -> HttpServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command.args(["mcp", "--http", addr]).args(args);
        Self::spawn(command)
    }

    /// `command` (a `toolhost mcp --http …`), once it says where it serves.
    pub fn spawn(mut command: Command) -> HttpServer {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let url = line
            .split("serving ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        let addr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap()
            .parse()
            .unwrap();
        HttpServer {
            child,
            addr,
            url,
            stderr: Some(stderr),
        }
    }

    /// The rest of what it wrote on standard error, once it has exited.
    pub fn rest_of_stderr(&mut self) -> String {
        let mut rest = String::new();
        if let Some(mut stderr) = self.stderr.take() {
            stderr.read_to_string(&mut rest).unwrap();
        }
        rest
    }

    /// SIGTERM, then its exit status and standard error.
    pub fn stop(mut self) -> (std::process::ExitStatus, String) {
        signal(&self.child, "TERM");
        let status = self.child.wait().unwrap();
        let rest = self.rest_of_stderr();
        (status, rest)
    }

    /// Peak resident memory (VmHWM) in KiB.
    pub fn peak_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// A `tools/call` of todo_write with `args` as the exact arguments text, in the stateless
    /// era, for agent session `session`; its result.
    pub fn call(&self, session: &str, id: u64, args: &str) -> Value {
        let body = call_body(id, args);
        let reply = post(self.addr, &stateless_headers(session, "todo_write"), &body);
        assert_eq!(reply.status, 200, "{reply:?}");
        reply.message()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `signal` (`TERM`, `KILL`, `STOP`…) to a child with kill(1).
pub fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A `tools/call` of todo_write whose `arguments` are `args`, written as they are.
pub fn call_body(id: u64, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"todo_write","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

/// The headers of a stateless-era `tools/call` of `tool` for agent session `session`.
pub fn stateless_headers(session: &str, tool: &str) -> Vec<(String, String)> {
    vec![
        ("MCP-Protocol-Version".into(), STATELESS.into()),
        ("Mcp-Method".into(), "tools/call".into()),
        ("Mcp-Name".into(), tool.into()),
        ("Agent-Session".into(), session.into()),
    ]
}

/// An HTTP response, its body whole (chunks joined).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC message the body carries: the body itself, or the last `data:` of an SSE
    /// stream that is a response.
    pub fn message(&self) -> Value {
        self.try_message()
            .unwrap_or_else(|| panic!("no response in {self:?}"))
    }

    /// The response the body carries, if it came whole (a server killed mid-answer leaves
    /// none).
    pub fn try_message(&self) -> Option<Value> {
        if self
            .header("content-type")
            .is_some_and(|value| value.starts_with("text/event-stream"))
        {
            self.events()
                .into_iter()
                .rfind(|event| event.get("id").is_some())
        } else {
            serde_json::from_str(&self.body).ok()
        }
    }

    /// The JSON `data:` of each SSE event.
    pub fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    }
}

/// `POST /mcp` with a JSON body, `Accept` of both kinds, and `headers`.
pub fn post(addr: SocketAddr, headers: &[(String, String)], body: &str) -> Reply {
    let mut all: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        (
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ),
    ];
    all.extend_from_slice(headers);
    request(addr, "POST", "/mcp", &all, body.as_bytes())
}

/// One request on a connection of its own (`Connection: close`), its response read whole.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before the body is all sent, and close.
    let _ = stream.write_all(body);
    read_reply(&mut stream)
}

/// A response read from `stream` to its end.
pub fn read_reply(stream: &mut impl Read) -> Reply {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_reply(&raw)
}

pub fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked")
    });
    let body = if chunked {
        unchunk(rest)
    } else {
        rest.to_vec()
    };
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

fn unchunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = rest.windows(2).position(|window| window == b"\r\n") {
        let size = std::str::from_utf8(&rest[..end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        let start = end + 2;
        body.extend_from_slice(&rest[start..(start + size).min(rest.len())]);
        rest = &rest[(start + size + 2).min(rest.len())..];
    }
    body
}

/// The text and `isError` of a tool result.
pub fn tool_result(message: &Value) -> (String, bool) {
    let result = &message["result"];
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{message}"));
    (
        content[0]["text"].as_str().unwrap().to_owned(),
        result["isError"].as_bool().unwrap(),
    )
}

/// An `initialize`-era session: `initialize`, then `notifications/initialized`; its
/// `Mcp-Session-Id`.
pub fn initialize(addr: SocketAddr) -> String {
    initialize_as(addr, &[])
}

/// [`initialize`] with `extra` headers (a bearer token) on each request.
pub fn initialize_as(addr: SocketAddr, extra: &[(String, String)]) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}},
    });
    let reply = post(addr, extra, &body.to_string());
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let mut headers = session_headers(&id);
    headers.extend_from_slice(extra);
    let reply = post(addr, &headers, &initialized.to_string());
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

/// The headers of a request in `initialize`-era session `id`.
pub fn session_headers(id: &str) -> Vec<(String, String)> {
    vec![
        ("Mcp-Session-Id".into(), id.into()),
        ("MCP-Protocol-Version".into(), "2025-11-25".into()),
    ]
}

/// A `tools/call` of todo_write with these arguments in `initialize`-era session `id`.
pub fn session_call(addr: SocketAddr, id: &str, call: u64, args: &str) -> Reply {
    session_call_as(addr, id, call, args, &[])
}

/// [`session_call`] with `extra` headers.
pub fn session_call_as(
    addr: SocketAddr,
    id: &str,
    call: u64,
    args: &str,
    extra: &[(String, String)],
) -> Reply {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{call},"method":"tools/call","params":{{"name":"todo_write","arguments":{args}}}}}"#
    );
    let mut headers = session_headers(id);
    headers.extend_from_slice(extra);
    post(addr, &headers, &body)
}

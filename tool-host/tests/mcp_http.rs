//! `toolhost mcp --http` from outside, as a hostile or careless client meets it: the exact
//! arguments text reaches the runtime's parser, a body over the cap is refused unread, requests
//! that are not the protocol get clear statuses, clients that stall or walk away cost the others
//! nothing, and a session held elsewhere slows only its own calls. (The official Python client
//! drives the endpoint in `mcp_python.rs` and the author crate; replicas behind a load balancer
//! in `mcp_http_replicas.rs`.)

mod http;

use std::io::Write;
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use http::{HttpServer, Reply, post, request, stateless_headers, tool_result};
use serde_json::{Value, json};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolhost-http-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What `toolhost call todo_write ARGS` prints for these arguments.
fn call_text(args: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["call", "todo_write", args])
        .output()
        .unwrap();
    assert!(
        output.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .trim_end_matches('\n')
        .to_owned()
}

fn server(name: &str, args: &[&str]) -> HttpServer {
    let dir = scratch(name);
    let mut all = vec!["--session-dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let all: Vec<String> = all.into_iter().map(str::to_owned).collect();
    HttpServer::start(&all.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A call the server answers, proving it still serves.
fn still_serves(server: &HttpServer) {
    let message = server.call(
        "still",
        99,
        r#"{"todos":[{"content":"still here","status":"pending"}]}"#,
    );
    assert_eq!(
        tool_result(&message),
        (
            "Updated todo list: 1 pending, 0 in progress, 0 completed".to_owned(),
            false
        )
    );
}

#[test]
fn arguments_reach_the_parser_as_sent_and_get_the_texts_toolhost_call_gives() {
    let server = server("raw", &["--max-args-bytes", "65536"]);
    let nested = format!(r#"{{"todos":{}{}}}"#, "[".repeat(128), "]".repeat(128));
    let cases = [
        r#"{"todos":[{"content":"\ud83d","status":"pending"}]}"#,
        r#"{"todos":[{"content":"a","status":"pending","n":1e400}]}"#,
        &nested,
        r#"{"todos":[],"todos":[{"content":"a","status":"pending"}]}"#,
        r#"{"todos":[{"content":"a","status":"done"}]}"#,
    ];
    for (i, args) in cases.iter().enumerate() {
        let expected = call_text(args);
        assert!(expected.starts_with("Error: "), "{expected}");
        let message = server.call("raw", i as u64, args);
        assert_eq!(message["id"], i, "{message}");
        assert_eq!(tool_result(&message), (expected, true), "{args:.80}");
    }
    // Spaces a re-serialization would drop count toward the cap, as on stdio.
    let padded = format!(r#"{{"todos":[{}]}}"#, " ".repeat(65_536));
    let message = server.call("raw", 50, &padded);
    assert_eq!(
        tool_result(&message).0,
        format!(
            "Error: invalid arguments: {} bytes is more than the limit of 65536 bytes",
            padded.len()
        )
    );
    still_serves(&server);
}

#[test]
fn a_body_over_the_cap_is_refused_before_it_is_read() {
    let server = server("huge", &["--max-args-bytes", "65536"]);
    // Declared: answered from the head alone, though no byte of the body comes.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1073741824\r\n\r\n",
        server.addr
    )
    .unwrap();
    let reply = http::read_reply(&mut stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    let message: Value = serde_json::from_str(&reply.body).unwrap();
    let text = message["error"]["message"].as_str().unwrap();
    assert!(
        text.contains("1073741824 bytes") && text.contains("limit of 131072 bytes"),
        "{text}"
    );
    assert!(text.contains("--max-args-bytes"), "{text}");

    // Chunked, no length said: cut at the limit.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.addr
    )
    .unwrap();
    let chunk = vec![b' '; 64 * 1024];
    let mut sent = 0;
    // The server answers and stops reading once past the limit; keep writing until it does.
    while sent < 8 << 20 {
        let head = format!("{:x}\r\n", chunk.len());
        if stream.write_all(head.as_bytes()).is_err()
            || stream.write_all(&chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
        sent += chunk.len();
    }
    let reply = http::read_reply(&mut stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.body.contains("limit of 131072 bytes"), "{reply:?}");
    still_serves(&server);
}

#[test]
fn what_is_not_the_protocol_gets_a_clear_status() {
    let server = server("garbage", &[]);
    let addr = server.addr;
    let session = stateless_headers("garbage", "todo_write");

    // Not JSON: a JSON-RPC parse error.
    let reply = post(addr, &session, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(reply.message()["error"]["code"], -32700, "{reply:?}");
    let reply = post(addr, &session, "\u{0}\u{1}garbage");
    assert!(reply.status == 400, "{reply:?}");

    // A known method with broken params and an id: an error with that id.
    let reply = post(
        addr,
        &session,
        r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":5}}"#,
    );
    assert!(reply.status == 400 || reply.status == 200, "{reply:?}");
    let message = reply.message();
    assert_eq!(message["id"], "x", "{message}");
    assert!(message["error"]["message"].is_string(), "{message}");

    // Not JSON at all, by its content type: 415, unread.
    let reply = request(
        addr,
        "POST",
        "/mcp",
        &[
            ("Content-Type".into(), "text/plain".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ],
        b"hello",
    );
    assert_eq!(reply.status, 415, "{reply:?}");

    // A page of a foreign origin (DNS rebinding): 403.
    let mut foreign = session.clone();
    foreign.push(("Origin".into(), "https://evil.example".into()));
    let reply = post(
        addr,
        &foreign,
        &http::call_body(1, r#"{"todos":[{"content":"a","status":"pending"}]}"#),
    );
    assert_eq!(reply.status, 403, "{reply:?}");
    // A loopback page is served.
    let mut local = session.clone();
    local.push(("Origin".into(), format!("http://localhost:{}", addr.port())));
    let reply = post(
        addr,
        &local,
        &http::call_body(2, r#"{"todos":[{"content":"a","status":"pending"}]}"#),
    );
    assert_eq!(reply.status, 200, "{reply:?}");

    // A call naming no agent session runs in one the server begins, whose handle the result's
    // `_meta` carries; a name that is not one: a JSON-RPC error saying how.
    let body = http::call_body(3, r#"{"todos":[]}"#);
    let anonymous: Vec<(String, String)> = session
        .iter()
        .filter(|(name, _)| name != "Agent-Session")
        .cloned()
        .collect();
    let message = post(addr, &anonymous, &body).message();
    assert_eq!(
        tool_result(&message),
        (
            "Updated todo list: 0 pending, 0 in progress, 0 completed".to_owned(),
            false
        ),
        "{message}"
    );
    let handle = message["result"]["_meta"]["agentSession"]
        .as_str()
        .unwrap_or_default();
    assert!(
        handle.len() == 34
            && handle.starts_with("m-")
            && handle[2..].bytes().all(|byte| byte.is_ascii_hexdigit()),
        "{message}"
    );
    let message = post(addr, &stateless_headers("../etc", "todo_write"), &body).message();
    let text = message["error"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("invalid session name"), "{message}");

    // Another path, another method.
    let reply = request(addr, "GET", "/other", &[], b"");
    assert_eq!(reply.status, 404, "{reply:?}");
    let reply = request(addr, "PUT", "/mcp", &[], b"");
    assert_eq!(reply.status, 405, "{reply:?}");
    // An initialize-era session that does not exist.
    let reply = http::session_call(addr, "no-such-session", 4, r#"{"todos":[]}"#);
    assert_eq!(reply.status, 404, "{reply:?}");
    still_serves(&server);
}

#[test]
fn stalled_abandoned_and_unread_clients_cost_the_others_nothing() {
    let server = server("stalls", &[]);
    let addr = server.addr;
    let body = http::call_body(1, r#"{"todos":[{"content":"a","status":"pending"}]}"#);
    let mut held = Vec::new();
    // 1,000 connections opened and abandoned: some say nothing, some half a head.
    for i in 0..1000 {
        let mut stream = TcpStream::connect(addr).unwrap();
        if i % 2 == 0 {
            let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        }
        if i % 4 == 0 {
            held.push(stream);
        }
    }
    // Slow drips: a head sent a byte at a time, a body that never finishes.
    let mut drips: Vec<TcpStream> = (0..50).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len() + 10
    );
    // Clients that send calls and never read their answers.
    let mut unread = Vec::new();
    for i in 0..50 {
        let mut stream = TcpStream::connect(addr).unwrap();
        let mut headers = String::new();
        for (name, value) in stateless_headers(&format!("unread-{i}"), "todo_write") {
            headers.push_str(&format!("{name}: {value}\r\n"));
        }
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: text/event-stream, application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        unread.push(stream);
    }
    let started = Instant::now();
    for (step, byte) in head.bytes().enumerate().take(40) {
        for drip in &mut drips {
            let _ = drip.write_all(&[byte]);
        }
        if step % 10 == 0 {
            // Meanwhile others are served, promptly.
            let asked = Instant::now();
            still_serves(&server);
            assert!(asked.elapsed() < Duration::from_secs(5));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(started.elapsed() < Duration::from_secs(60));
    // A head that never finishes is not waited for long: the connection is closed.
    let mut stalled = &drips[0];
    stalled
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut rest = Vec::new();
    let waited = Instant::now();
    let _ = std::io::Read::read_to_end(&mut stalled, &mut rest);
    assert!(
        waited.elapsed() < Duration::from_secs(25),
        "a stalled head kept its connection {:?}",
        waited.elapsed()
    );
    // All of that costs little memory.
    let peak = server.peak_kib();
    assert!(peak < 256 * 1024, "peak resident memory {peak} KiB");
    drop(held);
    drop(drips);
    drop(unread);
    still_serves(&server);
}

#[test]
fn an_initialize_era_session_is_an_agent_session_and_delete_ends_it() {
    let dir = scratch("delete");
    let server = HttpServer::start(&["--session-dir", dir.to_str().unwrap()]);
    let id = http::initialize(server.addr);
    let reply = http::session_call(
        server.addr,
        &id,
        1,
        r#"{"todos":[{"content":"kept","status":"in_progress"}]}"#,
    );
    assert_eq!(
        tool_result(&reply.message()),
        (
            "Updated todo list: 0 pending, 1 in progress, 0 completed".to_owned(),
            false
        )
    );
    let reply: Reply = request(
        server.addr,
        "DELETE",
        "/mcp",
        &http::session_headers(&id),
        b"",
    );
    assert_eq!(reply.status, 204, "{reply:?}");
    // Ended: its id is not served again, and its log stays, to be replayed.
    let reply = http::session_call(server.addr, &id, 2, r#"{"todos":[]}"#);
    assert_eq!(reply.status, 404, "{reply:?}");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    let replay = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("replay")
        .arg(dir.join(format!("{id}.jsonl")))
        .args(["--format", "json"])
        .output()
        .unwrap();
    let shown: Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(
        shown,
        json!([{"content": "kept", "status": "in_progress"}]),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

#[test]
fn an_address_that_is_not_one_is_a_usage_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--http", "nowhere:port"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("give PORT, IP:PORT"), "{stderr}");
}

/// A session held by another process (its file's lock, or its PostgreSQL writer lease): its
/// calls wait for it, off the server's workers, while every other session is served at once.
fn a_held_session_waits_alone(store: Option<&str>) {
    let dir = scratch(if store.is_some() { "held-pg" } else { "held" });
    let held = format!("held-{}", std::process::id());
    let target = match store {
        Some(_) => held.clone(),
        None => dir.join(format!("{held}.jsonl")).display().to_string(),
    };
    let mut holder = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    holder
        .args(["mcp", "--session", &target])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut server = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    server.args(["mcp", "--http", "127.0.0.1:0"]);
    match store {
        Some(url) => {
            holder.env("TOOLHOST_STORE", url);
            server.env("TOOLHOST_STORE", url);
        }
        None => {
            holder.env_remove("TOOLHOST_STORE");
            server
                .env_remove("TOOLHOST_STORE")
                .arg("--session-dir")
                .arg(&dir);
        }
    }
    let mut holder = holder.spawn().unwrap();
    // Once it answers, it holds the session.
    let mut stdin = holder.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"holder","version":"1"}}}}}}"#
    )
    .unwrap();
    let mut answer = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().unwrap()),
        &mut answer,
    )
    .unwrap();
    assert!(answer.contains("\"id\":1"), "{answer}");

    let server = HttpServer::spawn(server);
    let addr = server.addr;
    let waiting: Vec<_> = (0..8)
        .map(|i| {
            let held = held.clone();
            std::thread::spawn(move || {
                let body =
                    http::call_body(i, r#"{"todos":[{"content":"late","status":"pending"}]}"#);
                post(addr, &stateless_headers(&held, "todo_write"), &body)
            })
        })
        .collect();
    // Meanwhile, 40 other sessions are each served promptly.
    std::thread::sleep(Duration::from_millis(200));
    for i in 0..40 {
        let asked = Instant::now();
        let message = server.call(
            &format!("free-{i}-{}", std::process::id()),
            i,
            r#"{"todos":[{"content":"free","status":"pending"}]}"#,
        );
        assert!(!tool_result(&message).1, "{message}");
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "{:?}",
            asked.elapsed()
        );
    }
    assert!(waiting.iter().all(|call| !call.is_finished()));
    // Let go: the waiting calls go through.
    drop(stdin);
    holder.wait().unwrap();
    for call in waiting {
        let reply = call.join().unwrap();
        assert_eq!(
            tool_result(&reply.message()),
            (
                "Updated todo list: 1 pending, 0 in progress, 0 completed".to_owned(),
                false
            ),
            "{reply:?}"
        );
    }
}

#[test]
fn a_held_session_waits_alone_on_files() {
    a_held_session_waits_alone(None);
}

#[test]
fn a_held_session_waits_alone_on_postgres() {
    let url = test_support::pg_url();
    a_held_session_waits_alone(Some(&url));
}

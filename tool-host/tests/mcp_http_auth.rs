//! `toolhost mcp --http` as an OAuth resource server: protected-resource metadata, a `401` that
//! names it, JWT access tokens of an issuer checked whole (tokens minted by PyJWT in
//! `auth/issuer.py`: forged, expired, not yet valid, for another audience or issuer, of an
//! unknown key, `alg: none`, an HMAC made with the public key, oversized: each refused, nothing
//! of it reaching a tool), a rotated key taken up, static tokens, tools listed and called by
//! the scopes a token grants, the Python SDK's OAuth client end to end, and no address other
//! machines reach without a way of checking callers.

mod http;
mod python;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use http::{HttpServer, Reply, tool_result};
use python::python;
use serde_json::Value;

const LIST: &str = r#"{"todos":[{"content":"Ship","status":"in_progress"}]}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolhost-auth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An issuer of `tests/auth` (`issuer.py`, or the SDK-made `authorization_server.py`), on a
/// free port; killed when dropped.
struct Issuer {
    child: Child,
    port: u16,
}

impl Issuer {
    /// `tests/auth/SCRIPT`, an issuer that prints the port it serves on.
    fn start(script: &str) -> Issuer {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/auth")
            .join(script);
        let mut child = Command::new(python())
            .arg(script)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| {
            panic!("the issuer did not start (the MCP SDK and PyJWT of .ci/run's venv): {line:?}")
        });
        Issuer { child, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn get(&self, path: &str) -> String {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
        let reply = http::request(addr, "GET", path, &[], b"");
        assert_eq!(reply.status, 200, "{reply:?}");
        reply.body
    }

    fn token(&self, case: &str) -> String {
        self.get(&format!("/token?case={case}&aud=toolhost-test"))
    }

    fn fetches(&self) -> u64 {
        serde_json::from_str::<Value>(&self.get("/fetches")).unwrap()["fetches"]
            .as_u64()
            .unwrap()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A stateless-era call of todo_write for `session` with `token` (if any).
fn call(server: &HttpServer, session: &str, token: Option<&str>) -> Reply {
    let mut headers = http::stateless_headers(session, "todo_write");
    if let Some(token) = token {
        headers.push(("Authorization".into(), format!("Bearer {token}")));
    }
    http::post(server.addr, &headers, &http::call_body(1, LIST))
}

/// The tools `tools/list` shows the holder of `token`.
fn listed(server: &HttpServer, token: &str) -> Vec<String> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
        http::STATELESS
    );
    let headers = vec![
        ("MCP-Protocol-Version".into(), http::STATELESS.into()),
        ("Mcp-Method".into(), "tools/list".into()),
        ("Authorization".into(), format!("Bearer {token}")),
    ];
    let reply = http::post(server.addr, &headers, &body);
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.message()["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{reply:?}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn accepted(reply: &Reply) {
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(
        tool_result(&reply.message()),
        (
            "Updated todo list: 0 pending, 1 in progress, 0 completed".to_owned(),
            false
        )
    );
}

fn refused(reply: &Reply, token: &str, server: &HttpServer) -> String {
    assert_eq!(reply.status, 401, "{reply:?}");
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.starts_with(&format!(
            "Bearer resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
            server.addr
        )),
        "{challenge}"
    );
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    // No part of the token is said back.
    let signature = token.rsplit('.').next().unwrap_or(token);
    if signature.len() > 8 {
        assert!(!reply.body.contains(signature) && !challenge.contains(signature));
    }
    challenge.to_owned()
}

#[test]
fn tokens_of_the_issuer_are_checked_whole_and_every_bad_one_is_refused() {
    let issuer = Issuer::start("issuer.py");
    let dir = scratch("jwt");
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
        .arg(&dir)
        .args(["--auth-issuer", &issuer.url()])
        .args([
            "--auth-audience",
            "toolhost-test",
            "--auth-scope",
            "todos:write",
        ]);
    let server = HttpServer::spawn(command);

    // The metadata, at the endpoint's own well-known place, names the issuer.
    let metadata = http::request(
        server.addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        b"",
    );
    assert_eq!(metadata.status, 200, "{metadata:?}");
    let metadata: Value = serde_json::from_str(&metadata.body).unwrap();
    assert_eq!(metadata["resource"], server.url, "{metadata}");
    assert_eq!(metadata["authorization_servers"][0], issuer.url());
    assert_eq!(metadata["scopes_supported"][0], "todos:write");

    // No token: 401, the challenge naming the metadata and the scopes.
    let reply = call(&server, "anonymous", None);
    assert_eq!(reply.status, 401, "{reply:?}");
    let challenge = reply.header("www-authenticate").unwrap();
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    assert!(challenge.contains("scope=\"todos:write\""), "{challenge}");
    assert!(!challenge.contains("error="), "{challenge}");

    // Good tokens, of either key kind, and one expired within the clock skew.
    for case in ["good", "ec", "skewed"] {
        accepted(&call(
            &server,
            &format!("ok-{case}"),
            Some(&issuer.token(case)),
        ));
    }

    let bad = [
        ("expired", "has expired"),
        ("not_yet", "not valid yet"),
        ("other_audience", "another audience"),
        ("other_issuer", "another issuer"),
        ("no_subject", "no `sub` claim"),
        ("unknown_kid", "not one of the issuer's"),
        ("none", "not a JWT this server reads"),
        ("hmac_with_public_key", "algorithm"),
        ("forged", "signature does not verify"),
        ("big", "more than 16384 bytes"),
    ];
    for (case, why) in bad {
        let token = issuer.token(case);
        let challenge = refused(
            &call(&server, &format!("bad-{case}"), Some(&token)),
            &token,
            &server,
        );
        assert!(challenge.contains(why), "{case}: {challenge}");
        // Nothing of it reached a tool: no session was opened for it.
        assert!(!dir.join(format!("bad-{case}.jsonl")).exists(), "{case}");
    }
    let reply = call(&server, "bad-scheme", None);
    assert_eq!(reply.status, 401);
    let mut headers = http::stateless_headers("bad-basic", "todo_write");
    headers.push(("Authorization".into(), "Basic YWxpY2U6c2VjcmV0".into()));
    let reply = http::post(server.addr, &headers, &http::call_body(1, LIST));
    assert_eq!(reply.status, 401, "{reply:?}");

    // Unknown keys do not make the server hammer the issuer: one fetch at most per 5 s.
    let before = issuer.fetches();
    for _ in 0..20 {
        let token = issuer.token("unknown_kid");
        refused(&call(&server, "bad-kid", Some(&token)), &token, &server);
    }
    assert!(
        issuer.fetches() <= before + 1,
        "{} fetches",
        issuer.fetches() - before
    );

    // A key rotated in is taken up once its JWKS may be fetched again.
    issuer.get("/rotate");
    std::thread::sleep(Duration::from_millis(5200));
    accepted(&call(&server, "ok-rotated", Some(&issuer.token("rotated"))));
    accepted(&call(&server, "ok-after", Some(&issuer.token("good"))));

    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert!(
        !stderr.contains("eyJ"),
        "a token on standard error: {stderr}"
    );
}

/// A tokens file as it should be kept: its owner's alone.
fn write_tokens(file: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(file, text).unwrap();
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn static_tokens_come_from_a_file_and_nothing_else_gets_in() {
    let dir = scratch("static");
    let tokens = dir.join("tokens");
    write_tokens(
        &tokens,
        "# team tokens\nsecret-token-of-alice alice todos:write\nsecret-token-of-bob bob\n",
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
        .arg(dir.join("sessions"))
        .arg("--auth-tokens")
        .arg(&tokens);
    let server = HttpServer::spawn(command);
    accepted(&call(&server, "alice", Some("secret-token-of-alice")));
    assert_eq!(listed(&server, "secret-token-of-alice"), ["todo_write"]);
    // Bob's token grants no scope: todo_write (`todos:write`) is not listed to him, and his
    // call is refused before its arguments are read, with what to ask for.
    assert!(listed(&server, "secret-token-of-bob").is_empty());
    let reply = call(&server, "bob", Some("secret-token-of-bob"));
    assert_eq!(reply.status, 403, "{reply:?}");
    let challenge = reply.header("www-authenticate").unwrap();
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"todos:write\""),
        "{challenge}"
    );
    let message: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(message["id"], 1, "{message}");
    assert!(
        message["error"]["message"]
            .as_str()
            .unwrap()
            .contains("needs the scope todos:write"),
        "{message}"
    );
    assert!(!dir.join("sessions/bob.jsonl").exists());
    refused(
        &call(&server, "mallory", Some("secret-token-of-mallory")),
        "secret-token-of-mallory",
        &server,
    );
    assert_eq!(call(&server, "nobody", None).status, 401);
    // No issuer: the metadata names none.
    let metadata = http::request(
        server.addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        b"",
    );
    let metadata: Value = serde_json::from_str(&metadata.body).unwrap();
    assert_eq!(metadata["resource"], server.url);
    assert!(
        metadata.get("authorization_servers").is_none(),
        "{metadata}"
    );
    // No `--auth-scope`: the scopes named are the ones the tools ask for.
    assert_eq!(
        metadata["scopes_supported"],
        serde_json::json!(["todos:write"]),
        "{metadata}"
    );
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("secret-token"), "{stderr}");
}

#[test]
fn a_tokens_file_others_may_read_is_refused_and_an_unknown_tool_names_only_the_callers() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = scratch("readable");
    let tokens = dir.join("tokens");
    std::fs::write(
        &tokens,
        "token-of-alice alice todos:write\ntoken-of-bob bob\n",
    )
    .unwrap();
    std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o644)).unwrap();
    let serve = |extra: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command
            .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
            .arg(dir.join("sessions"))
            .arg("--auth-tokens")
            .arg(&tokens)
            .args(extra);
        command
    };
    // Readable by others: refused at start, as ssh refuses such a key; nothing is served.
    let output = serve(&[]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("serving"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the tokens file {} is open to others than its owner (mode 644): its tokens are \
             secrets; make it the owner's alone (chmod 600)",
            tokens.display()
        )),
        "{stderr}"
    );
    // Taken when told so.
    let server = HttpServer::spawn({
        let mut command = serve(&["--auth-tokens-readable-by-others"]);
        command.stdin(Stdio::null());
        command
    });
    accepted(&call(&server, "alice", Some("token-of-alice")));
    // A tool that does not exist: the error names the tools the caller may call, no other.
    let unknown = |token: &str| {
        let body = http::call_body(3, "{}").replace("\"todo_write\"", "\"no_such_tool\"");
        let mut headers = http::stateless_headers("s", "no_such_tool");
        headers.push(("Authorization".into(), format!("Bearer {token}")));
        let reply = http::post(server.addr, &headers, &body);
        assert_eq!(reply.status, 200, "{reply:?}");
        tool_result(&reply.message())
    };
    assert_eq!(
        unknown("token-of-alice"),
        (
            "Error: unknown tool \"no_such_tool\"; available tools: todo_write".to_owned(),
            true
        )
    );
    assert_eq!(
        unknown("token-of-bob"),
        (
            "Error: unknown tool \"no_such_tool\"; available tools: none".to_owned(),
            true
        )
    );
}

#[test]
fn an_address_other_machines_reach_needs_a_way_of_checking_callers() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("reachable from other machines") && stderr.contains("--auth-tokens"),
        "{stderr}"
    );
    // A tokens file that does not read is named, and nothing is served.
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--auth-tokens",
            "/nonexistent/tokens",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("the tokens file"));
    // An issuer whose keys cannot be found: said at start, nothing served.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--http", "127.0.0.1:0", "--auth-issuer", &nowhere])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the issuer's keys cannot be found (give --auth-jwks)"),
        "{stderr}"
    );
}

#[test]
fn the_python_sdks_oauth_client_finds_the_authorization_server_and_calls_todo_write() {
    // The authorization server: the Python MCP SDK's own routes (auth/authorization_server.py).
    let authorization_server = Issuer::start("authorization_server.py");
    // Its issuer as its metadata writes it, a root URL with its slash.
    let issuer = format!("{}/", authorization_server.url());

    let dir = scratch("oauth");
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
        .arg(&dir)
        .args(["--auth-issuer", &issuer])
        .args(["--auth-jwks", &format!("{issuer}jwks")])
        .args(["--auth-scope", "todos:write"]);
    let server = HttpServer::spawn(command);
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/auth/oauth_client.py");
    let output = Command::new(python())
        .arg(client)
        .arg(&server.url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("oauth client: all checks passed"),
        "{stdout}\n{stderr}"
    );
    // The call landed in the session the client named, among the sessions of its user.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.to_string_lossy().ends_with(".oauth.jsonl"))
        .expect("the session alice named");
    let replay = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .arg("replay")
        .arg(&file)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&replay.stdout).trim(),
        r#"[{"content":"Ship","status":"in_progress"}]"#
    );
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("eyJ"), "{stderr}");
}

/// The headers that carry `token`.
fn bearer(token: &str) -> Vec<(String, String)> {
    vec![("Authorization".into(), format!("Bearer {token}"))]
}

#[test]
fn a_session_is_its_owners_and_to_anyone_else_it_does_not_exist() {
    let dir = scratch("owners");
    let tokens = dir.join("tokens");
    write_tokens(
        &tokens,
        "token-of-alice alice todos:write\ntoken-of-carol carol todos:write\n",
    );
    let sessions = dir.join("sessions");
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--session-dir"])
        .arg(&sessions)
        .arg("--auth-tokens")
        .arg(&tokens);
    let server = HttpServer::spawn(command);
    let addr = server.addr;

    // Stateless: one name, two callers, two sessions; neither sees the other's list.
    for (token, content) in [("token-of-alice", "alice's"), ("token-of-carol", "carol's")] {
        let mut headers = http::stateless_headers("shared", "todo_write");
        headers.extend(bearer(token));
        let args = format!(r#"{{"todos":[{{"content":"{content}","status":"pending"}}]}}"#);
        let reply = http::post(addr, &headers, &http::call_body(1, &args));
        assert!(!tool_result(&reply.message()).1, "{reply:?}");
    }
    let mut lists = Vec::new();
    for entry in std::fs::read_dir(&sessions).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.to_string_lossy().ends_with(".shared.jsonl"),
            "{path:?}"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let events: Vec<Value> = text
            .lines()
            .skip(1)
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        // The owner first, then the list.
        assert_eq!(events[0]["kind"], "session/owner", "{text}");
        let owner = events[0]["data"]["subject"].as_str().unwrap().to_owned();
        let content = events[1]["data"]["todos"][0]["content"]
            .as_str()
            .unwrap()
            .to_owned();
        lists.push((owner, content));
    }
    lists.sort();
    assert_eq!(
        lists,
        [
            ("alice".to_owned(), "alice's".to_owned()),
            ("carol".to_owned(), "carol's".to_owned())
        ]
    );

    // Replayed as its owner would see it, each session is there for its owner alone, and for
    // anyone else it is as a file that does not exist.
    let replay = |path: &Path, owner: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .arg("replay")
            .arg(path)
            .args(["--format", "json", "--owner", owner, "--issuer", "static"])
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).replace(&path.display().to_string(), "PATH"),
        )
    };
    let files: Vec<PathBuf> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    let absent = replay(
        &sessions.join("u000000000000000000000000.shared.jsonl"),
        "carol",
    );
    assert_eq!(absent.0, Some(3), "{absent:?}");
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (owner, other) = if text.contains(r#""subject":"alice""#) {
            ("alice", "carol")
        } else {
            ("carol", "alice")
        };
        let own = replay(path, owner);
        assert_eq!(own.0, Some(0), "{own:?}");
        assert!(own.1.contains(&format!("{owner}'s")), "{own:?}");
        assert_eq!(replay(path, other), absent, "{path:?}");
    }

    // An initialize-era session: alice's; carol's every use of its id is answered as a session
    // that does not exist, to the byte.
    let alice = http::initialize_as(addr, &bearer("token-of-alice"));
    accepted(&http::session_call_as(
        addr,
        &alice,
        2,
        LIST,
        &bearer("token-of-alice"),
    ));
    let unknown = http::session_call_as(
        addr,
        "00000000-0000-0000-0000-000000000000",
        3,
        LIST,
        &bearer("token-of-carol"),
    );
    assert_eq!(unknown.status, 404, "{unknown:?}");
    let guesses = [
        alice.clone(),
        alice.to_uppercase(),
        format!("{}0", &alice[..alice.len() - 1]),
        "1".to_owned(),
    ];
    for guess in &guesses {
        let reply = http::session_call_as(addr, guess, 4, LIST, &bearer("token-of-carol"));
        assert_eq!(
            (reply.status, &reply.body),
            (unknown.status, &unknown.body),
            "{guess}"
        );
        for method in ["GET", "DELETE"] {
            let mut headers = http::session_headers(guess);
            headers.extend(bearer("token-of-carol"));
            headers.push(("Accept".into(), "text/event-stream".into()));
            let reply = http::request(addr, method, "/mcp", &headers, b"");
            assert_eq!(
                (reply.status, &reply.body),
                (unknown.status, &unknown.body),
                "{method} {guess}"
            );
        }
    }
    // Alice's session goes on, untouched; without a token, nobody gets as far.
    accepted(&http::session_call_as(
        addr,
        &alice,
        5,
        LIST,
        &bearer("token-of-alice"),
    ));
    assert_eq!(http::session_call(addr, &alice, 6, LIST).status, 401);
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn on_postgres_sessions_are_their_owners_and_sessions_list_tells_whose() {
    let url = test_support::pg_url();
    let dir = scratch("owners-pg");
    let tokens = dir.join("tokens");
    write_tokens(
        &tokens,
        "token-of-alice alice todos:write\ntoken-of-carol carol todos:write\n",
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args(["mcp", "--http", "127.0.0.1:0", "--store", &url])
        .arg("--auth-tokens")
        .arg(&tokens);
    let server = HttpServer::spawn(command);
    let addr = server.addr;
    let name = format!(
        "shared-{}-{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    for token in ["token-of-alice", "token-of-carol"] {
        let mut headers = http::stateless_headers(&name, "todo_write");
        headers.extend(bearer(token));
        accepted(&http::post(addr, &headers, &http::call_body(1, LIST)));
    }
    let alice = http::initialize_as(addr, &bearer("token-of-alice"));
    accepted(&http::session_call_as(
        addr,
        &alice,
        2,
        LIST,
        &bearer("token-of-alice"),
    ));
    let unknown =
        http::session_call_as(addr, "no-such-session", 3, LIST, &bearer("token-of-carol"));
    let stolen = http::session_call_as(addr, &alice, 3, LIST, &bearer("token-of-carol"));
    assert_eq!(
        (stolen.status, &stolen.body),
        (unknown.status, &unknown.body)
    );
    assert_eq!(stolen.status, 404);

    let listed = |owner: &str| -> Vec<String> {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["sessions", "list", "--owner", owner, "--issuer", "static"])
            .env("TOOLHOST_STORE", &url)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| line.split('\t').next().unwrap().to_owned())
            .filter(|id| id.ends_with(&name) || *id == alice)
            .collect()
    };
    let of_alice = listed("alice");
    let of_carol = listed("carol");
    assert_eq!(of_alice.len(), 2, "{of_alice:?}");
    assert!(of_alice.contains(&alice), "{of_alice:?}");
    assert_eq!(of_carol.len(), 1, "{of_carol:?}");
    assert!(of_carol[0].ends_with(&format!(".{name}")), "{of_carol:?}");
    assert!(!of_alice.contains(&of_carol[0]));
    // Replayed as carol, alice's session is as one that does not exist.
    let replay = |id: &str, owner: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["replay", id, "--owner", owner])
            .env("TOOLHOST_STORE", &url)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).replace(id, "ID"),
        )
    };
    assert_eq!(replay(&alice, "alice").0, Some(0));
    let absent = replay(&format!("{alice}-absent"), "carol");
    assert_eq!(absent.0, Some(3), "{absent:?}");
    assert_eq!(replay(&alice, "carol"), absent);
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

//! Every command on every store, with a real call and its exit status: `call`, `replay`,
//! `repl`, `mcp` (stdio and `--http`), `agent` and `sessions`, on JSON Lines files and on PostgreSQL; and the
//! library's hosts — a synchronous caller, a current-thread and a multi-threaded tokio runtime —
//! calling `todo_write` and serving MCP on both stores. Needs `TOOLHOST_TEST_PG` (`.ci/run`
//! starts a throwaway server) and the Python SDKs `.ci/run` installs (the agent's provider).

mod http;
mod python;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use tool_host::mcp::McpServer;
use tool_runtime::session::{Durability, JsonlLog, OpenMode};
use tool_runtime::{Agent, Ctx, Exec, Session, SessionHub};
use tool_session_pg::PgStore;
use tool_todo::TodoWrite;

use python::{python, python_with_port};
use test_support::pg_url;
use test_support::unique;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolhost-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Where a command keeps its session.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Store {
    Files,
    Postgres,
}

const STORES: [Store; 2] = [Store::Files, Store::Postgres];

impl Store {
    /// A new session's `--session` argument: a file, or an id in the database.
    fn session(self, name: &str) -> String {
        match self {
            Store::Files => scratch()
                .join(format!("{}.jsonl", unique(name)))
                .display()
                .to_string(),
            Store::Postgres => unique(name),
        }
    }

    fn toolhost(self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command.args(args).env("NO_COLOR", "1");
        match self {
            Store::Files => command.env_remove("TOOLHOST_STORE"),
            Store::Postgres => command.env("TOOLHOST_STORE", pg_url()),
        };
        command
    }

    fn run(self, args: &[&str]) -> Output {
        self.toolhost(args).stdin(Stdio::null()).output().unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const LIST: &str = r#"{"todos": [{"content": "Plan", "status": "completed"}, {"content": "Build", "status": "in_progress"}]}"#;
const UPDATED: &str = "Updated todo list: 0 pending, 1 in progress, 1 completed";
const CHECKLIST: &str = "Todos: 1/2 done\n  ✓ Plan\n  ▶ Build\n";

/// The exit status and output of a run, for messages.
fn shown(output: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr)
    )
}

/// A run that must exit with `code`, having panicked nowhere (a store dropped at exit included).
fn expect(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "{}", shown(output));
    assert!(
        !text(&output.stderr).contains("panicked"),
        "{}",
        shown(output)
    );
}

/// A session holding [`LIST`], written by `toolhost call`.
fn session_with_list(store: Store, name: &str) -> String {
    let session = store.session(name);
    let output = store.run(&["call", "todo_write", LIST, "--session", &session]);
    expect(&output, 0);
    assert_eq!(text(&output.stdout), format!("{UPDATED}\n"));
    session
}

#[test]
fn call_on_every_store() {
    for store in STORES {
        let session = session_with_list(store, "call");
        // A refusal is the tool's answer: status 1, the session kept as it was.
        let refused = store.run(&[
            "call",
            "todo_write",
            r#"{"todos": 5}"#,
            "--session",
            &session,
        ]);
        expect(&refused, 1);
        assert_eq!(
            text(&refused.stdout),
            "Error: invalid arguments: todos: expected an array, got 5\n"
        );
        let fresh = store.run(&["call", "todo_write", LIST]);
        expect(&fresh, 0);
        let no_agent = store.run(&["call", "todo_write", LIST, "--no-agent"]);
        expect(&no_agent, 1);
        assert_eq!(
            text(&no_agent.stdout),
            "Error: todo_write requires an owning agent session\n"
        );
    }
}

#[test]
fn replay_on_every_store() {
    for store in STORES {
        let session = session_with_list(store, "replay");
        let list = store.run(&["replay", &session]);
        expect(&list, 0);
        assert_eq!(text(&list.stdout), CHECKLIST, "{store:?}");
        let json = store.run(&["replay", &session, "--format", "json"]);
        expect(&json, 0);
        let value: Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(value[1]["content"], "Build");
        let events = store.run(&["replay", &session, "--events"]);
        expect(&events, 0);
        assert_eq!(text(&events.stdout).lines().count(), 1, "{store:?}");
        let at = store.run(&["replay", &session, "--at", "1"]);
        expect(&at, 0);
        let missing = store.run(&["replay", &store.session("missing")]);
        expect(&missing, 3);
    }
}

#[test]
fn repl_on_every_store() {
    for store in STORES {
        let session = store.session("repl");
        let mut child = store
            .toolhost(&["repl", "--session", &session])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        writeln!(child.stdin.take().unwrap(), "todo_write {LIST}").unwrap();
        let output = child.wait_with_output().unwrap();
        expect(&output, 0);
        assert!(text(&output.stdout).contains(UPDATED), "{}", shown(&output));
        let list = store.run(&["replay", &session]);
        assert_eq!(text(&list.stdout), CHECKLIST, "{store:?}");
    }
}

/// A JSON-RPC exchange with `toolhost mcp` over its standard input and output.
struct Mcp {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Mcp {
    fn start(store: Store, session: &str) -> Mcp {
        let mut child = store
            .toolhost(&["mcp", "--session", session])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp { child, out };
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "matrix", "version": "1"}}}),
        );
        assert_eq!(mcp.answer()["id"], 1);
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn answer(&mut self) -> Value {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }

    fn call(&mut self, id: u64, args: &str) -> Value {
        let args: Value = serde_json::from_str(args).unwrap();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "todo_write", "arguments": args}}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    }

    /// Closes standard input and waits for the exit.
    fn close(mut self) -> Output {
        drop(self.child.stdin.take());
        let mut rest = Vec::new();
        self.out.read_to_end(&mut rest).unwrap();
        let mut output = self.child.wait_with_output().unwrap();
        output.stdout = rest;
        output
    }
}

#[test]
fn mcp_on_every_store() {
    for store in STORES {
        let session = store.session("mcp");
        let mut mcp = Mcp::start(store, &session);
        let result = mcp.call(2, LIST);
        assert_eq!(result["isError"], false, "{store:?}: {result}");
        assert_eq!(result["content"][0]["text"], UPDATED, "{store:?}");
        let refused = mcp.call(3, r#"{"todos": 5}"#);
        assert_eq!(refused["isError"], true, "{store:?}: {refused}");
        let output = mcp.close();
        expect(&output, 0);
        let list = store.run(&["replay", &session]);
        expect(&list, 0);
        assert_eq!(text(&list.stdout), CHECKLIST, "{store:?}");
    }
}

#[test]
fn mcp_http_on_every_store() {
    for store in STORES {
        let dir = scratch().join(unique("http"));
        let mut command = store.toolhost(&["mcp", "--http", "127.0.0.1:0"]);
        if store == Store::Files {
            command.arg("--session-dir").arg(&dir);
        }
        let server = http::HttpServer::spawn(command);
        // A stateless request names its session; an initialize-era session is one.
        let named = unique("named");
        let message = server.call(&named, 1, LIST);
        assert_eq!(
            message["result"]["content"][0]["text"], UPDATED,
            "{store:?}"
        );
        let refused = server.call(&named, 2, r#"{"todos": 5}"#);
        assert_eq!(refused["result"]["isError"], true, "{store:?}: {refused}");
        let id = http::initialize(server.addr);
        let message = http::session_call(server.addr, &id, 3, LIST).message();
        assert_eq!(
            message["result"]["content"][0]["text"], UPDATED,
            "{store:?}"
        );
        let (status, stderr) = server.stop();
        assert!(status.success(), "{store:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        for session in [named, id] {
            let session = match store {
                Store::Files => dir.join(format!("{session}.jsonl")).display().to_string(),
                Store::Postgres => session,
            };
            let list = store.run(&["replay", &session]);
            expect(&list, 0);
            assert_eq!(text(&list.stdout), CHECKLIST, "{store:?}");
        }
    }
}

/// The agent tests' provider (tests/agent/server.py: responses built by the providers'
/// official SDKs); its port.
fn provider() -> u16 {
    static PORT: OnceLock<(u16, Child)> = OnceLock::new();
    PORT.get_or_init(|| {
        let records = scratch().join("records");
        std::fs::create_dir_all(&records).unwrap();
        let (child, port) = python_with_port(
            "tests/agent/server.py",
            &records,
            "the provider did not start",
        );
        (port, child)
    })
    .0
}

#[test]
fn agent_on_every_store_with_every_provider_streamed_or_not() {
    for store in STORES {
        for provider_name in ["openai", "openai-responses", "anthropic", "gemini"] {
            for stream in [false, true] {
                let session = store.session("agent");
                let mode = if stream { "stream" } else { "plain" };
                // The provider answers each path's requests in turn: one path per run.
                let mut base = format!(
                    "http://127.0.0.1:{}/s/todo/{provider_name}/{mode}-{store:?}",
                    provider()
                );
                if provider_name.starts_with("openai") {
                    base.push_str("/v1");
                }
                let mut args = vec![
                    "agent",
                    "--provider",
                    provider_name,
                    "--model",
                    "test-model",
                    "--base-url",
                    &base,
                    "--session",
                    &session,
                    "--prompt",
                    "Plan the work",
                ];
                if stream {
                    args.push("--stream");
                }
                let output = store
                    .toolhost(&args)
                    .env("OPENAI_API_KEY", "sk-test")
                    .env("ANTHROPIC_API_KEY", "ak-test")
                    .env("GEMINI_API_KEY", "gk-test")
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                let run = format!("{store:?} {provider_name} {mode}");
                assert_eq!(output.status.code(), Some(0), "{run}: {}", shown(&output));
                assert!(!text(&output.stderr).contains("panicked"), "{run}");
                assert_eq!(text(&output.stdout), "Done.\n", "{run}");
                let list = store.run(&["replay", &session, "--format", "json"]);
                expect(&list, 0);
                let todos: Value = serde_json::from_slice(&list.stdout).unwrap();
                assert!(
                    todos.as_array().is_some_and(|todos| !todos.is_empty()),
                    "{run}"
                );
            }
        }
    }
}

#[test]
fn sessions_on_every_store() {
    let session = session_with_list(Store::Postgres, "sessions");
    let list = Store::Postgres.run(&["sessions", "list"]);
    expect(&list, 0);
    assert!(text(&list.stdout).contains(&format!("{session}\t1 events\t")));
    let export = Store::Postgres.run(&["sessions", "export", &session]);
    expect(&export, 0);
    let file = scratch().join(format!("{}.jsonl", unique("imported")));
    std::fs::write(&file, &export.stdout).unwrap();
    let import = Store::Postgres.run(&["sessions", "import", &file.display().to_string()]);
    expect(&import, 0);
    // On files there are no sessions to list: a usage error, said so.
    let files = Store::Files.run(&["sessions", "list"]);
    expect(&files, 2);
    assert!(text(&files.stderr).contains("a database store"));
}

/// How a host built on the library calls: from a plain thread, or awaiting on a tokio runtime.
#[derive(Clone, Copy, Debug)]
enum Host {
    Sync,
    CurrentThread,
    MultiThread,
}

const HOSTS: [Host; 3] = [Host::Sync, Host::CurrentThread, Host::MultiThread];

impl Host {
    fn runtime(self) -> Option<tokio::runtime::Runtime> {
        match self {
            Host::Sync => None,
            Host::CurrentThread => Some(
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap(),
            ),
            Host::MultiThread => Some(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap(),
            ),
        }
    }
}

fn ctx() -> Arc<Ctx> {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    Arc::new(ctx)
}

/// Opens a new session on `store`: through the store, on the calling thread (which may be a
/// runtime's).
fn open(store: Store, hub: &SessionHub, name: &str) -> Session {
    let id = unique(name);
    match store {
        Store::Files => {
            let path = scratch().join(format!("{id}.jsonl"));
            hub.open(
                id,
                JsonlLog::open(&path, OpenMode::Create, Durability::Fsync).unwrap(),
            )
            .unwrap()
        }
        Store::Postgres => {
            let pg = PgStore::connect(&pg_url()).unwrap();
            pg.open(hub, &id, OpenMode::Create, Durability::Fsync)
                .unwrap()
        }
    }
}

#[test]
fn todo_write_from_every_host_on_every_store() {
    for store in STORES {
        for host in HOSTS {
            let ctx = ctx();
            let call = {
                let ctx = Arc::clone(&ctx);
                move || {
                    // Opened, called and dropped on the host's own thread.
                    let session = open(store, &ctx.sessions, "host");
                    let agent = Agent::new(session.id().to_owned(), session.clone());
                    let exec = Exec::for_agent(agent);
                    (session, exec)
                }
            };
            let (text, seq) = match host.runtime() {
                None => {
                    let (session, exec) = call();
                    let out = ctx.tools.call("todo_write", &exec, LIST).wait();
                    let again = ctx.tools.call("todo_write", &exec, LIST).wait();
                    assert_eq!(again.text, UPDATED);
                    (out.text, session.next_seq())
                }
                Some(runtime) => {
                    let ctx = Arc::clone(&ctx);
                    runtime.block_on(async move {
                        tokio::spawn(async move {
                            let (session, exec) = call();
                            let out = ctx.tools.call("todo_write", &exec, LIST).await;
                            // `wait` works on a runtime's thread too.
                            let again = ctx.tools.call("todo_write", &exec, LIST).wait();
                            assert_eq!(again.text, UPDATED);
                            (out.text, session.next_seq())
                        })
                        .await
                        .unwrap()
                    })
                }
            };
            assert_eq!((text.as_str(), seq), (UPDATED, 3), "{store:?} {host:?}");
        }
    }
}

#[test]
fn mcp_from_every_runtime_on_every_store() {
    for store in STORES {
        for host in [Host::CurrentThread, Host::MultiThread] {
            let runtime = host.runtime().unwrap();
            let answer = runtime.block_on(async {
                let ctx = ctx();
                let session = open(store, &ctx.sessions, "served");
                let agent = Agent::new(session.id().to_owned(), session);
                let server = McpServer::new(Arc::clone(&ctx), agent).unwrap();
                let (client, served) = tokio::io::duplex(1 << 16);
                let (read, write) = tokio::io::split(served);
                let serving = tokio::spawn(server.serve_connection(read, write));
                let (client_read, mut client_write) = tokio::io::split(client);
                use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
                let mut lines = tokio::io::BufReader::new(client_read).lines();
                for message in [
                    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "matrix", "version": "1"}}}),
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "todo_write",
                                   "arguments": serde_json::from_str::<Value>(LIST).unwrap()}}),
                ] {
                    client_write
                        .write_all(format!("{message}\n").as_bytes())
                        .await
                        .unwrap();
                }
                let mut answer = Value::Null;
                while let Some(line) = lines.next_line().await.unwrap() {
                    let message: Value = serde_json::from_str(&line).unwrap();
                    if message["id"] == 2 {
                        answer = message;
                        break;
                    }
                }
                drop(client_write);
                drop(lines);
                // The server, its session and its store are dropped on the runtime.
                serving.await.unwrap().unwrap();
                answer
            });
            drop(runtime);
            assert_eq!(
                answer["result"]["content"][0]["text"], UPDATED,
                "{store:?} {host:?}: {answer}"
            );
        }
    }
}

/// The Python MCP SDK's server of the agent tests, logging to `log`: `--mcp` for it.
fn mcp_server(log: &Path) -> String {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    format!(
        "{} {} stdio {}",
        python().display(),
        here.join("tests/agent/mcp_server.py").display(),
        log.display()
    )
}

#[test]
fn a_paused_run_killed_is_decided_by_another_process_and_resumed_on_every_store() {
    for store in STORES {
        let session = store.session("approve");
        let log = scratch().join(format!("{}.log", unique("approve")));
        let server = mcp_server(&log);
        let base = format!(
            "http://127.0.0.1:{}/s/approve/anthropic/plain-{store:?}",
            provider()
        );
        let agent = |stdin: Stdio| {
            store
                .toolhost(&[
                    "agent",
                    "--provider",
                    "anthropic",
                    "--model",
                    "m",
                    "--base-url",
                    &base,
                    "--session",
                    &session,
                    "--mcp",
                    &server,
                    "--mcp-prefix",
                    "py_",
                ])
                .env("ANTHROPIC_API_KEY", "ak-test")
                .stdin(stdin)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        // A chat whose run pauses on the destructive calls and asks; killed while it asks.
        let mut chat = agent(Stdio::piped());
        writeln!(chat.stdin.as_mut().unwrap(), "go").unwrap();
        let mut stdout = chat.stdout.take().unwrap();
        let mut seen = Vec::new();
        let mut byte = [0u8; 1];
        while !String::from_utf8_lossy(&seen).contains("approve it?") {
            assert_eq!(stdout.read(&mut byte).unwrap(), 1, "{}", text(&seen));
            seen.push(byte[0]);
        }
        assert!(
            text(&seen).contains("toolhost wants to run: py_count {\"by\":1}"),
            "{}",
            text(&seen)
        );
        chat.kill().unwrap();
        chat.wait().unwrap();
        // Another process decides: one approved, one denied.
        let approved = store.run(&["approve", &session, "toolu_approve0"]);
        expect(&approved, 0);
        let denied = store.run(&["approve", &session, "toolu_approve1", "--deny", "no wiping"]);
        expect(&denied, 0);
        // The run goes on where it paused, before reading a prompt (there is none).
        let resumed = agent(Stdio::null()).wait_with_output().unwrap();
        expect(&resumed, 0);
        assert!(
            text(&resumed.stdout).contains("Done."),
            "{}",
            shown(&resumed)
        );
        assert_eq!(
            std::fs::read_to_string(format!("{}.count", log.display())).unwrap(),
            "1",
            "{store:?}"
        );
        let events = store.run(&["replay", &session, "--events"]);
        expect(&events, 0);
        let kinds: Vec<String> = text(&events.stdout)
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .filter(|kind| kind.starts_with("agent/pending") || kind.starts_with("agent/decision"))
            .collect();
        assert_eq!(
            kinds,
            ["agent/pending", "agent/decision", "agent/decision"],
            "{store:?}"
        );
        let usage = store.run(&["replay", "--usage", &session]);
        expect(&usage, 0);
        assert!(
            text(&usage.stdout).starts_with("2 requests, "),
            "{}",
            shown(&usage)
        );
    }
}

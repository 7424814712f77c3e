//! `toolhost agent` against a provider that is not to be trusted: one that redirects to another
//! origin, streams without end, asks for absurd waits, sends thousands of calls, stays silent or
//! drips, echoes the key back. Each provider here is a small HTTP server on 127.0.0.1 written for
//! the one hostility; each test names the hole it closes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use test_support::events_of;

use serde_json::{Value, json};

/// The keys the runs are given, one per provider's variable, each long enough to find.
use test_support::{ANTHROPIC_KEY, GEMINI_KEY, OPENAI_KEY};

/// The most connections one hostile server accepts, and how long one connection's answer may
/// go on: every server here stops on its own.
const MAX_CONNECTIONS: usize = 64;
const MAX_ANSWER_TIME: Duration = Duration::from_secs(30);

/// A fresh directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        Scratch::under(&std::env::temp_dir(), name)
    }

    /// On a memory file system where there is one, for runs that append thousands of events
    /// (each append is synced).
    fn in_memory(name: &str) -> Self {
        let shm = Path::new("/dev/shm");
        Scratch::under(if shm.is_dir() { shm } else { Path::new("/tmp") }, name)
    }

    fn under(parent: &Path, name: &str) -> Self {
        let path = parent.join(format!("toolhost-hostile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One request a hostile server received.
#[derive(Clone, Debug)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A server on 127.0.0.1: each request (numbered from 0) is answered by `reply` on the
/// connection's own thread, the connection closed after it.
struct Hostile {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Hostile {
    fn start(reply: impl Fn(usize, &Seen, &mut TcpStream) + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reply = Arc::new(reply);
        let count = Arc::new(AtomicUsize::new(0));
        let record = Arc::clone(&seen);
        thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                let Ok(mut stream) = stream else { continue };
                let (reply, record, count) =
                    (Arc::clone(&reply), Arc::clone(&record), Arc::clone(&count));
                thread::spawn(move || {
                    let Some(request) = read_request(&mut stream) else {
                        return;
                    };
                    record.lock().unwrap().push(request.clone());
                    let n = count.fetch_add(1, Ordering::SeqCst);
                    reply(n, &request, &mut stream);
                });
            }
        });
        Hostile { port, seen }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    stream.set_read_timeout(Some(MAX_ANSWER_TIME)).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        line: line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// A whole answer: a status line, headers, a body.
fn answer(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn answer_json(stream: &mut TcpStream, body: &Value) {
    answer(
        stream,
        "200 OK",
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    );
}

/// The head of a streamed answer that lasts until the connection closes.
fn stream_head(stream: &mut TcpStream) -> bool {
    stream
        .write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        )
        .is_ok()
}

/// Writes `piece(n)` for n = 0, 1, … until the client goes or [`MAX_ANSWER_TIME`] passes.
fn stream_forever(stream: &mut TcpStream, piece: impl Fn(usize) -> Vec<u8>) {
    let start = Instant::now();
    let mut n = 0;
    while start.elapsed() < MAX_ANSWER_TIME {
        // Many pieces per write: the server must outpace the client.
        let mut chunk = Vec::with_capacity(1 << 16);
        while chunk.len() < 1 << 16 {
            chunk.extend(piece(n));
            n += 1;
        }
        if stream.write_all(&chunk).is_err() {
            return;
        }
    }
}

/// The final answer "text", as `provider` sends it.
fn final_answer(provider: &str, text: &str) -> Value {
    match provider {
        "anthropic" => json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}
        }),
        "gemini" => json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP"}]
        }),
        "openai-responses" => json!({
            "id": "resp_1", "object": "response", "status": "completed", "model": "m",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]
        }),
        _ => json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}]
        }),
    }
}

/// An OpenAI Chat answer with these calls of todo_write (ids `call_<n>`), each with `list`.
fn chat_calls(calls: usize, list: &Value) -> Value {
    let arguments = list.to_string();
    let tool_calls: Vec<Value> = (0..calls)
        .map(|n| {
            json!({"id": format!("call_{n}"), "type": "function",
                   "function": {"name": "todo_write", "arguments": arguments}})
        })
        .collect();
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": null, "tool_calls": tool_calls}}]
    })
}

fn base_url(server: &str, provider: &str) -> String {
    if provider.starts_with("openai") {
        format!("{server}/v1")
    } else {
        server.to_owned()
    }
}

/// `toolhost agent` on `provider` at `base` (the server's root; `/v1` is added for OpenAI's),
/// with each provider's key set, keeping its conversation in `session`.
fn agent(provider: &str, base: &str, session: &Path, args: &[&str]) -> Command {
    let mut command = toolhost_agent(provider, &base_url(base, provider), args);
    command.arg("--session").arg(session);
    command
}

/// `toolhost agent` on `provider` at the base URL `url`, with each provider's key set.
fn toolhost_agent(provider: &str, url: &str, args: &[&str]) -> Command {
    let mut command = test_support::agent_command(env!("CARGO_BIN_EXE_toolhost"), provider, url);
    command.args(args);
    command
}

/// The same command, run by `sh` with at most `mib` MiB of address space.
fn limited(command: &Command, mib: u64) -> Command {
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", mib * 1024))
        .arg(command.get_program())
        .args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => limited.env(name, value),
            None => limited.env_remove(name),
        };
    }
    // One malloc arena per thread would reserve the address space by itself.
    limited
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    limited
}

/// What a run did, and how long it took.
struct Ran {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Ran {
    fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Fails unless the run exited 1 with `message` on standard error.
    fn failed_with(&self, message: &str) {
        assert_eq!(self.code(), Some(1), "{}\n{}", self.stderr, self.status);
        assert!(self.stderr.contains(message), "{}", self.stderr);
        assert!(self.stdout.is_empty(), "{}", self.stdout);
        no_key_in(&self.stderr);
    }
}

fn no_key_in(text: &str) {
    for key in [OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY] {
        assert!(!text.contains(key), "a key was written out: {text}");
    }
}

/// Runs `command`, killing it (and failing) if it takes longer than `limit`.
fn run_at_most(mut command: Command, limit: Duration) -> Ran {
    let start = Instant::now();
    let child = command.spawn().expect("toolhost runs");
    let (status, stdout, stderr) = wait_at_most(child, limit);
    Ran {
        status,
        stdout,
        stderr,
        took: start.elapsed(),
    }
}

fn wait_at_most(mut child: Child, limit: Duration) -> (ExitStatus, String, String) {
    let (done, waited) = mpsc::channel();
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let id = child.id();
    let waiter = thread::spawn(move || {
        // Both at once: a child blocked writing one pipe never closes the other.
        let stderr = thread::spawn(move || {
            let mut stderr = String::new();
            if let Some(err) = &mut err {
                let _ = err.read_to_string(&mut stderr);
            }
            stderr
        });
        let mut stdout = String::new();
        if let Some(out) = &mut out {
            let _ = out.read_to_string(&mut stdout);
        }
        let stderr = stderr.join().unwrap();
        let status = child.wait().unwrap();
        let _ = done.send((status, stdout, stderr));
    });
    match waited.recv_timeout(limit) {
        Ok(result) => {
            waiter.join().unwrap();
            result
        }
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("toolhost did not finish within {limit:?}");
        }
    }
}

// Regression: a 302 or 307 was followed, sending the Anthropic and Gemini keys (ureq drops only
// `authorization` on a redirect) to the target, whose answer was taken as the model's.
#[test]
fn a_redirect_is_not_followed_and_no_key_crosses_origins() {
    let dir = Scratch::new("redirect");
    for provider in ["anthropic", "gemini", "openai", "openai-responses"] {
        for status in ["302 Found", "307 Temporary Redirect"] {
            let elsewhere = Hostile::start(move |_, _, stream| {
                answer_json(stream, &final_answer(provider, "Stolen."));
            });
            let target = format!("{}/v1/messages", elsewhere.base());
            let location = target.clone();
            let server = Hostile::start(move |_, _, stream| {
                answer(stream, status, &[("location", &location)], b"");
            });
            let session = dir.file(&format!("{provider}-{}.jsonl", &status[..3]));
            let ran = run_at_most(
                agent(provider, &server.base(), &session, &["--prompt", "Hi"]),
                Duration::from_secs(20),
            );
            ran.failed_with(&format!(
                "answered {status}, a redirect to {target:?}; redirects are not followed"
            ));
            let asked = server.seen();
            assert_eq!(asked.len(), 1, "{provider}: not retried");
            assert!(ran.took < Duration::from_secs(5), "{:?}", ran.took);
            assert!(asked[0].line.starts_with("POST /"), "{:?}", asked[0].line);
            assert!(asked[0].json().is_object());
            let reached = elsewhere.seen();
            for request in &reached {
                for name in ["authorization", "x-api-key", "x-goog-api-key"] {
                    assert_eq!(
                        request.header(name),
                        None,
                        "{provider} {status}: {request:?}"
                    );
                }
            }
            assert!(reached.is_empty(), "{provider} {status}: {reached:?}");
        }
    }
}

/// One hostile stream: what the provider is asked for and what it sends without end.
struct Endless {
    name: &'static str,
    provider: &'static str,
    /// Sent once, first.
    start: &'static str,
    piece: fn(usize) -> Vec<u8>,
    /// What the error says.
    error: &'static str,
}

const ENDLESS: [Endless; 6] = [
    Endless {
        name: "text deltas without end",
        provider: "openai",
        start: "",
        piece: |_| {
            format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"content": "x".repeat(16_000)}}]})
            )
            .into_bytes()
        },
        error: "the stream is longer than the 67108864 bytes a response may have",
    },
    Endless {
        name: "data lines and never a blank line",
        provider: "openai",
        start: "",
        piece: |_| format!("data: {}\n", "y".repeat(1000)).into_bytes(),
        error: "an event is longer than the 16777216 bytes one may have",
    },
    Endless {
        name: "one line without end",
        provider: "openai",
        start: "data: ",
        piece: |_| "z".repeat(4096).into_bytes(),
        error: "an event is longer than the 16777216 bytes one may have",
    },
    Endless {
        name: "a new call index per event",
        provider: "openai",
        start: "",
        piece: |n| {
            let call = json!({"index": n, "id": format!("c{n}"),
                              "function": {"name": "todo_write", "arguments": ""}});
            format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
            )
            .into_bytes()
        },
        error: "the stream has more than 10000 calls",
    },
    Endless {
        name: "a new content block per event",
        provider: "anthropic",
        start: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\"}}\n\n",
        piece: |n| {
            let block = json!({"type": "content_block_start", "index": n,
                               "content_block": {"type": "text", "text": ""}});
            format!("event: content_block_start\ndata: {block}\n\n").into_bytes()
        },
        error: "the stream has more than 10000 content blocks",
    },
    Endless {
        name: "a new part per chunk",
        provider: "gemini",
        start: "",
        piece: |n| {
            let part = json!({"functionCall": {"name": "todo_write", "args": {"n": n}}});
            let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [part]}}]});
            format!("data: {chunk}\r\n\r\n").into_bytes()
        },
        error: "the stream has more than 10000 parts",
    },
];

// Regression: an endless stream grew the process past 2.5 GB (text, `data:` lines without a
// blank line, new calls or blocks per event, all kept), and one long line was re-scanned from its
// start on every read.
#[test]
fn an_endless_stream_is_cut_within_bounded_memory_and_time() {
    let dir = Scratch::new("endless");
    for endless in &ENDLESS {
        let (start, piece) = (endless.start, endless.piece);
        let server = Hostile::start(move |_, _, stream| {
            if stream_head(stream) && stream.write_all(start.as_bytes()).is_ok() {
                stream_forever(stream, piece);
            }
        });
        let session = dir.file(&format!("{}.jsonl", endless.provider));
        let command = agent(
            endless.provider,
            &server.base(),
            &session,
            &["--stream", "--prompt", "Hi"],
        );
        let ran = run_at_most(limited(&command, 512), Duration::from_secs(20));
        ran.failed_with(endless.error);
        assert!(
            ran.took < Duration::from_secs(15),
            "{}: {:?}",
            endless.name,
            ran.took
        );
        let _ = std::fs::remove_file(&session);
    }
}

// Regression: `retry-after-ms: 1e30` overflowed `Duration::from_secs_f64`, a panic (exit 101).
#[test]
fn an_absurd_retry_after_is_too_long_to_wait_not_a_panic() {
    let dir = Scratch::new("retry-after");
    for (name, value) in [
        ("retry-after-ms", "1e30"),
        ("retry-after", "1e30"),
        ("retry-after-ms", "18446744073709551616000"),
    ] {
        let server = Hostile::start(move |_, _, stream| {
            answer(
                stream,
                "429 Too Many Requests",
                &[(name, value), ("content-type", "application/json")],
                br#"{"error": {"message": "Slow down"}}"#,
            );
        });
        let ran = run_at_most(
            agent(
                "openai",
                &server.base(),
                &dir.file("s.jsonl"),
                &["--prompt", "Hi"],
            ),
            Duration::from_secs(20),
        );
        ran.failed_with("the openai API answered 429 Too Many Requests: \"Slow down\" (after 1 attempt; it asked to wait");
        assert_eq!(server.seen().len(), 1);
    }
}

// Regression: each call of a turn ran on a thread of its own: 5,000 calls in one response
// exhausted the threads (here, the address space their stacks take) and panicked.
#[test]
fn five_thousand_calls_in_one_turn_run_on_a_bounded_pool() {
    const CALLS: usize = 5000;
    let dir = Scratch::in_memory("five-thousand");
    let list = json!({"todos": [{"content": "Step", "status": "pending"}]});
    let server = Hostile::start(move |n, _, stream| {
        let body = if n == 0 {
            chat_calls(CALLS, &list)
        } else {
            final_answer("openai", "Done.")
        };
        answer_json(stream, &body);
    });
    let command = agent(
        "openai",
        &server.base(),
        &dir.file("s.jsonl"),
        &["--prompt", "Hi"],
    );
    let ran = run_at_most(limited(&command, 1024), Duration::from_secs(60));
    assert_eq!(
        (ran.code(), ran.stdout.as_str()),
        (Some(0), "Done.\n"),
        "{}",
        ran.stderr.lines().last().unwrap_or_default()
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let messages = seen[1].json()["messages"].as_array().unwrap().clone();
    let results: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(results.len(), CALLS);
    for (n, result) in results.iter().enumerate() {
        assert_eq!(result["tool_call_id"], format!("call_{n}"));
        assert_eq!(
            result["content"],
            "Updated todo list: 1 pending, 0 in progress, 0 completed"
        );
    }
}

// Regression: after a crash mid-turn, every call of the turn was answered "not run" on resume,
// though some had run (their todo lists were in the session): the model was told a falsehood.
#[test]
fn a_call_that_ran_before_a_crash_is_answered_with_its_result_on_resume() {
    const CALLS: usize = 2000;
    let dir = Scratch::new("crash");
    let session = dir.file("s.jsonl");
    let server = Hostile::start(move |n, _, stream| {
        let body = if n == 0 {
            chat_calls(
                CALLS,
                &json!({"todos": [{"content": "Step", "status": "in_progress"}]}),
            )
        } else {
            final_answer("openai", "Resumed.")
        };
        answer_json(stream, &body);
    });
    let mut child = agent("openai", &server.base(), &session, &["--prompt", "Hi"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once some calls have run, long before all of them can have.
    let start = Instant::now();
    while std::fs::read_to_string(&session).map_or(0, |text| text.matches("todo/write").count())
        < 20
    {
        assert!(start.elapsed() < Duration::from_secs(20), "no call ran");
        assert!(child.try_wait().unwrap().is_none(), "the run ended");
        thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let written = events_of(&session, "todo/write").len();
    assert!(written < CALLS, "every call ran before the kill");

    let ran = run_at_most(
        agent("openai", &server.base(), &session, &["--prompt", "Go on"]),
        Duration::from_secs(30),
    );
    assert_eq!(
        (ran.code(), ran.stdout.as_str()),
        (Some(0), "Resumed.\n"),
        "{}",
        ran.stderr
    );
    let seen = server.seen();
    let resumed = seen.last().unwrap().json();
    let results: Vec<&Value> = resumed["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(results.len(), CALLS, "every call is answered");
    let ran_calls = results
        .iter()
        .filter(|result| {
            result["content"] == "Updated todo list: 0 pending, 1 in progress, 0 completed"
        })
        .count();
    let interrupted = results
        .iter()
        .filter(|result| {
            result["content"]
                == "Error: the host stopped before the call's result was recorded; it may have run, in part or whole"
        })
        .count();
    assert_eq!(ran_calls + interrupted, CALLS, "{:?}", results[0]);
    // Each call that ran to its recorded end is answered with what it returned …
    assert!(ran_calls >= 1, "no call was answered with its result");
    assert!(
        ran_calls <= written,
        "{ran_calls} results for {written} lists"
    );
    // … and the prompt after them goes on from there.
    let last = resumed["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], "Go on");
}

/// A server that reads each request and then says nothing for [`MAX_ANSWER_TIME`].
fn silent() -> Hostile {
    Hostile::start(|_, _, stream| {
        let _ = stream.flush();
        thread::sleep(MAX_ANSWER_TIME);
    })
}

/// A server that starts a stream and then sends one byte of it every 100 ms.
fn dripping() -> Hostile {
    Hostile::start(|_, _, stream| {
        if !stream_head(stream)
            || stream
                .write_all(b"data: {\"choices\": [{\"delta\": {\"content\": \"")
                .is_err()
        {
            return;
        }
        let start = Instant::now();
        while start.elapsed() < MAX_ANSWER_TIME && stream.write_all(b"x").is_ok() {
            thread::sleep(Duration::from_millis(100));
        }
    })
}

// Regression: a silent server held a run for 40 minutes (10 per attempt, 4 attempts), and
// nothing bounded a run that retried or streamed slowly: no deadline could be set.
#[test]
fn deadlines_bound_a_silent_a_busy_and_a_dripping_provider() {
    let dir = Scratch::new("deadlines");
    let silent = silent();
    let drip = dripping();
    let busy = Hostile::start(|_, _, stream| {
        answer(
            stream,
            "503 Service Unavailable",
            &[("retry-after", "1")],
            br#"{"error": {"message": "Busy"}}"#,
        );
    });
    // (server, provider, options, error, how long it may take in ms)
    type Case<'s> = (&'s Hostile, &'s str, &'s [&'s str], &'s str, (u64, u64));
    let cases: [Case; 6] = [
        // A request that gets no answer.
        (
            &silent,
            "anthropic",
            &["--request-timeout", "1s", "--max-retries", "0"],
            "no whole answer from http://127.0.0.1:PORT/v1/messages: the request took longer than 1 s (--request-timeout)",
            (900, 5000),
        ),
        (
            &silent,
            "anthropic",
            &["--idle-timeout", "1s", "--max-retries", "0"],
            "the provider sent nothing for 1 s (--idle-timeout)",
            (900, 5000),
        ),
        // The same, through the whole chain of retries: the deadline holds.
        (
            &silent,
            "anthropic",
            &["--deadline", "2s"],
            "the run reached its deadline (--deadline 2 s): no answer yet from",
            (1900, 5000),
        ),
        // Retried until the deadline, however many retries are allowed: a retry that would
        // pass it is not waited for.
        (
            &busy,
            "anthropic",
            &["--deadline", "2500ms", "--max-retries", "100"],
            "the run reached its deadline (--deadline 2.5 s): its next retry would pass it; the anthropic API answered 503 Service Unavailable: \"Busy\" (after 3 attempts)",
            (1500, 5000),
        ),
        // A stream that never ends but is never idle either.
        (
            &drip,
            "openai",
            &["--stream", "--max-retries", "0", "--deadline", "2s"],
            "the run reached its deadline (--deadline 2 s): the answer from",
            (1900, 5000),
        ),
        (
            &drip,
            "openai",
            &["--stream", "--max-retries", "0", "--request-timeout", "2s"],
            "the request took longer than 2 s (--request-timeout)",
            (1900, 5000),
        ),
    ];
    thread::scope(|scope| {
        for (n, (server, provider, options, error, (low, high))) in cases.into_iter().enumerate() {
            let session = dir.file(&format!("{n}.jsonl"));
            scope.spawn(move || {
                let mut args = vec!["--prompt", "Hi"];
                args.extend(options);
                let ran = run_at_most(
                    agent(provider, &server.base(), &session, &args),
                    Duration::from_secs(20),
                );
                ran.failed_with(&error.replace("PORT", &server.port.to_string()));
                assert!(
                    ran.took >= Duration::from_millis(low)
                        && ran.took < Duration::from_millis(high),
                    "{options:?} took {:?}: {}",
                    ran.took,
                    ran.stderr
                );
            });
        }
    });
}

// Regression: a run that recorded nothing left an empty session file behind.
#[test]
fn a_run_that_records_nothing_leaves_no_session_behind() {
    let dir = Scratch::new("nothing");
    let server = Hostile::start(|_, _, stream| {
        answer_json(stream, &final_answer("openai", "Hello."));
    });
    let sessions = dir.file("sessions");
    // A chat whose input ends at once.
    let chat = toolhost_agent(
        "openai",
        &base_url(&server.base(), "openai"),
        &["--session-dir", sessions.to_str().unwrap()],
    );
    let ran = run_at_most(chat, Duration::from_secs(20));
    assert_eq!(ran.code(), Some(0), "{}", ran.stderr);
    let left: Vec<_> = std::fs::read_dir(&sessions)
        .map(|dir| dir.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    // A base URL that cannot be one is refused before a session is made.
    let session = dir.file("new.jsonl");
    let bad = toolhost_agent(
        "openai",
        "http://127.0.0.1:1/v1 with spaces",
        &["--session", session.to_str().unwrap(), "--prompt", "Hi"],
    );
    let ran = run_at_most(bad, Duration::from_secs(20));
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("--base-url"), "{}", ran.stderr);
    assert!(!session.exists());
}

// Regression: a damaged conversation in a session exited 1, as if the provider had failed.
#[test]
fn a_damaged_conversation_exits_3() {
    let dir = Scratch::new("damaged");
    let server = Hostile::start(|_, _, stream| {
        answer_json(stream, &final_answer("anthropic", "Hello."));
    });
    let header = "{\"format\":\"tool-session\",\"version\":1}\n";
    let prompt = json!({"seq": 1, "kind": "agent/messages", "time": "2026-01-01T00:00:00Z",
        "data": {"provider": "anthropic", "role": "prompt",
                 "messages": [{"role": "user", "content": "One"}]}});
    let damaged = [
        // Not a stored group of messages.
        json!({"seq": 2, "kind": "agent/messages", "time": "2026-01-01T00:00:00Z",
               "data": {"provider": "anthropic", "role": "model", "messages": "x"}}),
        // A model turn that is not the provider's shape.
        json!({"seq": 2, "kind": "agent/messages", "time": "2026-01-01T00:00:00Z",
               "data": {"provider": "anthropic", "role": "model",
                        "messages": [{"role": "assistant", "content": [{"type": "tool_use"}]}]}}),
        // A compaction that is not one.
        json!({"seq": 2, "kind": "agent/compaction", "time": "2026-01-01T00:00:00Z",
               "data": {"dropped": "all"}}),
    ];
    for (n, event) in damaged.iter().enumerate() {
        let session = dir.file(&format!("{n}.jsonl"));
        std::fs::write(&session, format!("{header}{prompt}\n{event}\n")).unwrap();
        let ran = run_at_most(
            agent("anthropic", &server.base(), &session, &["--prompt", "Two"]),
            Duration::from_secs(20),
        );
        assert_eq!(ran.code(), Some(3), "{event}: {}", ran.stderr);
        assert!(
            ran.stderr
                .contains("the session's conversation cannot be read: event 2"),
            "{}",
            ran.stderr
        );
    }
    assert!(server.seen().is_empty());
}

// Regression: `--max-turns 0` was taken, the prompt recorded, and the run failed at once.
#[test]
fn max_turns_zero_is_refused_as_usage() {
    let dir = Scratch::new("max-turns");
    let session = dir.file("s.jsonl");
    let ran = run_at_most(
        agent(
            "openai",
            "http://127.0.0.1:1",
            &session,
            &["--prompt", "Hi", "--max-turns", "0"],
        ),
        Duration::from_secs(20),
    );
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("a prompt needs at least one turn: give --max-turns 1 or more"),
        "{}",
        ran.stderr
    );
    assert!(!session.exists());
}

// Regression: a key in `--base-url`'s userinfo was written out in every error that named the URL,
// and a provider that echoed the key back had it printed, and recorded in the session.
#[test]
fn a_key_never_appears_in_an_error_a_note_or_an_event() {
    let dir = Scratch::new("keys");
    let session = dir.file("s.jsonl");
    // Credentials in the URL are refused, and not repeated.
    let ran = run_at_most(
        agent(
            "openai",
            &format!("http://user:{OPENAI_KEY}@127.0.0.1:1"),
            &session,
            &["--prompt", "Hi"],
        ),
        Duration::from_secs(20),
    );
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr);
    no_key_in(&ran.stderr);
    assert!(
        ran.stderr.contains("http://…@127.0.0.1:1/v1"),
        "{}",
        ran.stderr
    );
    assert!(!session.exists());
    // An error that echoes the key, in a body, in a retried note, in a stream.
    for (provider, key) in [
        ("openai", OPENAI_KEY),
        ("anthropic", ANTHROPIC_KEY),
        ("gemini", GEMINI_KEY),
    ] {
        let echo = format!("Incorrect API key provided: {key}");
        let server = Hostile::start(move |n, _, stream| {
            let body = json!({"error": {"message": echo}}).to_string();
            let status = if n == 0 {
                "500 Internal Server Error"
            } else {
                "401 Unauthorized"
            };
            answer(
                stream,
                status,
                &[("content-type", "application/json"), ("retry-after", "0")],
                body.as_bytes(),
            );
        });
        let ran = run_at_most(
            agent(
                provider,
                &server.base(),
                &dir.file(&format!("{provider}.jsonl")),
                &["--prompt", "Hi"],
            ),
            Duration::from_secs(20),
        );
        ran.failed_with("\"Incorrect API key provided: [redacted]\"");
        assert!(ran.stderr.contains("retrying"), "{}", ran.stderr);
    }
    let server = Hostile::start(|_, _, stream| {
        if stream_head(stream) {
            let error = json!({"type": "error",
                               "error": {"type": "authentication_error",
                                         "message": format!("bad key {ANTHROPIC_KEY}")}});
            let _ = stream.write_all(format!("event: error\ndata: {error}\n\n").as_bytes());
        }
    });
    let ran = run_at_most(
        agent(
            "anthropic",
            &server.base(),
            &dir.file("stream.jsonl"),
            &["--prompt", "Hi", "--stream"],
        ),
        Duration::from_secs(20),
    );
    ran.failed_with("authentication_error: bad key [redacted]");
    // A redirect's location is the provider's text: quoted, and the key not repeated from it.
    let server = Hostile::start(|_, _, stream| {
        let location = format!("http://127.0.0.1:1/?key={ANTHROPIC_KEY}&x=\u{202e}");
        answer(
            stream,
            "301 Moved Permanently",
            &[("location", &location)],
            b"",
        );
    });
    let ran = run_at_most(
        agent(
            "anthropic",
            &server.base(),
            &dir.file("redirect.jsonl"),
            &["--prompt", "Hi"],
        ),
        Duration::from_secs(20),
    );
    ran.failed_with(r#"a redirect to "http://127.0.0.1:1/?key=[redacted]&x=\u{202e}""#);
    // A model turn that repeats the key, in its text and its calls' arguments: not kept.
    let server = Hostile::start(|n, _, stream| {
        if n == 0 {
            let mut turn = chat_calls(
                1,
                &json!({"todos": [{"content": format!("Use {OPENAI_KEY}"), "status": "pending"}]}),
            );
            turn["choices"][0]["message"]["content"] = format!("Your key is {OPENAI_KEY}.").into();
            answer_json(stream, &turn);
        } else {
            // The key spelled with JSON escapes.
            let escaped: String = OPENAI_KEY
                .chars()
                .map(|c| format!("\\u{:04x}", c as u32))
                .collect();
            let body = final_answer("openai", &format!("Done with {OPENAI_KEY}."))
                .to_string()
                .replace(OPENAI_KEY, &escaped);
            answer(
                stream,
                "200 OK",
                &[("content-type", "application/json")],
                body.as_bytes(),
            );
        }
    });
    let ran = run_at_most(
        agent("openai", &server.base(), &session, &["--prompt", "Hi"]),
        Duration::from_secs(20),
    );
    assert_eq!(
        (ran.code(), ran.stdout.as_str()),
        (Some(0), "Done with [redacted].\n"),
        "{}",
        ran.stderr
    );
    no_key_in(&ran.stderr);
    no_key_in(&std::fs::read_to_string(&session).unwrap());
}

/// `text` with every character of the key written as a JSON escape.
fn escaped(key: &str) -> String {
    key.chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect()
}

// Regression: a key spelled with JSON escapes inside a call's arguments (themselves JSON in a
// string) reached the tool decoded, and the session's event, whole.
#[test]
fn a_key_escaped_inside_a_calls_arguments_is_not_recorded() {
    let dir = Scratch::new("keys-in-args");
    let session = dir.file("s.jsonl");
    let server = Hostile::start(|n, _, stream| {
        if n == 0 {
            let turn = chat_calls(
                1,
                &json!({"todos": [{"content": OPENAI_KEY, "status": "pending"}]}),
            );
            // Escaped inside the arguments' JSON text: `\\u0073…` in the body.
            let body = turn
                .to_string()
                .replace(OPENAI_KEY, &escaped(OPENAI_KEY).replace('\\', "\\\\"));
            assert!(!body.contains(OPENAI_KEY));
            answer(
                stream,
                "200 OK",
                &[("content-type", "application/json")],
                body.as_bytes(),
            );
        } else {
            answer_json(stream, &final_answer("openai", "Done."));
        }
    });
    let ran = run_at_most(
        agent("openai", &server.base(), &session, &["--prompt", "Hi"]),
        Duration::from_secs(20),
    );
    assert_eq!(ran.code(), Some(0), "{}", ran.stderr);
    let log = std::fs::read_to_string(&session).unwrap();
    no_key_in(&log);
    assert!(log.contains("[redacted]"), "{log}");
}

// Regression: a provider's text was cut at 500 characters before the key was taken out of it,
// so a key across the cut was shown but for its last characters.
#[test]
fn a_key_cut_in_an_error_text_shows_none_of_itself() {
    let dir = Scratch::new("keys-cut");
    // The cut falls 30, 20, 10 and 4 characters into the key.
    for offset in [470, 480, 490, 496] {
        let server = Hostile::start(move |_, _, stream| {
            let message = format!("{}{OPENAI_KEY}", "x".repeat(offset));
            let body = json!({"error": {"message": message}}).to_string();
            answer(
                stream,
                "401 Unauthorized",
                &[("content-type", "application/json")],
                body.as_bytes(),
            );
        });
        let ran = run_at_most(
            agent(
                "openai",
                &server.base(),
                &dir.file(&format!("cut-{offset}.jsonl")),
                &["--prompt", "Hi", "--max-retries", "0"],
            ),
            Duration::from_secs(20),
        );
        assert_eq!(ran.code(), Some(1), "{}", ran.stderr);
        let shown = &OPENAI_KEY[..4];
        assert!(!ran.stderr.contains(shown), "{offset}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("[redacted]…"),
            "{offset}: {}",
            ran.stderr
        );
    }
}

// Regression: a password holding `/`, `#` or `?` ended the authority early for the URL parser,
// so the credentials passed the check and were printed in every error that named the URL.
#[test]
fn credentials_with_a_slash_in_the_base_url_are_refused_and_not_shown() {
    let dir = Scratch::new("keys-slash");
    for password in ["pw4se/cret", "pw4se#cret", "pw4se?cret"] {
        let ran = run_at_most(
            agent(
                "openai",
                &format!("http://user:{password}@127.0.0.1:1"),
                &dir.file("s.jsonl"),
                &["--prompt", "Hi"],
            ),
            Duration::from_secs(20),
        );
        assert_eq!(ran.code(), Some(2), "{password}: {}", ran.stderr);
        assert!(!ran.stderr.contains("pw4se"), "{password}: {}", ran.stderr);
        assert!(ran.stderr.contains("carries credentials"), "{}", ran.stderr);
    }
}

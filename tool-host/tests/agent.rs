//! `toolhost agent` end to end, on every provider, streamed and not, against a local server
//! (tests/agent/server.py) that answers with responses built by the providers' official Python
//! SDKs and validates every request it receives with the SDKs' own request types. The tests
//! check what the server received: the calls' results paired by id, in order, errors flagged
//! as each provider flags them, the restatement after a compaction.

mod http;
mod python;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use test_support::events_of;

use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, Exec, Session};

use python::{python, python_with_port};

const PROVIDERS: [&str; 4] = ["openai", "openai-responses", "anthropic", "gemini"];

struct Server {
    port: u16,
    records: PathBuf,
    // Kept open: the server exits when it closes, with this process.
    _stdin: Mutex<ChildStdin>,
    _child: Child,
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolhost-agent-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let records = scratch().join("records");
        std::fs::create_dir_all(&records).unwrap();
        let (mut child, port) = python_with_port(
            "tests/agent/server.py",
            &records,
            "the test server did not start (the SDKs are installed by `.ci/run`, from \
             tests/wire/requirements.txt)",
        );
        Server {
            port,
            records,
            _stdin: Mutex::new(child.stdin.take().unwrap()),
            _child: child,
        }
    })
}

/// One `toolhost agent` run and what the server received for its scenario.
struct Run {
    output: Output,
    requests: Vec<Value>,
    session: PathBuf,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn body(&self, index: usize) -> &Value {
        &self.requests[index]["body"]
    }

    fn succeeded(&self, answer: &str) {
        assert_eq!(
            (self.code(), self.stdout()),
            (Some(0), format!("{answer}\n")),
            "{}",
            self.stderr()
        );
    }
}

fn mode(stream: bool) -> &'static str {
    if stream { "stream" } else { "plain" }
}

fn run(scenario: &str, provider: &str, stream: bool, extra: &[&str]) -> Run {
    let session = scratch().join(format!("{scenario}-{provider}-{}.jsonl", mode(stream)));
    run_on(
        scenario,
        provider,
        stream,
        extra,
        &session,
        &["--prompt", "Plan the work"],
    )
}

fn run_on(
    scenario: &str,
    provider: &str,
    stream: bool,
    extra: &[&str],
    session: &Path,
    prompt: &[&str],
) -> Run {
    run_with_env(scenario, provider, stream, extra, session, prompt, &[])
}

fn run_with_env(
    scenario: &str,
    provider: &str,
    stream: bool,
    extra: &[&str],
    session: &Path,
    prompt: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let server = server();
    let mut base = format!(
        "http://127.0.0.1:{}/s/{scenario}/{provider}/{}",
        server.port,
        mode(stream)
    );
    if provider.starts_with("openai") {
        base.push_str("/v1");
    }
    let mut command = test_support::agent_command(env!("CARGO_BIN_EXE_toolhost"), provider, &base);
    command
        .arg("--session")
        .arg(session)
        .args(prompt)
        .args(extra)
        .envs(env.iter().copied());
    if stream {
        command.arg("--stream");
    }
    let output = command.stdin(Stdio::null()).output().unwrap();
    let record = server
        .records
        .join(format!("{scenario}-{provider}-{}.json", mode(stream)));
    let requests: Vec<Value> = std::fs::read(&record)
        .map(|bytes| serde_json::from_slice(&bytes).unwrap())
        .unwrap_or_default();
    for request in &requests {
        assert_eq!(
            request["errors"],
            json!([]),
            "the {provider} SDK refused a request: {request}"
        );
    }
    Run {
        output,
        requests,
        session: session.to_owned(),
    }
}

/// The conversation a request carries.
fn messages<'b>(provider: &str, body: &'b Value) -> &'b [Value] {
    let key = match provider {
        "openai-responses" => "input",
        "gemini" => "contents",
        _ => "messages",
    };
    body[key].as_array().expect("the conversation is an array")
}

/// One tool result as a provider carries it.
#[derive(Debug, PartialEq)]
struct Result {
    /// The call's id (Gemini's, when the call had one).
    id: Option<String>,
    text: String,
    is_error: bool,
}

/// Each result's text, and whether it is an error.
fn texts_of(results: &[Result]) -> Vec<(&str, bool)> {
    results
        .iter()
        .map(|result| (result.text.as_str(), result.is_error))
        .collect()
}

/// The calls (ids; `None` for a Gemini call without one) and results of a request, in order,
/// after checking that each model message's calls are answered right after it, id for id.
fn calls_and_results(provider: &str, body: &Value) -> (Vec<Option<String>>, Vec<Result>) {
    let messages = messages(provider, body);
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut pending: Vec<Option<String>> = Vec::new();
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    for message in messages {
        let (new_calls, new_results): (Vec<Option<String>>, Vec<Result>) = match provider {
            "openai" => match message["role"].as_str() {
                Some("assistant") => (
                    message["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|call| Some(text(&call["id"])))
                        .collect(),
                    vec![],
                ),
                Some("tool") => (
                    vec![],
                    vec![Result {
                        id: Some(text(&message["tool_call_id"])),
                        text: text(&message["content"]),
                        is_error: text(&message["content"]).starts_with("Error: "),
                    }],
                ),
                _ => (vec![], vec![]),
            },
            "openai-responses" => match message["type"].as_str() {
                Some("function_call") => (vec![Some(text(&message["call_id"]))], vec![]),
                Some("function_call_output") => (
                    vec![],
                    vec![Result {
                        id: Some(text(&message["call_id"])),
                        text: text(&message["output"]),
                        is_error: text(&message["output"]).starts_with("Error: "),
                    }],
                ),
                _ => (vec![], vec![]),
            },
            "anthropic" => {
                let blocks = message["content"].as_array().cloned().unwrap_or_default();
                (
                    blocks
                        .iter()
                        .filter(|block| block["type"] == "tool_use")
                        .map(|block| Some(text(&block["id"])))
                        .collect(),
                    blocks
                        .iter()
                        .filter(|block| block["type"] == "tool_result")
                        .map(|block| Result {
                            id: Some(text(&block["tool_use_id"])),
                            text: text(&block["content"]),
                            is_error: block["is_error"] == true,
                        })
                        .collect(),
                )
            }
            _ => {
                let parts = message["parts"].as_array().cloned().unwrap_or_default();
                (
                    parts
                        .iter()
                        .filter_map(|part| part.get("functionCall"))
                        .map(|call| call.get("id").map(text))
                        .collect(),
                    parts
                        .iter()
                        .filter_map(|part| part.get("functionResponse"))
                        .map(|response| Result {
                            id: response.get("id").map(text),
                            text: text(
                                response["response"]
                                    .get("output")
                                    .or(response["response"].get("error"))
                                    .unwrap_or(&Value::Null),
                            ),
                            is_error: response["response"].get("error").is_some(),
                        })
                        .collect(),
                )
            }
        };
        if !new_results.is_empty() {
            for result in &new_results {
                assert!(
                    !pending.is_empty(),
                    "a result answers no call: {result:?} in {body}"
                );
                assert_eq!(
                    result.id,
                    pending.remove(0),
                    "results must answer their calls in order"
                );
            }
        } else if !new_calls.is_empty() || provider != "openai-responses" {
            // Anything but a result while calls are open splits a call from its result
            // (Responses items of one turn — reasoning, text, calls — come before the outputs).
            let is_turn_item = provider == "openai-responses"
                && message["type"] != "function_call_output"
                && message.get("role").is_none();
            assert!(
                pending.is_empty() || is_turn_item,
                "calls {pending:?} are not answered before {message}"
            );
        }
        pending.extend(new_calls.iter().cloned());
        calls.extend(new_calls);
        results.extend(new_results);
    }
    (calls, results)
}

fn list_of(session: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["replay", "--format", "json"])
        .arg(session)
        .output()
        .unwrap();
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).unwrap()
}

fn restatement_of(todos: Value) -> String {
    let mut ctx = Ctx::new();
    ctx.plugin::<tool_todo::TodoWrite>().unwrap();
    let session = Session::in_memory();
    let output = ctx
        .tools
        .call(
            "todo_write",
            &Exec::for_agent(Agent::new("a", session.clone())),
            &json!({ "todos": todos }).to_string(),
        )
        .wait();
    assert!(!output.is_error);
    tool_todo::restatement(&session).unwrap()
}

fn last_user_text(provider: &str, body: &Value) -> String {
    let last = messages(provider, body).last().unwrap();
    assert_eq!(last["role"], "user", "{last}");
    match provider {
        "gemini" => last["parts"][0]["text"].as_str().unwrap().to_owned(),
        _ => last["content"].as_str().unwrap().to_owned(),
    }
}

#[test]
fn a_todo_write_call_runs_and_its_result_goes_back_on_every_provider() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run("todo", provider, stream, &[]);
            run.succeeded("Done.");
            assert_eq!(run.requests.len(), 2);
            // The first request: the prompt, the tools in the provider's dialect, streamed as
            // asked, the key where the provider wants it.
            let first = run.body(0);
            assert_eq!(messages(provider, first).len(), 1);
            let tools = first["tools"].to_string();
            assert!(tools.contains("todo_write"), "{tools}");
            let path = run.requests[0]["path"].as_str().unwrap();
            let headers = &run.requests[0]["headers"];
            match provider {
                "gemini" => {
                    assert_eq!(
                        path,
                        if stream {
                            "/v1beta/models/test-model:streamGenerateContent?alt=sse"
                        } else {
                            "/v1beta/models/test-model:generateContent"
                        }
                    );
                    assert_eq!(headers["x-goog-api-key"], test_support::GEMINI_KEY);
                }
                "anthropic" => {
                    assert_eq!(path, "/v1/messages");
                    assert_eq!(headers["x-api-key"], test_support::ANTHROPIC_KEY);
                    assert_eq!(first["stream"].as_bool().unwrap_or(false), stream);
                }
                _ => {
                    let want = if provider == "openai" {
                        "/v1/chat/completions"
                    } else {
                        "/v1/responses"
                    };
                    assert_eq!(path, want);
                    assert_eq!(
                        headers["authorization"],
                        format!("Bearer {}", test_support::OPENAI_KEY)
                    );
                    assert_eq!(first["stream"].as_bool().unwrap_or(false), stream);
                }
            }
            // The second: the model's turn as it came (signatures, reasoning), and the result.
            let second = run.body(1);
            let kept = second.to_string();
            let carried = match provider {
                "openai" => "Planning.",
                "openai-responses" => "opaque-reasoning",
                "anthropic" => "sig-123",
                _ => "c2lnLWNhbGw=", // base64 of the call's thought signature
            };
            assert!(kept.contains(carried), "{provider}: {kept}");
            let (calls, results) = calls_and_results(provider, second);
            assert_eq!(calls.len(), 1);
            assert_eq!(
                results,
                [Result {
                    id: calls[0].clone(),
                    text: "Updated todo list: 1 pending, 1 in progress, 0 completed".into(),
                    is_error: false,
                }],
                "{provider}"
            );
            if provider == "gemini" {
                assert_eq!(calls[0], None, "Gemini's call came without an id");
            }
            assert_eq!(
                list_of(&run.session),
                json!([
                    {"content": "Read the spec", "status": "in_progress"},
                    {"content": "Write the parser", "status": "pending"}
                ])
            );
        }
    }
}

#[test]
fn parallel_calls_run_in_order_and_pair_by_id() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run("parallel", provider, stream, &[]);
            run.succeeded("Both done.");
            let (calls, results) = calls_and_results(provider, run.body(1));
            assert_eq!(calls.len(), 2, "{provider}");
            assert_ne!(calls[0], calls[1]);
            if provider == "gemini" {
                assert_eq!(calls, [Some("fc_1".into()), Some("fc_2".into())]);
            }
            let ids: Vec<_> = results.iter().map(|result| result.id.clone()).collect();
            assert_eq!(ids, calls);
            assert!(results.iter().all(|result| !result.is_error));
            assert_eq!(
                results[1].text,
                "Updated todo list: 1 pending, 1 in progress, 1 completed"
            );
            // The events are in call order: the second list is the current one.
            assert_eq!(list_of(&run.session).as_array().unwrap().len(), 3);
        }
    }
}

#[test]
fn bad_arguments_reach_the_model_as_an_error_and_it_retries() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run("bad_args", provider, stream, &[]);
            run.succeeded("Done.");
            assert_eq!(run.requests.len(), 3);
            let (_, results) = calls_and_results(provider, run.body(1));
            assert_eq!(results.len(), 1);
            assert!(results[0].is_error, "{provider}: {results:?}");
            assert!(results[0].text.starts_with("Error: "), "{results:?}");
            assert!(results[0].text.contains("done"), "{results:?}");
            let (calls, results) = calls_and_results(provider, run.body(2));
            assert_eq!((calls.len(), results.len()), (2, 2));
            assert!(!results[1].is_error, "{provider}: {results:?}");
        }
    }
}

#[test]
fn a_call_without_arguments_is_read_as_an_empty_object() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run("empty_args", provider, stream, &[]);
            run.succeeded("Noted.");
            let (_, results) = calls_and_results(provider, run.body(1));
            // `""` is `{}`: the tool says what is missing, not that the JSON is broken.
            assert!(results[0].is_error);
            assert!(results[0].text.contains("todos"), "{results:?}");
            assert!(!results[0].text.contains("JSON"), "{results:?}");
        }
    }
}

#[test]
fn a_rate_limit_is_waited_out_and_retried() {
    for (provider, stream) in PROVIDERS
        .iter()
        .map(|provider| (*provider, false))
        .chain([("anthropic", true)])
    {
        let run = run("rate_limit", provider, stream, &[]);
        run.succeeded("Done.");
        assert_eq!(run.requests.len(), 2);
        assert_eq!(run.body(0), run.body(1), "the same request, retried");
        assert!(
            run.stderr().contains("\"Slow down\"; retrying in 1.0 s"),
            "{}",
            run.stderr()
        );
    }
}

#[test]
fn a_provider_that_stays_busy_is_given_up_on_with_a_clear_message() {
    for provider in ["anthropic", "openai"] {
        let run = run("busy", provider, false, &["--max-retries", "2"]);
        assert_eq!(run.code(), Some(1), "{}", run.stderr());
        assert_eq!(run.requests.len(), 3);
        assert!(run.stdout().is_empty());
        assert!(
            run.stderr().contains(&format!(
                "the {provider} API answered 529: \"Overloaded\" (after 3 attempts)"
            )),
            "{}",
            run.stderr()
        );
    }
}

#[test]
fn compaction_never_splits_a_call_from_its_result_and_restates_the_list() {
    let list_b = json!([
        {"content": "Read the spec", "status": "completed"},
        {"content": "Write the parser", "status": "in_progress"},
        {"content": "Test it \"twice\"\nthen ship", "status": "pending"}
    ]);
    let restated = restatement_of(list_b);
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run(
                "compaction",
                provider,
                stream,
                &["--context-budget", "9000"],
            );
            run.succeeded("Done.");
            assert_eq!(run.requests.len(), 4);
            assert!(run.stderr().contains("compacted"), "{}", run.stderr());
            // Before: every turn is there.
            let (calls, _) = calls_and_results(provider, run.body(1));
            assert_eq!(calls.len(), 1);
            // The third request was compacted: the first turn went, with its result; the
            // prompt and the second turn stayed; the list is restated last, exactly.
            let third = run.body(2);
            let (calls, results) = calls_and_results(provider, third);
            assert_eq!(
                calls.len(),
                1,
                "{provider}: only the second turn's call is left"
            );
            assert_eq!(results.len(), 1);
            let first_message = &messages(provider, third)[0];
            assert!(
                first_message.to_string().contains("Plan the work"),
                "{first_message}"
            );
            assert_eq!(last_user_text(provider, third), restated, "{provider}");
            assert!(
                third.to_string().len() < run.body(1).to_string().len() + 2000,
                "{provider}: the request shrank"
            );
            // The fourth goes on from there, paired.
            let (calls, results) = calls_and_results(provider, run.body(3));
            assert_eq!((calls.len(), results.len()), (2, 2));
        }
    }
}

#[test]
fn a_resumed_session_continues_the_conversation() {
    for provider in PROVIDERS {
        let session = scratch().join(format!("resume-{provider}.jsonl"));
        let first = run_on(
            "resume",
            provider,
            false,
            &[],
            &session,
            &["--prompt", "One"],
        );
        first.succeeded("First.");
        let second = run_on(
            "resume",
            provider,
            false,
            &[],
            &session,
            &["--prompt", "Two"],
        );
        second.succeeded("Second.");
        let sent = messages(provider, second.body(1));
        // Prompt, answer, prompt (the Responses answer has its reasoning item too).
        let answer_items = if provider == "openai-responses" { 2 } else { 1 };
        assert_eq!(sent.len(), 2 + answer_items, "{provider}: {sent:?}");
        let text = serde_json::to_string(sent).unwrap();
        let (one, first_answer, two) = (
            text.find("One").unwrap(),
            text.find("First.").unwrap(),
            text.find("Two").unwrap(),
        );
        assert!(one < first_answer && first_answer < two, "{text}");
    }
}

#[test]
fn another_providers_conversation_is_refused() {
    let session = scratch().join("other-provider.jsonl");
    run_on(
        "other_provider",
        "anthropic",
        false,
        &[],
        &session,
        &["--prompt", "One"],
    )
    .succeeded("First.");
    let run = run_on(
        "other_provider",
        "gemini",
        false,
        &[],
        &session,
        &["--prompt", "Two"],
    );
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr()
            .contains("the session's conversation was held with the anthropic API"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_missing_key_is_a_usage_error_before_anything_is_written() {
    let dir = scratch().join("no-key");
    let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "agent",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--prompt",
            "x",
        ])
        .arg("--session-dir")
        .arg(&dir)
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("ANTHROPIC_API_KEY is not set"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!dir.exists());
}

#[test]
fn the_chat_draws_the_checklist_as_the_list_changes() {
    let server = server();
    let session = scratch().join("chat.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "agent",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--stream",
        ])
        .arg("--base-url")
        .arg(format!(
            "http://127.0.0.1:{}/s/todo/anthropic/chat",
            server.port
        ))
        .arg("--session")
        .arg(&session)
        .env("ANTHROPIC_API_KEY", "ak-test")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "Plan the work").unwrap();
        writeln!(stdin, "quit").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let planning = stdout.find("Planning.").expect("the model's text");
    let checklist = stdout.find("Read the spec").expect("the checklist");
    let done = stdout.find("Done.").expect("the final answer");
    assert!(planning < checklist && checklist < done, "{stdout}");
}

// Another MCP server's tools (`--mcp`): the pinned Python MCP SDK's server,
// tests/agent/mcp_server.py, which logs every call that reaches it.

fn mcp_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent/mcp_server.py")
}

/// `--mcp` for the Python server on standard input and output, logging to `log`.
fn mcp_stdio(log: &Path) -> String {
    format!(
        "{} {} stdio {}",
        python().display(),
        mcp_script().display(),
        log.display()
    )
}

/// The calls that reached the Python server: (tool, arguments).
fn arrived(log: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let call: Value = serde_json::from_str(line).unwrap();
            (
                call["tool"].as_str().unwrap().to_owned(),
                call["arguments"].clone(),
            )
        })
        .collect()
}

/// The names of the tools a request offers.
fn offered(provider: &str, body: &Value) -> Vec<String> {
    let tools = match provider {
        "gemini" => &body["tools"][0]["functionDeclarations"],
        _ => &body["tools"],
    };
    tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| {
            tool.get("function").unwrap_or(tool)["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The Python server over Streamable HTTP, on a port of its own, until dropped.
struct HttpMcp {
    port: u16,
    child: Child,
}

impl HttpMcp {
    fn start(log: &Path, token: Option<&str>) -> HttpMcp {
        let mut command = Command::new(python());
        command.arg(mcp_script()).arg("http").arg(log);
        command.args(token);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().strip_prefix("PORT ").unwrap().parse().unwrap();
        // Until it accepts connections.
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        HttpMcp { port, child }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_mcp_tool_s_bad_call_is_refused_here_and_never_reaches_its_server() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let log = scratch().join(format!("mcp-bad-{provider}-{}.log", mode(stream)));
            let server = mcp_stdio(&log);
            let run = run(
                "mcp_bad",
                provider,
                stream,
                &["--mcp", &server, "--mcp-prefix", "py_"],
            );
            run.succeeded("Done.");
            assert_eq!(run.requests.len(), 3, "{}", run.stderr());
            let names = offered(provider, run.body(0));
            for name in [
                "todo_write",
                "py_plan",
                "py_add",
                "py_chart",
                "py_enable_extra",
            ] {
                assert!(names.iter().any(|n| n == name), "{provider}: {names:?}");
            }
            // The if/then schema is not offered, and stderr says why.
            assert!(!names.iter().any(|n| n == "py_conditional"), "{names:?}");
            assert!(
                run.stderr().contains(
                    "the tool `conditional` of the MCP server `python-tools` is not offered: \
                     `if` at arguments is a keyword the runtime does not enforce"
                ),
                "{}",
                run.stderr()
            );
            let (_, results) = calls_and_results(provider, run.body(1));
            assert_eq!(
                results[0].text,
                "Error: invalid arguments: todos[0].status: expected one of \"pending\", \
                 \"in_progress\", \"completed\", got \"done\""
            );
            assert!(results[0].is_error);
            let (_, results) = calls_and_results(provider, run.body(2));
            assert_eq!(results[1].text, "planned 2");
            assert!(!results[1].is_error);
            // Only the corrected call reached the server.
            let calls = arrived(&log);
            assert_eq!(calls.len(), 1, "{calls:?}");
            assert_eq!(calls[0].0, "plan");
            assert_eq!(calls[0].1["todos"][0]["status"], "in_progress");
        }
    }
}

#[test]
fn an_mcp_tool_s_text_data_images_and_errors_come_back_as_outputs() {
    for provider in ["anthropic", "openai"] {
        let log = scratch().join(format!("mcp-content-{provider}.log"));
        let server = mcp_stdio(&log);
        let run = run(
            "mcp_content",
            provider,
            false,
            &["--mcp", &server, "--mcp-prefix", "py_"],
        );
        run.succeeded("Done.");
        let (_, results) = calls_and_results(provider, run.body(1));
        let texts = texts_of(&results);
        assert_eq!(
            texts,
            [
                ("5", false),
                ("[image: image/png, 70 bytes]", false),
                ("Error: Error executing tool fail", true)
            ]
        );
        // `b` was sent as 3.0 and reached the server as the integer 3.
        let calls = arrived(&log);
        let add = calls.iter().find(|(tool, _)| tool == "add").unwrap();
        assert_eq!(add.1, json!({"a": 2, "b": 3}));
    }
}

#[test]
fn a_changed_tool_list_is_offered_on_the_next_request_over_stdio_and_http() {
    let log = scratch().join("mcp-changed-stdio.log");
    let server = mcp_stdio(&log);
    let args = [
        "--mcp",
        &server,
        "--mcp-prefix",
        "py_",
        "--mcp-allow",
        "enable_extra,extra",
    ];
    let stdio = run("mcp_changed", "anthropic", false, &args);
    stdio.succeeded("Done.");
    assert_eq!(
        offered("anthropic", stdio.body(0)),
        ["todo_write", "py_enable_extra"]
    );
    assert_eq!(
        offered("anthropic", stdio.body(1)),
        ["todo_write", "py_enable_extra", "py_extra"]
    );
    let (_, results) = calls_and_results("anthropic", stdio.body(2));
    assert_eq!(results.last().unwrap().text, "extra hi");

    let log = scratch().join("mcp-changed-http.log");
    let http = HttpMcp::start(&log, None);
    let url = http.url();
    let args = [
        "--mcp",
        &url,
        "--mcp-prefix",
        "py_",
        "--mcp-allow",
        "enable_extra,extra",
    ];
    let run = run("mcp_changed_http", "openai", true, &args);
    run.succeeded("Done.");
    assert_eq!(
        offered("openai", run.body(1)),
        ["todo_write", "py_enable_extra", "py_extra"]
    );
    let (_, results) = calls_and_results("openai", run.body(2));
    assert_eq!(results.last().unwrap().text, "extra hi");
    assert_eq!(arrived(&log).len(), 2);
}

#[test]
fn a_server_that_dies_mid_run_makes_its_tools_answer_errors_and_the_run_goes_on() {
    let log = scratch().join("mcp-dead.log");
    let server = mcp_stdio(&log);
    let run = run(
        "mcp_dead",
        "anthropic",
        false,
        &["--mcp", &server, "--mcp-prefix", "py_"],
    );
    run.succeeded("Done.");
    let (_, results) = calls_and_results("anthropic", run.body(3));
    let unreachable = "Error: the MCP server `python-tools` is not reachable";
    assert!(results[0].text.starts_with(unreachable), "{results:?}");
    assert!(results[1].text.starts_with(unreachable), "{results:?}");
    assert!(results.iter().take(2).all(|result| result.is_error));
    assert_eq!(
        results[2].text,
        "Updated todo list: 1 pending, 1 in progress, 0 completed"
    );
    assert_eq!(
        arrived(&log).len(),
        1,
        "only the call that killed it arrived"
    );
}

#[test]
fn a_call_past_its_timeout_answers_so_and_the_server_is_told_to_cancel_it() {
    let log = scratch().join("mcp-slow.log");
    let server = mcp_stdio(&log);
    let args = [
        "--mcp",
        &server,
        "--mcp-prefix",
        "py_",
        "--mcp-timeout",
        "1s",
    ];
    let started = std::time::Instant::now();
    let run = run("mcp_slow", "anthropic", false, &args);
    run.succeeded("Done.");
    // The 30 s sleep was not waited for.
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    let (_, results) = calls_and_results("anthropic", run.body(2));
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0].text.contains("1s") || results[0].text.contains("1 s"),
        "{results:?}"
    );
    assert_eq!(results[1].text, "2");
    let calls = arrived(&log);
    assert!(
        calls.contains(&("slow".to_owned(), json!({"cancelled": true}))),
        "the server was not told to cancel: {calls:?}"
    );
}

#[test]
fn a_schema_that_cannot_be_enforced_is_offered_only_when_asked_and_said_so() {
    let log = scratch().join("mcp-unchecked.log");
    let server = mcp_stdio(&log);
    let args = ["--mcp", &server, "--mcp-prefix", "py_", "--mcp-unchecked"];
    let run = run("mcp_content", "openai-responses", false, &args);
    run.succeeded("Done.");
    assert!(offered("openai-responses", run.body(0)).contains(&"py_conditional".to_owned()));
    assert!(
        run.stderr().contains(
            "the tool `conditional` of the MCP server `python-tools` is offered unchecked: `if` \
             at arguments is a keyword the runtime does not enforce; its arguments are checked \
             by the server alone"
        ),
        "{}",
        run.stderr()
    );
    // Misplaced options are usage errors, before anything starts.
    let misplaced = run_on(
        "mcp_none",
        "openai",
        false,
        &["--mcp-prefix", "x_", "--mcp", &server],
        &scratch().join("mcp-none.jsonl"),
        &["--prompt", "go"],
    );
    assert_eq!(misplaced.code(), Some(2));
    assert!(
        misplaced
            .stderr()
            .contains("--mcp-prefix applies to the --mcp before it, and there is none"),
        "{}",
        misplaced.stderr()
    );
    assert!(misplaced.requests.is_empty());
    // Two servers with a tool of one name, no prefix: refused, both named.
    let twice = run_on(
        "mcp_none",
        "openai",
        false,
        &["--mcp", &server, "--mcp", &server],
        &scratch().join("mcp-twice.jsonl"),
        &["--prompt", "go"],
    );
    assert_eq!(twice.code(), Some(3));
    assert!(
        twice.stderr().contains(
            "a tool named `plan` is already loaded, from MCP server `python-tools`; MCP server \
             `python-tools` cannot load another"
        ),
        "{}",
        twice.stderr()
    );
}

#[test]
fn an_http_server_gets_the_bearer_token_from_the_environment_and_no_redirect_is_followed() {
    let log = scratch().join("mcp-http-token.log");
    let http = HttpMcp::start(&log, Some("s3cret-token"));
    let url = http.url();
    let command = |extra: &[&str], token: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
        command
            .args([
                "agent",
                "--provider",
                "openai",
                "--model",
                "m",
                "--prompt",
                "go",
            ])
            .args(["--base-url", "http://127.0.0.1:9/v1"])
            .args(["--session-dir"])
            .arg(scratch().join("mcp-http-token-sessions"))
            .args(extra)
            .env("OPENAI_API_KEY", "sk-test")
            .env_remove("MCP_TOKEN");
        if let Some(token) = token {
            command.env("MCP_TOKEN", token);
        }
        command.stdin(Stdio::null()).output().unwrap()
    };
    // Without its token, the server refuses: said at start, exit 3, nothing sent to a model.
    let refused = command(&["--mcp", &url], None);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    // A variable that is not set is a usage error.
    let unset = command(&["--mcp", &url, "--mcp-bearer-env", "MCP_TOKEN"], None);
    assert_eq!(unset.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unset.stderr)
            .contains("the environment variable MCP_TOKEN holds no token"),
    );
    // With it, the bad call is refused here and the good one reaches the server.
    let run = run_with_env(
        "mcp_bad_http",
        "anthropic",
        false,
        &[
            "--mcp",
            &url,
            "--mcp-bearer-env",
            "MCP_TOKEN",
            "--mcp-prefix",
            "py_",
        ],
        &scratch().join("mcp-bad-http.jsonl"),
        &["--prompt", "Plan the work"],
        &[("MCP_TOKEN", "s3cret-token")],
    );
    run.succeeded("Done.");
    let (_, results) = calls_and_results("anthropic", run.body(2));
    assert_eq!(results[1].text, "planned 2");
    let calls = arrived(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");

    // A server that redirects gets nothing followed: the token never reaches the target.
    let mut redirect = Command::new(python())
        .arg(mcp_script())
        .arg("redirect")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(redirect.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let redirector: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let url = format!("http://127.0.0.1:{redirector}/mcp");
    let redirected = command(
        &["--mcp", &url, "--mcp-bearer-env", "MCP_TOKEN"],
        Some("s3cret-token"),
    );
    let stderr = String::from_utf8_lossy(&redirected.stderr);
    assert_eq!(redirected.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("307"), "{stderr}");
    drop(redirect.stdin.take());
    let target = redirect.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&target.stderr),
        "",
        "the redirect's target was reached"
    );
}

#[test]
fn plan_mode_denies_what_is_not_read_only_and_lets_the_plan_be_written() {
    let log = scratch().join("mcp-plan-mode.log");
    let server = mcp_stdio(&log);
    let run = run(
        "plan_mode",
        "gemini",
        false,
        &["--mode", "plan", "--mcp", &server, "--mcp-prefix", "py_"],
    );
    run.succeeded("Planned.");
    let (_, results) = calls_and_results("gemini", run.body(1));
    assert_eq!(
        results[0].text,
        "Error: py_plan is not run in plan mode, which runs only read-only tools; present the \
         plan and let the user approve it first"
    );
    assert!(results[0].is_error);
    assert_eq!(
        results[1].text,
        "Updated todo list: 1 pending, 1 in progress, 0 completed"
    );
    assert!(arrived(&log).is_empty(), "a denied call reached the server");
}

#[test]
fn each_response_s_usage_is_recorded_and_summed_on_every_provider_streamed_or_not() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let run = run("usage", provider, stream, &[]);
            run.succeeded("Done.");
            // The server's replies say input 1000 + k (7 cached) and output 50 + k (3 of it
            // reasoning, none for Anthropic), k the reply's place.
            let reasoning = if provider == "anthropic" { 0 } else { 3 };
            let recorded = events_of(&run.session, "agent/usage");
            assert_eq!(
                recorded,
                [
                    json!({"input": 1000, "output": 50, "cached": 7, "reasoning": reasoning}),
                    json!({"input": 1001, "output": 51, "cached": 7, "reasoning": reasoning}),
                ],
                "{provider} {}",
                mode(stream)
            );
            let line = format!(
                "2 requests, 2001 tokens in (14 cached), 101 out ({} reasoning), 1 tool call",
                2 * reasoning
            );
            assert!(
                run.stderr().contains(&format!("toolhost agent: {line}\n")),
                "{}",
                run.stderr()
            );
            let replayed = Command::new(env!("CARGO_BIN_EXE_toolhost"))
                .args(["replay", "--usage"])
                .arg(&run.session)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&replayed.stdout),
                format!("{line}\n")
            );
        }
    }
}

#[test]
fn a_model_that_never_stops_is_stopped_by_each_budget_at_its_limit() {
    // Each turn of this model calls todo_write once, and each reply reports 1050 + 2k tokens.
    let budgets: [(&str, &str, &str, usize, usize); 3] = [
        ("forever_requests", "--max-requests", "3", 3, 3),
        ("forever_calls", "--max-tool-calls", "2", 3, 2),
        ("forever_tokens", "--token-budget", "2500", 3, 3),
    ];
    for (scenario, flag, limit, requests, calls) in budgets {
        let run = run(scenario, "openai", false, &[flag, limit]);
        assert_eq!(run.code(), Some(4), "{flag}: {}", run.stderr());
        assert_eq!(run.requests.len(), requests, "{flag}");
        assert_eq!(events_of(&run.session, "todo/write").len(), calls, "{flag}");
        let what = match flag {
            "--max-requests" => "requests",
            "--max-tool-calls" => "tool calls",
            _ => "tokens",
        };
        assert!(
            run.stderr().contains(&format!(
                "the run reached its budget of {limit} {what} ({flag} {limit})"
            )),
            "{}",
            run.stderr()
        );
        assert_eq!(
            events_of(&run.session, "agent/stopped"),
            [json!({"budget": what, "limit": limit.parse::<u64>().unwrap()})]
        );
    }
}

#[test]
fn a_5_mb_result_becomes_a_preview_within_the_limit_and_is_kept_whole() {
    let log = scratch().join("mcp-preview.log");
    let server = mcp_stdio(&log);
    let args = [
        "--mcp",
        &server,
        "--mcp-prefix",
        "py_",
        "--mcp-allow",
        "big",
        "--max-result-tokens",
        "2000",
    ];
    let run = run("preview", "anthropic", false, &args);
    run.succeeded("Read.");
    let whole: String = (0..500_000).map(|i| format!("{i:09}\n")).collect();
    let (_, results) = calls_and_results("anthropic", run.body(1));
    let preview = &results[0].text;
    assert!(!results[0].is_error);
    assert!(preview.len() <= 8000, "{} bytes", preview.len());
    assert!(
        preview.starts_with("000000000\n000000001\n"),
        "{preview:.100}"
    );
    assert!(preview.ends_with("000499999\n"));
    assert!(
        preview.contains("of 5000000 bytes are not shown: the whole result is kept; read_result {\"seq\": 4, \"offset\": "),
        "{preview}"
    );
    // The session keeps it byte for byte, and read_result reads it on.
    let kept = events_of(&run.session, "tool/result");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0]["tool"], "py_big");
    assert_eq!(kept[0]["text"].as_str().unwrap(), whole);
    let (_, results) = calls_and_results("anthropic", run.body(2));
    assert_eq!(results[1].text, "000499999\n\n[the end: 5000000 bytes]");
}

#[test]
fn a_destructive_call_pauses_the_run_and_is_decided_from_another_process() {
    let log = scratch().join("mcp-approve.log");
    let _ = std::fs::remove_file(&log);
    let _ = std::fs::remove_file(log.with_extension("log.count"));
    let server = mcp_stdio(&log);
    let session = scratch().join("approve.jsonl");
    let _ = std::fs::remove_file(&session);
    let mcp = ["--mcp", &server, "--mcp-prefix", "py_"];
    let counter = || std::fs::read_to_string(format!("{}.count", log.display())).ok();
    let toolhost = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let session_arg = session.to_str().unwrap();

    // The destructive calls wait; todo_write, which needs no decision, runs.
    let paused = run_on(
        "approve",
        "anthropic",
        false,
        &mcp,
        &session,
        &["--prompt", "go"],
    );
    assert_eq!(paused.code(), Some(5), "{}", paused.stderr());
    assert!(
        paused.stderr().contains(
            "the run is paused: 2 calls wait for a decision (toolu_approve0, toolu_approve1)"
        ),
        "{}",
        paused.stderr()
    );
    assert!(paused.stderr().contains("decide with `toolhost approve "));
    assert_eq!(events_of(&session, "todo/write").len(), 1);
    assert_eq!(counter(), None);

    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = |output: &Output| String::from_utf8_lossy(&output.stdout).into_owned();
    // Seen before deciding: each waiting call, its arguments and why it asks; nothing decided.
    let listed = toolhost(&["approve", session_arg]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let text = stdout(&listed);
    assert!(text.contains("toolu_approve0: py_count {"), "{text}");
    assert!(text.contains("toolu_approve1: py_wipe {"), "{text}");
    assert_eq!(
        text.matches("  asks because the tool may be destructive\n  undecided\n")
            .count(),
        2,
        "{text}"
    );
    assert!(events_of(&session, "agent/decision").is_empty());
    // Every call named is checked first: one that is not pending decides none.
    let partly = toolhost(&["approve", session_arg, "toolu_approve0", "nope"]);
    assert_eq!(partly.status.code(), Some(2));
    assert!(stderr(&partly).contains("no call nope waits for a decision"));
    assert!(events_of(&session, "agent/decision").is_empty());
    let blank = toolhost(&["approve", session_arg, "toolu_approve0", "--deny", " "]);
    assert_eq!(blank.status.code(), Some(2));
    assert!(stderr(&blank).contains("--deny takes a reason, which the model reads"));
    let nowhere = scratch().join("no-such-session.jsonl");
    let absent = toolhost(&["approve", nowhere.to_str().unwrap()]);
    assert_eq!(absent.status.code(), Some(2));
    assert!(!nowhere.exists(), "approve makes no session");
    // A decision names its calls (or --all).
    let unnamed = toolhost(&["approve", session_arg, "--deny", "no"]);
    assert_eq!(unnamed.status.code(), Some(2));
    assert!(
        stderr(&unnamed).contains("name the calls to decide, or --all for every undecided one"),
        "{}",
        stderr(&unnamed)
    );

    // From other processes: an edit the tool's schema refuses, at once and with the text a call
    // with it would answer (nothing recorded), and an approval.
    let edited = toolhost(&[
        "approve",
        session_arg,
        "toolu_approve1",
        "--args",
        r#"{"target": "etc/passwd"}"#,
    ]);
    assert_eq!(edited.status.code(), Some(2), "{}", stderr(&edited));
    assert!(
        stderr(&edited).contains(
            "the arguments for call toolu_approve1 are refused: Error: invalid arguments: \
             target: expected a string matching \"^tmp/\", got \"etc/passwd\""
        ),
        "{}",
        stderr(&edited)
    );
    assert!(events_of(&session, "agent/decision").is_empty());
    let approved = toolhost(&["approve", session_arg, "toolu_approve0"]);
    assert!(approved.status.success());
    // Decided once: a second decision on it is refused, the first kept.
    let again = toolhost(&["approve", session_arg, "toolu_approve0", "--deny", "no"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains(
            "call toolu_approve0 is decided already (approved): a decision is not changed"
        ),
        "{}",
        stderr(&again)
    );
    let listed = stdout(&toolhost(&["approve", session_arg]));
    assert!(
        listed.contains("  approved\n") && listed.contains("  undecided\n"),
        "{listed}"
    );
    // Resumed: the undecided call is asked again; nothing runs meanwhile.
    let asked = run_on("approve", "anthropic", false, &mcp, &session, &[]);
    assert_eq!(asked.code(), Some(5), "{}", asked.stderr());
    assert!(
        asked
            .stderr()
            .contains("1 call waits for a decision (toolu_approve1)"),
        "{}",
        asked.stderr()
    );
    assert_eq!(
        counter(),
        None,
        "an approved call ran before the turn was decided"
    );
    // --all decides the undecided ones only.
    let denied = toolhost(&["approve", session_arg, "--all", "--deny", "not today"]);
    assert!(denied.status.success(), "{}", stderr(&denied));

    // Resumed again: the approved call runs once, the denied one answers its reason.
    let resumed = run_on("approve", "anthropic", false, &mcp, &session, &[]);
    assert_eq!(resumed.code(), Some(0), "{}", resumed.stderr());
    // The chat shows the model's text and the list as it stands.
    assert_eq!(
        resumed.stdout().matches("Done.").count(),
        1,
        "{}",
        resumed.stdout()
    );
    assert!(
        resumed.stdout().contains("Todos: 0/2 done"),
        "{}",
        resumed.stdout()
    );
    assert_eq!(counter().as_deref(), Some("1"));
    let (_, results) = calls_and_results("anthropic", resumed.body(1));
    let texts: Vec<&str> = results.iter().map(|result| result.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "1",
            "Error: not approved: not today",
            "Updated todo list: 1 pending, 1 in progress, 0 completed"
        ]
    );
    let arrived = arrived(&log);
    assert_eq!(arrived.len(), 1, "{arrived:?}");
    assert_eq!(arrived[0].0, "count");
    // Once more: nothing waits, nothing runs again.
    let again = run_on("approve", "anthropic", false, &mcp, &session, &[]);
    assert_eq!(again.code(), Some(0), "{}", again.stderr());
    assert_eq!(counter().as_deref(), Some("1"));
    let nothing = toolhost(&["approve", session_arg]);
    assert_eq!(nothing.status.code(), Some(2));
}

#[test]
fn a_paused_run_resumes_with_nothing_but_its_session_and_records_no_secret() {
    let log = scratch().join("mcp-resume.log");
    let _ = std::fs::remove_file(&log);
    let _ = std::fs::remove_file(log.with_extension("log.count"));
    let server = mcp_stdio(&log);
    let session = scratch().join("approve-resume.jsonl");
    let _ = std::fs::remove_file(&session);
    let mcp = ["--mcp", &server, "--mcp-prefix", "py_"];
    let counter = || std::fs::read_to_string(format!("{}.count", log.display())).ok();
    let toolhost = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(args)
            .env("ANTHROPIC_API_KEY", test_support::ANTHROPIC_KEY)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).into_owned();
    let session_arg = session.to_str().unwrap();

    let paused = run_on(
        "approve_resume",
        "anthropic",
        false,
        &mcp,
        &session,
        &["--prompt", "go", "--max-turns", "7"],
    );
    assert_eq!(paused.code(), Some(5), "{}", paused.stderr());
    assert!(
        paused.stderr().contains(&format!(
            "then go on with `toolhost agent --session {session_arg}`"
        )),
        "{}",
        paused.stderr()
    );
    // The run's options are recorded, in order, but its prompt, its session and its secrets.
    let config = events_of(&session, "agent/config");
    assert_eq!(config.len(), 1);
    let words: Vec<String> = serde_json::from_value(config[0]["args"].clone()).unwrap();
    // Each as `--name=value`, so a value that starts with `-` reads back as itself.
    let has = |word: &str| words.iter().any(|w| w == word);
    assert!(has("--provider=anthropic"), "{words:?}");
    assert!(has("--model=test-model"), "{words:?}");
    assert!(
        has(&format!("--mcp={server}")) && has("--mcp-prefix=py_"),
        "{words:?}"
    );
    assert!(has("--max-turns=7"), "{words:?}");
    assert!(
        !words
            .iter()
            .any(|word| word.starts_with("--prompt") || word.starts_with("--session")),
        "{words:?}"
    );
    let log_text = std::fs::read_to_string(&session).unwrap();
    assert!(!log_text.contains(test_support::ANTHROPIC_KEY));
    let approved = toolhost(&["approve", session_arg, "--all"]);
    assert!(approved.status.success(), "{}", stderr(&approved));

    // Resumed with other servers, which do not offer the approved calls' tools: it stops
    // saying so, nothing runs, nothing is recorded.
    let elsewhere = toolhost(&[
        "agent",
        "--session",
        session_arg,
        "--mcp",
        &server,
        "--mcp-prefix",
        "other_",
    ]);
    assert_eq!(elsewhere.status.code(), Some(2), "{}", stderr(&elsewhere));
    assert!(
        stderr(&elsewhere).contains(
            "the approved call toolu_approve_resume0 is of the tool py_count, which this run \
             does not offer"
        ),
        "{}",
        stderr(&elsewhere)
    );
    assert_eq!(counter(), None);
    assert_eq!(events_of(&session, "agent/config").len(), 1);

    // A budget of calls holds the approved ones too: none runs past it, the turn stays paused,
    // and a run that stopped so does not replace the recorded options.
    let short = toolhost(&["agent", "--session", session_arg, "--max-tool-calls", "1"]);
    assert_eq!(short.status.code(), Some(4), "{}", stderr(&short));
    assert!(
        stderr(&short).contains("the paused turn's 2 approved calls were not run"),
        "{}",
        stderr(&short)
    );
    assert_eq!(counter(), None);
    assert_eq!(events_of(&session, "agent/config").len(), 1);

    // Nothing else typed: the recorded options (provider, model, base URL, servers), said, and
    // the run goes on where it paused.
    let resumed = toolhost(&["agent", "--session", session_arg]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains(
            "resuming with the options its session recorded: --provider=anthropic \
             --model=test-model"
        ),
        "{}",
        stderr(&resumed)
    );
    assert!(
        String::from_utf8_lossy(&resumed.stdout).contains("Done."),
        "{}",
        String::from_utf8_lossy(&resumed.stdout)
    );
    assert_eq!(counter().as_deref(), Some("1"));
    assert_eq!(
        events_of(&session, "agent/config").len(),
        1,
        "the same options"
    );

    // A session that recorded no run cannot be resumed without them, and none is left behind.
    let fresh = scratch().join("resume-nothing.jsonl");
    let _ = std::fs::remove_file(&fresh);
    let nothing = toolhost(&[
        "agent",
        "--session",
        fresh.to_str().unwrap(),
        "--prompt",
        "go",
    ]);
    assert_eq!(nothing.status.code(), Some(2), "{}", stderr(&nothing));
    assert!(
        stderr(&nothing)
            .contains("--provider and --model are needed: this session recorded no run to resume"),
        "{}",
        stderr(&nothing)
    );
    assert!(!fresh.exists());
}

#[test]
fn in_the_chat_each_pending_call_is_answered_beside_it() {
    use std::io::Write as _;
    let log = scratch().join("mcp-approve-inline.log");
    let _ = std::fs::remove_file(&log);
    let _ = std::fs::remove_file(format!("{}.count", log.display()));
    let session = scratch().join("approve-inline.jsonl");
    let _ = std::fs::remove_file(&session);
    let mcp = mcp_stdio(&log);
    let base = format!(
        "http://127.0.0.1:{}/s/approve_inline/anthropic/plain",
        server().port
    );
    let mut chat = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args([
            "agent",
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--base-url",
            &base,
        ])
        .arg("--session")
        .arg(&session)
        .args(["--mcp", &mcp, "--mcp-prefix", "py_"])
        .env("ANTHROPIC_API_KEY", "ak-test")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The prompt; then for the count, an edit its schema refuses, asked again and approved;
    // for the wipe, a denial with its reason.
    chat.stdin
        .take()
        .unwrap()
        .write_all(b"go\ne\n{\"by\": \"many\"}\ny\nn\nkeep it\n")
        .unwrap();
    let output = chat.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(
            "the arguments for call toolu_approve_inline0 are refused: Error: invalid \
             arguments: by: expected an integer, got \"many\""
        ),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("toolhost wants to run: py_count").count(),
        2,
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(format!("{}.count", log.display())).unwrap(),
        "1"
    );
    let requests: Vec<Value> = serde_json::from_slice(
        &std::fs::read(server().records.join("approve_inline-anthropic-plain.json")).unwrap(),
    )
    .unwrap();
    let (_, results) = calls_and_results("anthropic", &requests[1]["body"]);
    assert_eq!(results[0].text, "1");
    assert_eq!(results[1].text, "Error: not approved: keep it");
}

/// An OTLP/HTTP receiver on a loopback port: tests/otel/receiver.py, which decodes what it
/// receives with OpenTelemetry's own protobuf types (`opentelemetry-proto`).
struct Receiver {
    url: String,
    records: PathBuf,
    // Kept open: the receiver exits when it closes.
    _stdin: ChildStdin,
    _child: Child,
}

impl Receiver {
    fn start(name: &str) -> Receiver {
        let records = scratch().join(format!("{name}.otlp.jsonl"));
        let _ = std::fs::remove_file(&records);
        let (mut child, port) = python_with_port(
            "tests/otel/receiver.py",
            &records,
            "the OTLP receiver did not start (opentelemetry-proto is installed by `.ci/run`, \
             from tool-host/tests/otel/requirements.txt)",
        );
        Receiver {
            url: format!("http://127.0.0.1:{port}"),
            records,
            _stdin: child.stdin.take().unwrap(),
            _child: child,
        }
    }

    /// Every request received, decoded; each was protobuf and decoded.
    fn records(&self) -> Vec<Value> {
        let records: Vec<Value> = std::fs::read_to_string(&self.records)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        for record in &records {
            assert_eq!(record["content_type"], "application/x-protobuf", "{record}");
            assert!(record.get("error").is_none(), "{record}");
        }
        records
    }

    fn spans(&self) -> Vec<Value> {
        self.records()
            .iter()
            .filter(|record| record["path"] == "/v1/traces")
            .flat_map(|record| record["spans"].as_array().unwrap().clone())
            .collect()
    }

    /// The data points of metric `name`, from every export.
    fn points(&self, name: &str) -> Vec<Value> {
        self.records()
            .iter()
            .filter(|record| record["path"] == "/v1/metrics")
            .flat_map(|record| record["metrics"].as_array().unwrap().clone())
            .filter(|metric| metric["name"] == name)
            .flat_map(|metric| metric["points"].as_array().unwrap().clone())
            .collect()
    }
}

/// The spans named `name` (and of `kind`, when given).
fn spans_named<'s>(spans: &'s [Value], name: &str, kind: Option<&str>) -> Vec<&'s Value> {
    spans
        .iter()
        .filter(|span| span["name"] == name && kind.is_none_or(|kind| span["kind"] == kind))
        .collect()
}

/// The one span named `name` (and of `kind`).
fn the_span<'s>(spans: &'s [Value], name: &str, kind: Option<&str>) -> &'s Value {
    let found = spans_named(spans, name, kind);
    assert_eq!(found.len(), 1, "{name} {kind:?} in {spans:#?}");
    found[0]
}

fn is_child_of(span: &Value, parent: &Value) -> bool {
    span["trace_id"] == parent["trace_id"] && span["parent_span_id"] == parent["span_id"]
}

/// The sum over the data points of `name` whose attributes include `with`.
fn summed(receiver: &Receiver, name: &str, with: &Value, field: &str) -> f64 {
    receiver
        .points(name)
        .iter()
        .filter(|point| {
            with.as_object()
                .unwrap()
                .iter()
                .all(|(key, value)| &point["attributes"][key] == value)
        })
        .map(|point| point[field].as_f64().unwrap())
        .sum()
}

/// `--mcp` for another `toolhost mcp` on standard input and output, exporting to `receiver`.
fn traced_mcp_stdio(receiver: &Receiver, session: &Path) -> String {
    let _ = std::fs::remove_file(session);
    format!(
        "{} mcp --session {} --otlp-endpoint {}",
        env!("CARGO_BIN_EXE_toolhost"),
        session.display(),
        receiver.url
    )
}

#[test]
fn a_run_is_one_trace_from_the_agent_through_the_model_to_an_mcp_server_s_tool() {
    let models = [
        ("openai", "openai", "gpt-test"),
        ("openai-responses", "openai", "gpt-test"),
        ("anthropic", "anthropic", "claude-test"),
        ("gemini", "gcp.gemini", "gemini-test"),
    ];
    for (provider, provider_name, response_model) in models {
        for stream in [false, true] {
            let case = format!("{provider} {}", mode(stream));
            let receiver = Receiver::start(&format!("traced-{provider}-{}", mode(stream)));
            let remote = scratch().join(format!("traced-remote-{provider}-{}.jsonl", mode(stream)));
            let mcp = traced_mcp_stdio(&receiver, &remote);
            let run = run(
                "traced",
                provider,
                stream,
                &[
                    "--otlp-endpoint",
                    &receiver.url,
                    "--mcp",
                    &mcp,
                    "--mcp-prefix",
                    "remote_",
                ],
            );
            run.succeeded("Done.");
            let spans = receiver.spans();

            let agent = the_span(&spans, "invoke_agent", None);
            let attributes = &agent["attributes"];
            assert_eq!(
                attributes["gen_ai.operation.name"], "invoke_agent",
                "{case}"
            );
            assert_eq!(attributes["gen_ai.provider.name"], provider_name, "{case}");
            assert_eq!(attributes["gen_ai.request.model"], "test-model", "{case}");
            let session = run.session.file_stem().unwrap().to_str().unwrap();
            assert_eq!(attributes["gen_ai.conversation.id"], session, "{case}");
            assert_eq!(agent["service"], "toolhost", "{case}");

            // One `chat` per request, under the run, with the usage the provider reported:
            // input 1000 + k, output 50 + k for the reply k.
            let chats = spans_named(&spans, "chat test-model", Some("SPAN_KIND_CLIENT"));
            assert_eq!(chats.len(), 2, "{case}: {spans:#?}");
            let mut usage: Vec<(i64, i64)> = chats
                .iter()
                .map(|chat| {
                    assert!(is_child_of(chat, agent), "{case}: {chat}");
                    let attributes = &chat["attributes"];
                    assert_eq!(attributes["gen_ai.operation.name"], "chat");
                    assert_eq!(attributes["gen_ai.provider.name"], provider_name);
                    assert_eq!(
                        attributes["gen_ai.response.model"], response_model,
                        "{case}"
                    );
                    assert!(attributes["gen_ai.response.finish_reasons"].is_string());
                    if provider != "gemini" {
                        assert!(attributes["gen_ai.response.id"].is_string(), "{case}");
                    }
                    (
                        attributes["gen_ai.usage.input_tokens"].as_i64().unwrap(),
                        attributes["gen_ai.usage.output_tokens"].as_i64().unwrap(),
                    )
                })
                .collect();
            usage.sort();
            assert_eq!(usage, [(1000, 50), (1001, 51)], "{case}");

            // Both calls under the run; the remote one's client span under it, and the server's
            // span, in the other process, under that: one trace.
            let calls = spans_named(&spans, "execute_tool todo_write", None);
            assert_eq!(calls.len(), 2, "{case}: here and at the server: {spans:#?}");
            let local = *calls
                .iter()
                .find(|call| is_child_of(call, agent))
                .unwrap_or_else(|| panic!("{case}: no local call under the run: {spans:#?}"));
            let forwarded = the_span(&spans, "execute_tool remote_todo_write", None);
            for call in [local, forwarded] {
                assert!(is_child_of(call, agent), "{case}: {call}");
                assert_eq!(call["attributes"]["gen_ai.tool.type"], "function");
                assert_eq!(call["status"], "STATUS_CODE_UNSET", "{case}");
                assert_eq!(call["attributes"]["gen_ai.conversation.id"], session);
                assert!(
                    call["attributes"]
                        .get("gen_ai.tool.call.arguments")
                        .is_none()
                );
            }
            let client = the_span(&spans, "tools/call todo_write", Some("SPAN_KIND_CLIENT"));
            assert!(is_child_of(client, forwarded), "{case}: {client}");
            assert_eq!(client["attributes"]["mcp.method.name"], "tools/call");
            let server = the_span(&spans, "tools/call todo_write", Some("SPAN_KIND_SERVER"));
            assert!(is_child_of(server, client), "{case}: {server}");
            assert_eq!(server["attributes"]["network.transport"], "pipe");
            let server_calls: Vec<&Value> = calls
                .iter()
                .copied()
                .filter(|span| is_child_of(span, server))
                .collect();
            assert_eq!(server_calls.len(), 1, "{case}: {spans:#?}");
            let remote_id = remote.file_stem().unwrap().to_str().unwrap();
            assert_eq!(
                server_calls[0]["attributes"]["gen_ai.conversation.id"],
                remote_id
            );
            // Each event kept is a span of its own, under what kept it.
            let appends: Vec<&Value> = spans_named(&spans, "session.append", None)
                .into_iter()
                .filter(|append| is_child_of(append, server_calls[0]))
                .collect();
            assert!(!appends.is_empty(), "{case}: {spans:#?}");
            assert_eq!(appends[0]["attributes"]["toolhost.session.store"], "files");
            assert!(appends[0]["attributes"]["toolhost.session.seq"].is_i64());
            let trace = &agent["trace_id"];
            assert!(
                spans.iter().all(|span| &span["trace_id"] == trace),
                "{case}: more than one trace: {spans:#?}"
            );

            // Neither arguments nor results unless asked.
            let everything = serde_json::to_string(&receiver.records()).unwrap();
            for text in ["Read the spec", "Write the parser", "Updated todo list"] {
                assert!(!everything.contains(text), "{case}: {text:?} was exported");
            }

            // The metrics, read from the same spans.
            for (kind, sum) in [("input", 2001.0), ("output", 101.0)] {
                let with = json!({"gen_ai.token.type": kind, "gen_ai.provider.name": provider_name,
                                  "gen_ai.request.model": "test-model"});
                assert_eq!(
                    summed(&receiver, "gen_ai.client.token.usage", &with, "sum"),
                    sum,
                    "{case}"
                );
            }
            let with = json!({"gen_ai.operation.name": "chat"});
            assert_eq!(
                summed(
                    &receiver,
                    "gen_ai.client.operation.duration",
                    &with,
                    "count"
                ),
                2.0,
                "{case}"
            );
            for (tool, count) in [("todo_write", 2.0), ("remote_todo_write", 1.0)] {
                let with = json!({"gen_ai.tool.name": tool, "toolhost.tool.outcome": "ok"});
                assert_eq!(
                    summed(&receiver, "toolhost.tool.calls", &with, "value"),
                    count,
                    "{case}: {tool}"
                );
                assert_eq!(
                    summed(&receiver, "toolhost.tool.duration", &with, "count"),
                    count,
                    "{case}: {tool}"
                );
            }
            let with = json!({"toolhost.session.store": "files"});
            assert!(
                summed(
                    &receiver,
                    "toolhost.session.append.duration",
                    &with,
                    "count"
                ) >= 4.0
            );
        }
    }
}

/// `toolhost call todo_write` with `--otlp-endpoint`, on `store`, with `extra` options and `env`.
fn traced_call(receiver: &Receiver, store: Option<&str>, extra: &[&str], env: &[(&str, &str)]) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolhost"));
    command
        .args([
            "call",
            "todo_write",
            r#"{"todos":[{"content":"Rotate the key","status":"pending"}]}"#,
        ])
        .args(["--otlp-endpoint", &receiver.url])
        .args(extra)
        .env_remove("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
        .envs(env.iter().copied());
    match store {
        Some(url) => {
            command.args([
                "--store",
                url,
                "--session",
                &format!("otel-{}", std::process::id()),
            ]);
        }
        None => {
            let session = scratch().join(format!("otel-call-{}.jsonl", extra.len() + env.len()));
            let _ = std::fs::remove_file(&session);
            command.arg("--session").arg(session);
        }
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_call_s_arguments_and_result_are_traced_only_when_asked_and_each_store_is_named() {
    let pg = test_support::pg_url();
    for (store, name) in [(None, "files"), (Some(pg.as_str()), "postgres")] {
        // Options, environment, and whether the content is recorded.
        type Way<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
        let ways: [Way; 4] = [
            (&[], &[], false),
            (&["--otlp-content"], &[], true),
            (
                &[],
                &[("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")],
                true,
            ),
            (
                &[],
                &[(
                    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                    "false",
                )],
                false,
            ),
        ];
        for (extra, env, content) in ways {
            let receiver = Receiver::start(&format!("content-{name}-{}", extra.len() + env.len()));
            traced_call(&receiver, store, extra, env);
            let spans = receiver.spans();
            let call = the_span(&spans, "execute_tool todo_write", None);
            let attributes = &call["attributes"];
            let case = format!("{name} {extra:?} {env:?}");
            if content {
                assert_eq!(
                    attributes["gen_ai.tool.call.arguments"],
                    r#"{"todos":[{"content":"Rotate the key","status":"pending"}]}"#,
                    "{case}"
                );
                assert_eq!(
                    attributes["gen_ai.tool.call.result"],
                    "Updated todo list: 1 pending, 0 in progress, 0 completed",
                    "{case}"
                );
            } else {
                let everything = serde_json::to_string(&receiver.records()).unwrap();
                assert!(!everything.contains("Rotate the key"), "{case}");
                assert!(
                    attributes.get("gen_ai.tool.call.result").is_none(),
                    "{case}"
                );
            }
            let append = the_span(&spans, "session.append", None);
            assert!(is_child_of(append, call), "{case}");
            assert_eq!(
                append["attributes"]["toolhost.session.store"], name,
                "{case}"
            );
            let with = json!({"toolhost.session.store": name});
            assert_eq!(
                summed(
                    &receiver,
                    "toolhost.session.append.duration",
                    &with,
                    "count"
                ),
                1.0,
                "{case}"
            );
        }
    }
}

#[test]
fn an_mcp_call_over_http_joins_the_caller_s_trace_from_its_meta_or_its_headers() {
    let receiver = Receiver::start("http-server");
    let dir = scratch().join("otel-http-sessions");
    let server = http::HttpServer::start(&[
        "--otlp-endpoint",
        &receiver.url,
        "--session-dir",
        dir.to_str().unwrap(),
    ]);
    let agent_receiver = Receiver::start("http-agent");
    let run = run(
        "traced_http",
        "anthropic",
        false,
        &[
            "--otlp-endpoint",
            &agent_receiver.url,
            "--mcp",
            &server.url,
            "--mcp-prefix",
            "remote_",
        ],
    );
    run.succeeded("Done.");

    // A stateless-era call with its context in its HTTP headers only.
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let mut headers = http::stateless_headers("otel-headers", "todo_write");
    headers.push(("traceparent".into(), format!("00-{trace}-{parent}-01")));
    headers.push(("tracestate".into(), "vendor=opaque".into()));
    let reply = http::post(
        server.addr,
        &headers,
        &http::call_body(7, r#"{"todos":[{"content":"a","status":"pending"}]}"#),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    // One whose `_meta` names another trace than its headers: `_meta` wins.
    let meta_trace = "0af7651916cd43dd8448eb211c80319c";
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"todo_write","arguments":{{"todos":[]}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}},"traceparent":"00-{meta_trace}-b7ad6b7169203331-01"}}}}}}"#,
        http::STATELESS
    );
    let reply = http::post(server.addr, &headers, &body);
    assert_eq!(reply.status, 200, "{reply:?}");
    // Stopped, it sends what it has.
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");

    let client_spans = agent_receiver.spans();
    let client = the_span(
        &client_spans,
        "tools/call todo_write",
        Some("SPAN_KIND_CLIENT"),
    );
    let served = receiver.spans();
    let servers = spans_named(&served, "tools/call todo_write", Some("SPAN_KIND_SERVER"));
    assert_eq!(servers.len(), 3, "{served:#?}");
    for span in &servers {
        assert_eq!(span["attributes"]["network.transport"], "tcp");
        let calls: Vec<&Value> = served
            .iter()
            .filter(|call| call["name"] == "execute_tool todo_write" && is_child_of(call, span))
            .collect();
        assert_eq!(calls.len(), 1, "{span}");
    }
    assert!(
        servers.iter().any(|span| is_child_of(span, client)),
        "the agent's call is not the parent: {client} {servers:#?}"
    );
    assert!(
        servers
            .iter()
            .any(|span| span["trace_id"] == trace && span["parent_span_id"] == parent),
        "{servers:#?}"
    );
    assert!(
        servers
            .iter()
            .any(|span| span["trace_id"] == meta_trace
                && span["parent_span_id"] == "b7ad6b7169203331"),
        "{servers:#?}"
    );
}

#[test]
fn the_python_sdk_s_call_with_a_traceparent_is_served_in_the_caller_s_trace_on_stdio_and_http() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otel/client.py");
    let trace = "5b8efff798038103d269b633813fc60c";
    let parent = "eee19b7ec3c1b174";
    let traceparent = format!("00-{trace}-{parent}-01");
    for transport in ["stdio", "http"] {
        let receiver = Receiver::start(&format!("python-{transport}"));
        let mut client = Command::new(python());
        client.arg(&script).args([transport, &traceparent]);
        let server = match transport {
            "stdio" => {
                let session = scratch().join("python-traced.jsonl");
                let _ = std::fs::remove_file(&session);
                client
                    .arg(env!("CARGO_BIN_EXE_toolhost"))
                    .args(["mcp", "--otlp-endpoint", &receiver.url, "--session"])
                    .arg(&session);
                None
            }
            _ => {
                let dir = scratch().join("python-traced-sessions");
                let server = http::HttpServer::start(&[
                    "--otlp-endpoint",
                    &receiver.url,
                    "--session-dir",
                    dir.to_str().unwrap(),
                ]);
                client.arg(&server.url);
                Some(server)
            }
        };
        let output = client.output().unwrap();
        assert!(
            output.status.success(),
            "{transport}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "Updated todo list: 0 pending, 1 in progress, 0 completed\n"
        );
        if let Some(server) = server {
            let (status, stderr) = server.stop();
            assert!(status.success(), "{stderr}");
        }
        let spans = receiver.spans();
        let served = the_span(&spans, "tools/call todo_write", Some("SPAN_KIND_SERVER"));
        assert_eq!(served["trace_id"], trace, "{transport}: {spans:#?}");
        assert_eq!(served["parent_span_id"], parent, "{transport}");
        let call = the_span(&spans, "execute_tool todo_write", None);
        assert!(is_child_of(call, served), "{transport}: {spans:#?}");
    }
}

#[test]
fn a_collector_that_is_down_or_never_answers_costs_the_call_nothing_and_the_exit_a_bounded_wait() {
    // One that refuses connections, and one that takes them and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    for endpoint in [
        format!("http://{refused}"),
        format!("http://{}", silent.local_addr().unwrap()),
    ] {
        let session = scratch().join("collector-down.jsonl");
        let _ = std::fs::remove_file(&session);
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args([
                "call",
                "todo_write",
                r#"{"todos":[{"content":"a","status":"pending"}]}"#,
            ])
            .args(["--otlp-endpoint", &endpoint, "--session"])
            .arg(&session)
            .env("OTEL_EXPORTER_OTLP_TIMEOUT", "1000")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A liveness bound, not a speed one: without the timeout it would wait forever.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "{endpoint}: the exit waits on the collector"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{endpoint}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "Updated todo list: 1 pending, 0 in progress, 0 completed\n"
        );
        // The call was kept whatever became of its trace.
        assert_eq!(list_of(&session)[0]["content"], "a");
    }
    drop(silent);
}

#[test]
fn a_rule_or_a_list_that_names_no_tool_is_refused_naming_the_tools_there_are() {
    let log = scratch().join("mcp-rules.log");
    let server = mcp_stdio(&log);
    let run = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["agent", "--provider", "openai", "--model", "m"])
            .args(["--prompt", "go", "--base-url", "http://127.0.0.1:9/v1"])
            .args(["--mcp", &server, "--mcp-prefix", "py_"])
            .args(extra)
            .env("OPENAI_API_KEY", "sk-test")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    for (extra, expected) in [
        (
            &["--approve", "py_wype=ask"][..],
            "--approve py_wype=ask: there is no tool \"py_wype\"; the tools are: todo_write, \
             py_plan, py_add,",
        ),
        (
            &["--max-result-tokens", "nosuch=100"][..],
            "--max-result-tokens nosuch=100: there is no tool \"nosuch\"; the tools are: \
             todo_write, read_result, py_plan,",
        ),
        (
            &["--mcp-deny", "count,wype"][..],
            "has no tool named wype, which its deny list names; its tools are: plan, add, chart, \
             count, wipe,",
        ),
    ] {
        let (code, stderr) = run(extra);
        assert_eq!(code, Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
    }
    // An allow list may name a tool the server adds later: each such name is said.
    let (_, stderr) = run(&["--mcp-allow", "count,wype"]);
    assert!(
        stderr.contains(
            "the tool `wype` of the MCP server `python-tools` is not offered: the server has no \
             tool of that name (yet), which its allow list names; its tools are: plan, add,"
        ),
        "{stderr}"
    );
    assert!(arrived(&log).is_empty(), "no call was made");
}

/// A P-256 private key made for these tests (`openssl genpkey -algorithm EC`).
const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLpTkP+Cj4/JZtUEt
FxD3fkX3N2kLsn24AyZlhIf4z9WhRANCAAQFOlVhs+dUX2e+Cc2rgIAZpgJulq+x
700Q8iHI74hcyq7k1BabRNYNiBWZn2iopaM/zc/6VzjvG4TBf8kR4r45
-----END PRIVATE KEY-----
";

#[test]
fn the_ways_to_authorize_with_no_browser_are_checked_as_they_are_given() {
    let dir = scratch().join("grants");
    std::fs::create_dir_all(&dir).unwrap();
    let key = dir.join("client.pem");
    std::fs::write(&key, TEST_KEY).unwrap();
    let junk = dir.join("junk.pem");
    std::fs::write(&junk, "not a key").unwrap();
    let run = |extra: &[String]| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args(["agent", "--provider", "openai", "--model", "m"])
            .args(["--prompt", "go", "--base-url", "http://127.0.0.1:9/v1"])
            .args(["--mcp", "http://127.0.0.1:9/mcp"])
            .args(extra)
            .env("OPENAI_API_KEY", "sk-test")
            .env("REPORTS_SECRET", "s3cret")
            .env_remove("NO_SUCH_SECRET")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let given = |option: &str, value: &str| vec![option.to_owned(), value.to_owned()];
    let refused = [
        (
            given("--mcp", "http://alice:s3cret@127.0.0.1:9/mcp"),
            "carries credentials (`user:password@`): give a token in the environment".to_owned(),
        ),
        (
            given("--mcp-client-secret-env", "reports"),
            "--mcp-client-secret-env takes ID=VALUE, not `reports`".to_owned(),
        ),
        (
            given("--mcp-client-secret-env", "reports=NO_SUCH_SECRET"),
            "the environment variable NO_SUCH_SECRET is not set".to_owned(),
        ),
        (
            given("--mcp-client-key", "=x"),
            "--mcp-client-key takes ID=VALUE, not `=x`".to_owned(),
        ),
        (
            given(
                "--mcp-client-key",
                &format!("c={}", dir.join("absent.pem").display()),
            ),
            format!("--mcp-client-key: {}: ", dir.join("absent.pem").display()),
        ),
        (
            given("--mcp-client-key", &format!("c={}", junk.display())),
            format!(
                "--mcp-client-key: {} holds no private key that signs ES256, ES384, RS256 or \
                 EdDSA",
                junk.display()
            ),
        ),
        (
            [
                given("--mcp-oauth", "--mcp-workload-token"),
                vec!["w=/var/run/token".to_owned()],
            ]
            .concat(),
            "--mcp-oauth and --mcp-workload-token are two ways to authorize to the --mcp server \
             http://127.0.0.1:9/mcp: give one"
                .to_owned(),
        ),
        (
            [
                given("--mcp-client-secret-env", "a=REPORTS_SECRET"),
                given("--mcp-client-secret-env", "b=REPORTS_SECRET"),
            ]
            .concat(),
            "--mcp-client-secret-env is given twice for the --mcp server".to_owned(),
        ),
    ];
    for (extra, expected) in refused {
        let (code, stderr) = run(&extra);
        assert_eq!(code, Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(&expected), "{extra:?}: {stderr}");
    }
    // Taken as given, each goes on to reach the server (here, none: the command stops there).
    for extra in [
        given("--mcp-client-secret-env", "reports=REPORTS_SECRET"),
        given("--mcp-client-key", &format!("c={}", key.display())),
        given("--mcp-workload-token", "w=/var/run/token"),
    ] {
        let (code, stderr) = run(&extra);
        assert_eq!(code, Some(3), "{extra:?}: {stderr}");
        assert!(
            stderr.contains("the MCP server http://127.0.0.1:9/mcp did not start MCP"),
            "{extra:?}: {stderr}"
        );
    }
}

#[test]
fn oauth_is_for_an_http_server_and_applies_to_the_mcp_before_it() {
    let usage = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_toolhost"))
            .args([
                "agent",
                "--provider",
                "openai",
                "--model",
                "m",
                "--prompt",
                "go",
            ])
            .args(["--base-url", "http://127.0.0.1:9/v1"])
            .args(extra)
            .env("OPENAI_API_KEY", "sk-test")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = usage(&["--mcp", "python3 server.py", "--mcp-oauth"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("OAuth is for an HTTP server"), "{stderr}");
    let (code, stderr) = usage(&["--mcp-oauth", "--mcp", "http://127.0.0.1:9/mcp"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--mcp-oauth applies to the --mcp before it"),
        "{stderr}"
    );
}

// Deferred tools: 200 tools of three MCP servers (tests/agent/many_tools.py), deferred as a
// server past 20 tools is by default.

/// `--mcp` for the many-tools server of `set`, logging to `log`.
fn many_tools(set: &str, log: &Path) -> String {
    format!(
        "{} {} {set} {}",
        python().display(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/agent/many_tools.py")
            .display(),
        log.display()
    )
}

#[test]
fn two_hundred_deferred_tools_wait_for_this_host_s_search_then_are_called_as_any_other() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let log = scratch().join(format!("deferred-{provider}-{}.log", mode(stream)));
            let _ = std::fs::remove_file(&log);
            let servers: Vec<(String, String)> = ["crm", "ops", "docs"]
                .iter()
                .map(|set| (many_tools(set, &log), format!("{set}_")))
                .collect();
            let mut extra = vec!["--tool-search", "framework"];
            for (server, prefix) in &servers {
                extra.extend(["--mcp", server.as_str(), "--mcp-prefix", prefix.as_str()]);
            }
            let run = run("deferred", provider, stream, &extra);
            run.succeeded("Sunny.");
            assert_eq!(run.requests.len(), 3, "{}", run.stderr());
            let theirs = |name: &String| {
                ["crm_", "ops_", "docs_"]
                    .iter()
                    .any(|p| name.starts_with(p))
            };
            // The first request: the host's own tools and the search, none of the 200.
            let first = offered(provider, run.body(0));
            assert!(first.iter().any(|name| name == "todo_write"), "{first:?}");
            assert!(first.iter().any(|name| name == "search_tools"), "{first:?}");
            assert!(!first.iter().any(theirs), "{provider}: {first:?}");
            // The search's answer, the refusal of a tool not loaded, and from then on the
            // found tool among the tools.
            let (_, results) = calls_and_results(provider, run.body(1));
            assert_eq!(
                results[0].text,
                "Loaded 1 tool; from your next turn it is among your tools:\n\
                 - ops_weather_forecast: Forecasts the weather of a city for the coming days."
            );
            assert!(!results[0].is_error);
            assert_eq!(
                results[1].text,
                "Error: docs_create_page is not loaded: search for it with search_tools first, \
                 then call it"
            );
            assert!(results[1].is_error);
            let second = offered(provider, run.body(1));
            let loaded: Vec<&String> = second.iter().filter(|name| theirs(name)).collect();
            assert_eq!(loaded, ["ops_weather_forecast"], "{provider}");
            assert_eq!(second.len(), first.len() + 1);
            let (_, results) = calls_and_results(provider, run.body(2));
            assert_eq!(results[2].text, "Sunny in Paris for 3 days");
            assert_eq!(
                arrived(&log),
                [(
                    "weather_forecast".to_owned(),
                    json!({"city": "Paris", "days": 3})
                )]
            );
            // The session says what was loaded when; the next prompt in it offers the same set.
            let events = events_of(&run.session, "agent/tools_loaded");
            assert_eq!(events.len(), 1);
            assert_eq!(
                events[0],
                json!({"query": "weather forecast for a city", "tools": ["ops_weather_forecast"]})
            );
            let again = run_on(
                "deferred_again",
                provider,
                stream,
                &extra,
                &run.session,
                &["--prompt", "And tomorrow?"],
            );
            again.succeeded("Still sunny.");
            assert_eq!(offered(provider, again.body(0)), second, "{provider}");
        }
    }
}

#[test]
fn where_the_provider_searches_deferred_tools_go_with_defer_loading_and_its_finds_are_loaded() {
    for provider in ["anthropic", "openai-responses"] {
        for stream in [false, true] {
            let log = scratch().join(format!("native-{provider}-{}.log", mode(stream)));
            let _ = std::fs::remove_file(&log);
            let servers: Vec<(String, String)> = ["crm", "ops", "docs"]
                .iter()
                .map(|set| (many_tools(set, &log), format!("{set}_")))
                .collect();
            let mut extra = Vec::new();
            for (server, prefix) in &servers {
                extra.extend(["--mcp", server.as_str(), "--mcp-prefix", prefix.as_str()]);
            }
            let run = run("deferred_native", provider, stream, &extra);
            run.succeeded("Sunny.");
            assert_eq!(run.requests.len(), 2, "{}", run.stderr());
            // Every tool goes, the 200 marked deferred (to OpenAI in a namespace per server),
            // and the provider's search beside them.
            let tools = run.body(0)["tools"].as_array().unwrap();
            let groups: Vec<(&str, &str, usize)> = tools
                .iter()
                .filter(|tool| tool["type"] == "namespace")
                .map(|group| {
                    (
                        group["name"].as_str().unwrap(),
                        group["description"].as_str().unwrap(),
                        group["tools"].as_array().unwrap().len(),
                    )
                })
                .collect();
            match provider {
                "anthropic" => assert!(groups.is_empty(), "{groups:?}"),
                _ => assert_eq!(
                    groups,
                    [
                        ("crm", "The tools of the MCP server `crm-tools`", 72),
                        ("ops", "The tools of the MCP server `ops-tools`", 64),
                        ("docs", "The tools of the MCP server `docs-tools`", 64)
                    ]
                ),
            }
            let deferred: Vec<&Value> = tools
                .iter()
                .flat_map(|tool| match tool["tools"].as_array() {
                    Some(grouped) => grouped.iter().collect(),
                    None => vec![tool],
                })
                .filter(|tool| tool["defer_loading"] == json!(true))
                .collect();
            assert_eq!(deferred.len(), 200, "{provider}");
            assert!(deferred.iter().all(|tool| {
                ["crm_", "ops_", "docs_"]
                    .iter()
                    .any(|p| tool["name"].as_str().unwrap().starts_with(p))
            }));
            let todo = tools
                .iter()
                .find(|tool| tool["name"] == "todo_write")
                .unwrap();
            assert!(todo.get("defer_loading").is_none(), "{todo}");
            let search = match provider {
                "anthropic" => {
                    json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
                }
                _ => json!({"type": "tool_search"}),
            };
            assert!(tools.contains(&search), "{provider}: {search}");
            assert!(!tools.iter().any(|tool| tool["name"] == "search_tools"));
            // The provider's search went back with the conversation (its SDK took it), the
            // found tool's call ran through its server, and the session says what was loaded.
            let (_, results) = calls_and_results(provider, run.body(1));
            assert_eq!(results[0].text, "Sunny in Paris for 3 days");
            let echoed = serde_json::to_string(messages(provider, run.body(1))).unwrap();
            let kinds: &[&str] = match provider {
                "anthropic" => &["server_tool_use", "tool_search_tool_result"],
                _ => &["tool_search_call", "tool_search_output"],
            };
            for kind in kinds {
                assert!(
                    echoed.contains(&format!("\"type\":\"{kind}\"")),
                    "{kind}: {echoed}"
                );
            }
            assert_eq!(
                arrived(&log),
                [(
                    "weather_forecast".to_owned(),
                    json!({"city": "Paris", "days": 3})
                )]
            );
            assert_eq!(
                events_of(&run.session, "agent/tools_loaded"),
                [json!({"query": "weather forecast", "tools": ["ops_weather_forecast"]})]
            );
        }
    }
}

#[test]
fn a_search_s_bad_arguments_are_refused_as_any_call_s_and_a_search_may_find_nothing() {
    for provider in PROVIDERS {
        for stream in [false, true] {
            let log = scratch().join(format!("hostile-{provider}-{}.log", mode(stream)));
            let server = many_tools("ops", &log);
            let extra = [
                "--tool-search",
                "framework",
                "--mcp",
                server.as_str(),
                "--mcp-prefix",
                "ops_",
            ];
            let run = run("deferred_hostile", provider, stream, &extra);
            run.succeeded("Nothing.");
            let (_, results) = calls_and_results(provider, run.body(1));
            let texts = texts_of(&results);
            assert_eq!(
                texts,
                [
                    (
                        "Error: invalid arguments: query: expected a string of at least 1 \
                         characters, got a string of 0 characters",
                        true
                    ),
                    (
                        "Error: invalid arguments: limit: expected an integer from 1 to 10, \
                         got 11",
                        true
                    ),
                    ("Error: invalid arguments: missing field \"query\"", true),
                    (
                        "Error: invalid arguments: unknown field \"extra\", expected one of \
                         \"query\", \"limit\"",
                        true
                    ),
                    (
                        "No tool matches \"zebra xylophone\": search again with other words.",
                        false
                    ),
                    (
                        "Error: unknown tool \"nowhere_tool\"; available tools: todo_write; \
                         more are found with search_tools",
                        true
                    ),
                ],
                "{provider}"
            );
            assert!(events_of(&run.session, "agent/tools_loaded").is_empty());
            assert!(arrived(&log).is_empty());
        }
    }
}

#[test]
fn a_provider_s_search_that_names_a_tool_this_host_lacks_loads_only_what_it_has() {
    for provider in ["anthropic", "openai-responses"] {
        let log = scratch().join(format!("ghost-{provider}.log"));
        let server = many_tools("ops", &log);
        let extra = ["--mcp", server.as_str(), "--mcp-prefix", "ops_"];
        let run = run("deferred_native_ghost", provider, false, &extra);
        run.succeeded("Gone.");
        let (_, results) = calls_and_results(provider, run.body(1));
        // Only the tools offered are named: those waiting for a search are not.
        assert_eq!(
            results[0].text,
            "Error: unknown tool \"ghost_tool\"; available tools: todo_write, \
             ops_weather_forecast",
            "{provider}"
        );
        assert!(results[0].is_error);
        assert_eq!(
            events_of(&run.session, "agent/tools_loaded"),
            [json!({"query": "weather", "tools": ["ops_weather_forecast"]})]
        );
        assert!(arrived(&log).is_empty());
    }
}

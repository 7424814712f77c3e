//! `toolhost` as a person or a script runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn toolhost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .output()
        .expect("toolhost runs")
}

fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).unwrap()
}

#[test]
fn schema_prints_every_definition_as_an_array() {
    let output = toolhost(&["schema"]);
    assert!(output.status.success());
    let all: Value = serde_json::from_str(stdout(&output)).unwrap();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["name"], "todo_write");
    assert_eq!(all[0]["description"], tool_todo::DESCRIPTION);
    let keys: Vec<&str> = all[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["name", "description", "input_schema"]);
}

#[test]
fn schema_with_a_tool_prints_one_object() {
    let output = toolhost(&["schema", "todo_write"]);
    assert!(output.status.success());
    let one: Value = serde_json::from_str(stdout(&output)).unwrap();
    assert_eq!(one["input_schema"]["required"], json!(["todos"]));
}

#[test]
fn schema_of_an_unknown_tool_is_a_usage_error() {
    let output = toolhost(&["schema", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "toolhost: unknown tool \"nope\"; available tools: todo_write\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn call_prints_the_exact_text_and_a_newline() {
    let args = r#"{"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "completed"}]}"#;
    let output = toolhost(&["call", "todo_write", args]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "Updated todo list: 1 pending, 0 in progress, 1 completed\n"
    );
}

#[test]
fn a_tool_error_exits_1() {
    let args = r#"{"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}"#;
    let output = toolhost(&["call", "todo_write", args]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Error: invalid todos: at most one task may be in_progress, got 2\n"
    );
}

#[test]
fn no_agent_makes_the_call_without_an_owning_session() {
    let output = toolhost(&["call", "todo_write", r#"{"todos": []}"#, "--no-agent"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Error: todo_write requires an owning agent session\n"
    );
}

#[test]
fn unknown_tools_and_malformed_json_are_tool_errors() {
    // An unknown tool is input the command cannot take, as it is for `schema`: exit status 2,
    // with the text a model would read.
    let output = toolhost(&["call", "todo_writ", "{}"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stdout(&output),
        "Error: unknown tool \"todo_writ\"; available tools: todo_write\n"
    );
    let output = toolhost(&["call", "todo_write", "{"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Error: invalid arguments: malformed JSON: EOF while parsing an object at line 1 column 1\n"
    );
}

#[test]
fn args_dash_reads_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["call", "todo_write", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"{\"todos\": [\n  {\"content\": \"from stdin\", \"status\": \"in_progress\"}\n]}\n",
        )
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "Updated todo list: 0 pending, 1 in progress, 0 completed\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(toolhost(&["call", "todo_write"]).status.code(), Some(2));
    assert_eq!(toolhost(&["bogus"]).status.code(), Some(2));
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolhost-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn call_with_a_session_file_persists_and_replay_prints_the_current_list() {
    let dir = scratch("persist");
    let file = dir.join("agent.jsonl");
    let file = file.to_str().unwrap();
    let first = r#"{"todos": [{"content": "Plan", "status": "in_progress"}]}"#;
    let second = r#"{"todos": [{"content": "Plan", "status": "completed"}, {"content": "Build \u001b[2J", "status": "in_progress"}]}"#;
    for args in [first, second] {
        let output = toolhost(&["call", "todo_write", args, "--session", file]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // A rejected call changes nothing.
    let output = toolhost(&[
        "call",
        "todo_write",
        r#"{"todos": [{"content": "", "status": "pending"}]}"#,
        "--session",
        file,
    ]);
    assert_eq!(output.status.code(), Some(1));

    let output = toolhost(&["replay", file]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "Todos: 1/2 done\n  ✓ Plan\n  ▶ Build \\u{1b}[2J\n"
    );

    let output = toolhost(&["replay", file, "--format", "json"]);
    assert_eq!(
        stdout(&output),
        "[{\"content\":\"Plan\",\"status\":\"completed\"},{\"content\":\"Build \\u001b[2J\",\"status\":\"in_progress\"}]\n"
    );

    let output = toolhost(&["replay", file, "--events"]);
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["seq"], 2);
    assert_eq!(events[1]["kind"], "todo/write");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_of_a_session_without_a_list() {
    let dir = scratch("empty");
    let file = dir.join("s.jsonl");
    std::fs::write(&file, "{\"format\":\"tool-session\",\"version\":1}\n").unwrap();
    let file = file.to_str().unwrap();
    assert_eq!(
        stdout(&toolhost(&["replay", file, "--format", "json"])),
        "null\n"
    );
    assert_eq!(stdout(&toolhost(&["replay", file])), "(no todo list)\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_warns_of_a_torn_tail_and_fails_on_earlier_damage() {
    let dir = scratch("torn");
    let file = dir.join("s.jsonl");
    let path = file.to_str().unwrap();
    toolhost(&[
        "call",
        "todo_write",
        r#"{"todos": [{"content": "a", "status": "pending"}]}"#,
        "--session",
        path,
    ]);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"{\"seq\":2,\"kind\":\"todo/wr");
    std::fs::write(&file, &bytes).unwrap();

    let output = toolhost(&["replay", path]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "Todos: 0/1 done\n  ○ a\n");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "toolhost: warning: session log {path}: line 3 is torn (24 bytes at offset {}, from an interrupted append); ignored it\n",
            bytes.len() - 24
        )
    );

    // Damage before the last line.
    let text = String::from_utf8(bytes)
        .unwrap()
        .replacen("\"seq\":1", "\"seq\":", 1)
        + "\n";
    std::fs::write(&file, text).unwrap();
    let output = toolhost(&["replay", path]);
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!(
            "toolhost: session log {path}: line 2: not an event"
        )),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn call_on_a_session_another_process_writes_is_refused_naming_the_file() {
    use tool_runtime::session::{Durability, JsonlLog, OpenMode};
    let dir = scratch("locked");
    let file = dir.join("s.jsonl");
    let _writer = JsonlLog::open(&file, OpenMode::Write, Durability::Fsync).unwrap();
    let path = file.to_str().unwrap();
    let output = toolhost(&["call", "todo_write", r#"{"todos": []}"#, "--session", path]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("toolhost: session log {path} is open for writing in another process\n")
    );
    // Reading it is allowed.
    assert_eq!(toolhost(&["replay", path]).status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn schema_prints_each_dialect() {
    use tool_runtime::{Dialect, Tool};
    for dialect in Dialect::ALL {
        let output = toolhost(&["schema", "todo_write", "--dialect", dialect.name()]);
        assert!(output.status.success());
        let printed: Value = serde_json::from_str(stdout(&output)).unwrap();
        assert_eq!(
            &printed,
            tool_todo::TodoWrite.definition().render(dialect).unwrap(),
            "{dialect}"
        );

        let output = toolhost(&["schema", "--dialect", dialect.name()]);
        let all: Value = serde_json::from_str(stdout(&output)).unwrap();
        assert_eq!(all, json!([printed]));
    }
    let output = toolhost(&["schema", "--dialect", "cohere"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(
        "unknown dialect `cohere`; expected one of neutral, openai, openai-strict, openai-responses, anthropic, gemini, mcp"
    ));
}

#[test]
fn sizes_account_for_every_byte_beyond_the_verbatim_texts() {
    use tool_runtime::{Dialect, Tool};
    let output = toolhost(&["sizes"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let definition = tool_todo::TodoWrite.definition();
    let verbatim = tool_todo::DESCRIPTION.len()
        + "The COMPLETE task list, replacing any previous list.".len()
        + "What the task is — a short imperative line.".len()
        + "pending (not started) | in_progress (now) | completed (done).".len();
    for dialect in Dialect::ALL {
        let bytes = definition.json(dialect).unwrap().len();
        let row = text
            .lines()
            .find(|line| line.split_whitespace().nth(1) == Some(dialect.name()))
            .unwrap();
        let numbers: Vec<&str> = row.split_whitespace().skip(2).collect();
        assert_eq!(
            numbers[..3],
            [
                bytes.to_string(),
                verbatim.to_string(),
                (bytes - verbatim).to_string()
            ],
            "{row}"
        );
    }
}

#[test]
fn mcp_over_stdio_resumes_a_session_and_answers_bad_input_without_stopping() {
    let dir = scratch("mcp");
    let file = dir.join("agent.jsonl");
    let path = file.to_str().unwrap();
    toolhost(&[
        "call",
        "todo_write",
        r#"{"todos": [{"content": "before", "status": "pending"}]}"#,
        "--session",
        path,
    ]);

    let mut child = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["mcp", "--session", path])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "this is not JSON",
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"todo_write","arguments":{"todos":[{"content":"after","status":"in_progress"}]}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"todo_write","arguments":{"todos":7}}}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    // Give the server the time to answer before the input closes.
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Standard output is the protocol: every line is a JSON-RPC message.
    let mut answers = std::collections::HashMap::new();
    for line in stdout(&output).lines() {
        let message: Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON-RPC: {line}"));
        assert_eq!(message["jsonrpc"], "2.0");
        if let Some(id) = message["id"].as_u64() {
            answers.insert(id, message);
        }
    }
    assert_eq!(answers[&2]["error"]["code"], -32601);
    assert_eq!(answers[&3]["result"]["isError"], false);
    assert_eq!(
        answers[&3]["result"]["content"][0]["text"],
        "Updated todo list: 0 pending, 1 in progress, 0 completed"
    );
    assert_eq!(answers[&4]["result"]["isError"], true);
    assert_eq!(
        answers[&4]["result"]["content"][0]["text"],
        "Error: invalid arguments: todos: expected an array, got 7"
    );

    // The resumed session kept its earlier event and has the new one.
    let output = toolhost(&["replay", path, "--events"]);
    let kinds: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["seq"].clone())
        .collect();
    assert_eq!(kinds, [json!(1), json!(2)]);
    assert_eq!(
        stdout(&toolhost(&["replay", path])),
        "Todos: 0/1 done\n  ▶ after\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_follow_of_a_file_cut_under_it_says_so_and_stops() {
    let dir = std::env::temp_dir().join(format!("follow-cut-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let path = file.to_str().unwrap();
    for _ in 0..3 {
        let output = toolhost(&["call", "todo_write", r#"{"todos": []}"#, "--session", path]);
        assert!(output.status.success());
    }
    let mut follower = Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(["replay", path, "--events", "--follow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It has shown the three events when its first line is out.
    let mut out = std::io::BufReader::new(follower.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(10)
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = follower.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            follower.kill().unwrap();
            panic!("the follower went on after its file was cut");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut follower.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the file was cut to 10 bytes under this reader"),
        "{stderr}"
    );
}

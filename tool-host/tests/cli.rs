//! `toolhost` as a person or a script runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn toolhost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolhost"))
        .args(args)
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
        "toolhost: unknown tool `nope`; available tools: todo_write\n"
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
    let output = toolhost(&["call", "todo_writ", "{}"]);
    assert_eq!(output.status.code(), Some(1));
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

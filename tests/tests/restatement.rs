//! The todo list restated after a compaction, held to `spec/todo_restatement.md` byte for byte.

use serde_json::json;
use tool_runtime::{Agent, Ctx, Exec, Session};
use tool_todo::TodoWrite;

/// The example list and the text the spec gives for it, read from the spec itself.
fn spec_example() -> (serde_json::Value, String) {
    let spec = include_str!("../../spec/todo_restatement.md");
    let example = spec
        .split("Example, for the list `")
        .nth(1)
        .expect("the spec has its example");
    let (list, rest) = example.split_once("`:").expect("the list ends with `:");
    let list: serde_json::Value =
        serde_json::from_str(&list.replace('\n', " ")).expect("the example list is JSON");
    let text = rest
        .split("```\n")
        .nth(1)
        .expect("the example text is in a fence");
    (list, text.strip_suffix('\n').unwrap().to_owned())
}

fn session_with(todos: serde_json::Value) -> Session {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let session = Session::in_memory();
    let exec = Exec::for_agent(Agent::new("a", session.clone()));
    let output = ctx
        .tools
        .call("todo_write", &exec, &json!({ "todos": todos }).to_string())
        .wait();
    assert!(!output.is_error, "{}", output.text);
    session
}

#[test]
fn the_spec_example_is_restated_byte_for_byte() {
    let (list, text) = spec_example();
    assert!(text.starts_with(tool_todo::RESTATEMENT_HEADER));
    assert_eq!(tool_todo::restatement(&session_with(list)).unwrap(), text);
}

#[test]
fn contents_are_json_string_literals_on_their_own_lines() {
    let session = session_with(json!([
        {"content": "Line one\nline \"two\" \\ tab\there", "status": "in_progress"},
        {"content": "Vérifier ✓ \u{1f}", "status": "pending"},
    ]));
    assert_eq!(
        tool_todo::restatement(&session).unwrap(),
        format!(
            "{}\n- [in_progress] \"Line one\\nline \\\"two\\\" \\\\ tab\\there\"\n- [pending] \"Vérifier ✓ \\u001f\"",
            tool_todo::RESTATEMENT_HEADER
        )
    );
}

#[test]
fn nothing_is_restated_without_open_work() {
    assert_eq!(tool_todo::restatement(&Session::in_memory()), None);
    assert_eq!(tool_todo::restatement(&session_with(json!([]))), None);
    let done = session_with(json!([
        {"content": "a", "status": "completed"},
        {"content": "b", "status": "completed"},
    ]));
    assert_eq!(tool_todo::restatement(&done), None);
    // Restating appends nothing.
    let next = done.next_seq();
    let _ = tool_todo::restatement(&done);
    assert_eq!(done.next_seq(), next);
}

#[test]
fn the_latest_list_is_the_one_restated() {
    let session = session_with(json!([{"content": "old", "status": "pending"}]));
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let exec = Exec::for_agent(Agent::new("a", session.clone()));
    let output = ctx
        .tools
        .call(
            "todo_write",
            &exec,
            r#"{"todos": [{"content": "new", "status": "pending"}]}"#,
        )
        .wait();
    assert!(!output.is_error);
    assert_eq!(
        tool_todo::restatement(&session).unwrap(),
        format!("{}\n- [pending] \"new\"", tool_todo::RESTATEMENT_HEADER)
    );
}

//! `todo_write` against `shared/spec/todo_write.md`, byte for byte, row by row.

use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, Exec, Session, Tool, ToolOutput};
use tool_todo::{Todo, TodoStatus, TodoWrite};

/// The spec's description: one line, 673 bytes, no trailing newline.
const SPEC_DESCRIPTION: &str = "Record and update a structured task list for the current work. Send the ENTIRE list every call — it REPLACES the previous list (there are no partial updates, no per-item edits). Use it to plan multi-step work and show progress: add one todo per concrete step before you start. Keep AT MOST ONE todo `in_progress` at a time; while work remains, exactly one active task should be `in_progress`. Mark a todo `completed` the moment it is done (do not batch completions), and allow no `in_progress` item only once all work is complete. Skip the list for trivial single-step tasks. Statuses: `pending` (not started), `in_progress` (being worked on now), `completed` (finished).";

fn spec_schema() -> Value {
    json!({
      "type": "object",
      "properties": {
        "todos": {
          "type": "array",
          "description": "The COMPLETE task list, replacing any previous list.",
          "items": {
            "type": "object",
            "properties": {
              "content": {
                "type": "string",
                "description": "What the task is — a short imperative line."
              },
              "status": {
                "type": "string",
                "enum": ["pending", "in_progress", "completed"],
                "description": "pending (not started) | in_progress (now) | completed (done)."
              }
            },
            "required": ["content", "status"],
            "additionalProperties": false
          }
        }
      },
      "required": ["todos"],
      "additionalProperties": false
    })
}

struct Harness {
    ctx: Ctx,
    agent: Agent,
}

impl Harness {
    fn new() -> Self {
        let mut ctx = Ctx::new();
        ctx.plugin::<TodoWrite>().unwrap();
        Harness {
            ctx,
            agent: Agent::new("agent-1", Session::in_memory()),
        }
    }

    fn call(&self, args: &str) -> ToolOutput {
        let exec = Exec::for_agent(self.agent.clone());
        self.ctx.tools.call("todo_write", &exec, args).wait()
    }

    fn call_json(&self, args: Value) -> ToolOutput {
        self.call(&args.to_string())
    }

    fn events(&self) -> u64 {
        self.agent.session().next_seq() - 1
    }

    fn current(&self) -> Option<Vec<Todo>> {
        tool_todo::current(self.agent.session()).unwrap()
    }
}

fn error(text: &str) -> ToolOutput {
    ToolOutput {
        text: text.to_owned(),
        is_error: true,
        structured: false,
        images: Box::default(),
        attachments: Box::default(),
    }
}

fn success(text: &str) -> ToolOutput {
    ToolOutput {
        text: text.to_owned(),
        is_error: false,
        structured: false,
        images: Box::default(),
        attachments: Box::default(),
    }
}

fn todos(items: &[(&str, &str)]) -> Value {
    let list: Vec<Value> = items
        .iter()
        .map(|(content, status)| json!({"content": content, "status": status}))
        .collect();
    json!({ "todos": list })
}

#[test]
fn name_and_description_are_the_spec_texts() {
    let definition = TodoWrite.definition();
    assert_eq!(definition.name(), "todo_write");
    assert_eq!(definition.description(), SPEC_DESCRIPTION);
    assert_eq!(definition.description().len(), 673);
    assert_eq!(tool_todo::DESCRIPTION, SPEC_DESCRIPTION);
}

/// The project's copy of the spec (`spec/`, taken byte for byte from the shared reference).
const SPEC_DESCRIPTION_FILE: &[u8] = include_bytes!("../../spec/todo_write.description.txt");
const SPEC_CONTRACT: &str = include_str!("../../spec/todo_write.md");

#[test]
fn the_description_is_the_spec_file_byte_for_byte() {
    assert_eq!(SPEC_DESCRIPTION_FILE, tool_todo::DESCRIPTION.as_bytes());
    assert_eq!(SPEC_DESCRIPTION_FILE, SPEC_DESCRIPTION.as_bytes());
}

#[test]
fn the_input_schema_is_the_schema_in_the_spec_file() {
    let block = SPEC_CONTRACT
        .split_once("```json\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("the spec file has a json block");
    let schema: Value = serde_json::from_str(block).unwrap();
    assert_eq!(TodoWrite.definition().input_schema(), &schema);
    assert_eq!(schema, spec_schema());
}

#[test]
fn input_schema_is_the_spec_schema() {
    assert_eq!(TodoWrite.definition().input_schema(), &spec_schema());
}

#[test]
fn success_counts_each_status() {
    let h = Harness::new();
    let out = h.call_json(todos(&[
        ("Read the spec", "completed"),
        ("Write the tool", "in_progress"),
        ("Test it", "pending"),
        ("Ship it", "pending"),
    ]));
    assert_eq!(
        out,
        success("Updated todo list: 2 pending, 1 in progress, 1 completed")
    );
}

#[test]
fn an_empty_list_is_valid_and_clears_the_list() {
    let h = Harness::new();
    h.call_json(todos(&[("a", "pending")]));
    let out = h.call(r#"{"todos": []}"#);
    assert_eq!(
        out,
        success("Updated todo list: 0 pending, 0 in progress, 0 completed")
    );
    assert_eq!(h.current(), Some(vec![]));
}

#[test]
fn no_owning_agent_is_rejected_and_beats_every_other_error() {
    let h = Harness::new();
    let no_agent = Exec::new();
    for args in [
        r#"{"todos": [{"content": "a", "status": "pending"}]}"#,
        r#"{"todos": [{"content": "", "status": "bogus"}]}"#,
        "not json",
    ] {
        let out = h.ctx.tools.call("todo_write", &no_agent, args).wait();
        assert_eq!(
            out,
            error("Error: todo_write requires an owning agent session"),
            "{args}"
        );
    }
}

#[test]
fn empty_or_blank_content_is_rejected() {
    let h = Harness::new();
    for content in ["", " ", "\t\n ", "\u{3000}"] {
        let out = h.call_json(todos(&[("ok", "pending"), (content, "pending")]));
        assert_eq!(
            out,
            error("Error: invalid todo: `content` must be a non-empty string"),
            "{content:?}"
        );
    }
}

#[test]
fn duplicate_content_names_the_first_duplicate_trimmed_as_a_json_string() {
    let h = Harness::new();
    let out = h.call_json(todos(&[
        ("Fix the build", "pending"),
        ("  Fix the build ", "pending"),
    ]));
    assert_eq!(
        out,
        error(r#"Error: invalid todos: duplicate content "Fix the build""#)
    );

    // For x, y, y, x the first item equal to an earlier one is the second y.
    let out = h.call_json(todos(&[
        ("x", "pending"),
        ("y", "pending"),
        ("y", "pending"),
        ("x", "pending"),
    ]));
    assert_eq!(out, error(r#"Error: invalid todos: duplicate content "y""#));
}

#[test]
fn duplicate_content_escapes_quotes_backslashes_and_controls_but_not_unicode() {
    let h = Harness::new();
    let hostile = "say \"hi\" \\ then\nnewline\u{1b}[31m — ü";
    let out = h.call_json(todos(&[(hostile, "pending"), (hostile, "completed")]));
    assert_eq!(
        out,
        error(
            r#"Error: invalid todos: duplicate content "say \"hi\" \\ then\nnewline\u001b[31m — ü""#
        )
    );
    assert!(!out.text.contains('\n'));
}

// Regression: a long duplicate (60 KB, with a host that allows it) was quoted whole.
#[test]
fn a_long_duplicate_is_quoted_cut_as_argument_errors_are() {
    let h = Harness::new();
    let long = "step ".repeat(1_800);
    let out = h.call_json(todos(&[(&long, "pending"), (&long, "completed")]));
    let cut = &long.trim()[..48];
    assert_eq!(
        out,
        error(&format!(
            r#"Error: invalid todos: duplicate content "{cut}…""#
        ))
    );
}

// Content that shows nothing is empty: the checklist could only draw escapes for it.
#[test]
fn content_of_only_invisible_characters_is_empty() {
    let h = Harness::new();
    for content in [
        "\u{200b}",
        "\u{e0041}\u{e0042}",
        " \u{2800} ",
        "\u{ad}\u{3164}",
        "\u{202e}",
        // Combining marks with nothing to combine with.
        "\u{301}",
        " \u{301}\u{308}\u{20dd} ",
    ] {
        let out = h.call_json(todos(&[(content, "pending")]));
        assert_eq!(
            out,
            error("Error: invalid todo: `content` must be a non-empty string"),
            "{content:?}"
        );
    }
    // Visible text with an invisible character is content; the checklist shows the character.
    let out = h.call_json(todos(&[("Deploy to prod\u{e0001}", "pending")]));
    assert!(!out.is_error, "{}", out.text);
    // A mark on a letter is content.
    let out = h.call_json(todos(&[("Cafe\u{301}", "pending")]));
    assert!(!out.is_error, "{}", out.text);
}

#[test]
fn more_than_one_in_progress_is_rejected_with_the_count() {
    let h = Harness::new();
    let out = h.call_json(todos(&[
        ("a", "in_progress"),
        ("b", "in_progress"),
        ("c", "in_progress"),
    ]));
    assert_eq!(
        out,
        error("Error: invalid todos: at most one task may be in_progress, got 3")
    );
}

#[test]
fn errors_win_in_the_spec_order() {
    let h = Harness::new();
    // The argument schema beats the content rules.
    let out = h.call(r#"{"todos": [{"content": "", "status": "done"}]}"#);
    assert_eq!(
        out,
        error(
            r#"Error: invalid arguments: todos[0].status: expected one of "pending", "in_progress", "completed", got "done""#
        )
    );
    // Empty content beats a duplicate that comes earlier in the list.
    let out = h.call_json(todos(&[
        ("a", "pending"),
        ("a", "pending"),
        ("", "pending"),
    ]));
    assert_eq!(
        out,
        error("Error: invalid todo: `content` must be a non-empty string")
    );
    // A duplicate beats too many in_progress.
    let out = h.call_json(todos(&[
        ("a", "in_progress"),
        ("b", "in_progress"),
        ("b", "pending"),
    ]));
    assert_eq!(out, error(r#"Error: invalid todos: duplicate content "b""#));
}

#[test]
fn schema_errors_name_path_expected_and_found() {
    let h = Harness::new();
    let cases = [
        (
            r#"{"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "done"}]}"#,
            r#"Error: invalid arguments: todos[1].status: expected one of "pending", "in_progress", "completed", got "done""#,
        ),
        (
            r#"{"todos": "a, b"}"#,
            r#"Error: invalid arguments: todos: expected an array, got "a, b""#,
        ),
        (
            r#"{"todos": [{"content": 7, "status": "pending"}]}"#,
            "Error: invalid arguments: todos[0].content: expected a string, got 7",
        ),
        (
            r#"{"todos": [{"content": "a"}]}"#,
            r#"Error: invalid arguments: todos[0]: missing field "status""#,
        ),
        (
            r#"{"todos": [{"content": "a", "status": "pending", "priority": "high"}]}"#,
            r#"Error: invalid arguments: todos[0]: unknown field "priority", expected one of "content", "status""#,
        ),
        (
            r#"{"todos": [null]}"#,
            "Error: invalid arguments: todos[0]: expected an object, got null",
        ),
        (
            r#"{}"#,
            r#"Error: invalid arguments: missing field "todos""#,
        ),
        (
            r#"{"todos": [], "session": "other"}"#,
            r#"Error: invalid arguments: unknown field "session", expected "todos""#,
        ),
        (
            r#"[]"#,
            "Error: invalid arguments: expected an object, got an array",
        ),
        (
            r#"{"todos": [}"#,
            "Error: invalid arguments: malformed JSON: expected value at line 1 column 12",
        ),
        (
            "",
            "Error: invalid arguments: malformed JSON: EOF while parsing a value at line 1 column 0",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(h.call(args), error(expected), "{args}");
    }
}

#[test]
fn an_accepted_call_appends_one_event_with_the_list_as_sent() {
    let h = Harness::new();
    let mut subscription = h.agent.session().subscribe();
    let list = todos(&[(" padded ", "pending"), ("ü — ok", "in_progress")]);
    h.call_json(list.clone());
    assert_eq!(h.events(), 1);
    let event = subscription.try_next().unwrap().unwrap();
    assert_eq!(event.kind, "todo/write");
    assert_eq!(event.seq, 1);
    assert_eq!(event.data::<Value>().unwrap(), list);
    assert!(subscription.try_next().unwrap().is_none());
}

#[test]
fn a_rejected_call_appends_nothing() {
    let h = Harness::new();
    h.call_json(todos(&[("keep", "pending")]));
    for args in [
        todos(&[("", "pending")]).to_string(),
        todos(&[("a", "pending"), ("a", "pending")]).to_string(),
        todos(&[("a", "in_progress"), ("b", "in_progress")]).to_string(),
        r#"{"todos": [{"content": "a", "status": "done"}]}"#.to_owned(),
        "{".to_owned(),
    ] {
        assert!(h.call(&args).is_error);
    }
    assert_eq!(h.events(), 1);
    assert_eq!(
        h.current(),
        Some(vec![Todo::new("keep", TodoStatus::Pending)])
    );
}

#[test]
fn current_is_the_latest_write_and_none_before_any() {
    let h = Harness::new();
    assert_eq!(h.current(), None);
    h.call_json(todos(&[("a", "pending"), ("b", "pending")]));
    h.call_json(todos(&[("a", "completed"), ("b", "in_progress")]));
    assert_eq!(
        h.current(),
        Some(vec![
            Todo::new("a", TodoStatus::Completed),
            Todo::new("b", TodoStatus::InProgress)
        ])
    );
}

#[test]
fn lists_belong_to_the_calling_agent_only() {
    let h = Harness::new();
    let other = Agent::new("agent-2", Session::in_memory());
    let exec = Exec::for_agent(other.clone());
    h.ctx
        .tools
        .call(
            "todo_write",
            &exec,
            &todos(&[("theirs", "pending")]).to_string(),
        )
        .wait();
    h.call_json(todos(&[("mine", "pending")]));
    assert_eq!(
        h.current(),
        Some(vec![Todo::new("mine", TodoStatus::Pending)])
    );
    assert_eq!(
        tool_todo::current(other.session()).unwrap(),
        Some(vec![Todo::new("theirs", TodoStatus::Pending)])
    );
}

#[test]
fn the_function_is_callable_directly() {
    let agent = Agent::new("direct", Session::in_memory());
    let text = tool_todo::todo_write(
        agent.clone(),
        None,
        vec![Todo::new("a", TodoStatus::Pending)],
    )
    .unwrap();
    assert_eq!(
        text,
        "Updated todo list: 1 pending, 0 in progress, 0 completed"
    );
    assert_eq!(agent.session().next_seq(), 2);
}

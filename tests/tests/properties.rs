//! Properties of todo_write over generated lists, and the limits on what one call may carry.

use proptest::prelude::*;
use serde_json::{Value, json};
use tool_runtime::session::{Durability, JsonlLog, OpenMode};
use tool_runtime::{Agent, Ctx, Exec, Session, ToolOutput};
use tool_todo::{Todo, TodoLimits, TodoStatus, TodoWrite};

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    ctx
}

fn call(ctx: &Ctx, session: &Session, todos: &[Todo]) -> ToolOutput {
    let exec = Exec::for_agent(Agent::new("p", session.clone()));
    let args = json!({ "todos": todos }).to_string();
    ctx.tools.call("todo_write", &exec, &args).wait()
}

fn status() -> impl Strategy<Value = TodoStatus> {
    prop_oneof![
        Just(TodoStatus::Pending),
        Just(TodoStatus::InProgress),
        Just(TodoStatus::Completed)
    ]
}

/// Contents that are often blank, often equal after trimming, and sometimes hostile.
fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,6}",
        1 => Just(String::new()),
        1 => " {1,3}",
        1 => "[ \t]{0,2}[a-c][ \t]{0,2}",
        1 => "[\\PC\u{1b}\u{202e}\"\\\\]{1,12}",
    ]
}

/// What the spec says a list gets, written from the spec's text: the first violation in its
/// order, or the success summary.
fn spec_says(todos: &[Todo]) -> ToolOutput {
    // Empty in the spec's sense: nothing a person would see, whitespace or characters the
    // checklist can only show as escapes (format and default-ignorable ones, like U+202E).
    let blank = |content: &str| {
        content.chars().all(|c| {
            let one = c.to_string();
            c.is_whitespace() || tool_todo::neutralize(&one) != one
        })
    };
    if todos.iter().any(|t| blank(&t.content)) {
        return ToolOutput::error("invalid todo: `content` must be a non-empty string");
    }
    for (i, todo) in todos.iter().enumerate() {
        if todos[..i]
            .iter()
            .any(|earlier| earlier.content.trim() == todo.content.trim())
        {
            let quoted = serde_json::to_string(todo.content.trim()).unwrap();
            return ToolOutput::error(format!("invalid todos: duplicate content {quoted}"));
        }
    }
    let count = |s| todos.iter().filter(|t| t.status == s).count();
    let in_progress = count(TodoStatus::InProgress);
    if in_progress > 1 {
        return ToolOutput::error(format!(
            "invalid todos: at most one task may be in_progress, got {in_progress}"
        ));
    }
    ToolOutput::success(format!(
        "Updated todo list: {} pending, {in_progress} in progress, {} completed",
        count(TodoStatus::Pending),
        count(TodoStatus::Completed)
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Every list gets the spec's answer; an accepted one is the session's list, and a rejected
    /// one changes nothing. Up to 13 todos: short lists look for duplicates pair by pair, longer
    /// ones with a hash set.
    #[test]
    fn every_list_gets_the_spec_answer(lists in prop::collection::vec(
        prop::collection::vec((content(), status()).prop_map(|(c, s)| Todo::new(c, s)), 0..14), 1..4)
    ) {
        let ctx = ctx();
        let session = Session::in_memory();
        let mut current = None;
        for todos in &lists {
            let out = call(&ctx, &session, todos);
            prop_assert_eq!(&out, &spec_says(todos));
            if !out.is_error {
                current = Some(todos.clone());
            }
            prop_assert_eq!(tool_todo::current(&session).unwrap(), current.clone());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// An accepted list replays to itself from the log file, byte for byte.
    #[test]
    fn an_accepted_list_replays_to_itself(todos in prop::collection::vec(
        ("[\\PC]{1,16}", status()).prop_map(|(c, s)| Todo::new(c, s)), 0..6)
    ) {
        prop_assume!(!spec_says(&todos).is_error);
        let dir = std::env::temp_dir().join(format!("props-{}-{}", std::process::id(), rand_suffix(&todos)));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        {
            let session = Session::open("s", JsonlLog::open(&path, OpenMode::Write, Durability::Flush).unwrap()).unwrap();
            prop_assert!(!call(&ctx(), &session, &todos).is_error);
        }
        let session = Session::open("s", JsonlLog::open(&path, OpenMode::Read, Durability::Flush).unwrap()).unwrap();
        prop_assert_eq!(tool_todo::current(&session).unwrap(), Some(todos.clone()));
        prop_assert_eq!(
            tool_todo::current_json(&session).unwrap().unwrap(),
            serde_json::to_string(&todos).unwrap()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn rand_suffix(todos: &[Todo]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    todos.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn host_limits_on_count_and_content_have_safe_defaults() {
    let defaults = TodoLimits::default();
    assert_eq!(
        (defaults.max_todos, defaults.max_content_chars),
        (1_000, 10_000)
    );
    let ctx = ctx();
    let session = Session::in_memory();
    let many: Vec<Todo> = (0..1_001)
        .map(|i| Todo::new(format!("t{i}"), TodoStatus::Pending))
        .collect();
    assert_eq!(
        call(&ctx, &session, &many),
        ToolOutput::error("invalid todos: at most 1000 todos, got 1001")
    );
    assert!(!call(&ctx, &session, &many[..1_000]).is_error);
    let long = vec![Todo::new("ü".repeat(10_001), TodoStatus::Pending)];
    assert_eq!(
        call(&ctx, &session, &long),
        ToolOutput::error("invalid todo: `content` has 10001 characters, more than 10000")
    );

    // A host's own limits.
    let mut strict = Ctx::new();
    strict.provide(TodoLimits {
        max_todos: 3,
        max_content_chars: 5,
    });
    strict.plugin::<TodoWrite>().unwrap();
    let list = vec![Todo::new("abcdef", TodoStatus::Pending)];
    assert_eq!(
        call(&strict, &session, &list),
        ToolOutput::error("invalid todo: `content` has 6 characters, more than 5")
    );
}

// Regression: the README said nesting "beyond 128" levels is refused, while 128 is.
#[test]
fn the_deepest_nesting_accepted_is_127_levels() {
    let ctx = ctx();
    let exec = Exec::for_agent(Agent::new("p", Session::in_memory()));
    // The arguments' object is one level, each array one more.
    let nested = |levels: usize| {
        let arrays = levels - 1;
        format!(
            r#"{{"todos": {}{}}}"#,
            "[".repeat(arrays),
            "]".repeat(arrays)
        )
    };
    let out = ctx.tools.call("todo_write", &exec, &nested(127)).wait();
    assert!(
        !out.text.contains("recursion limit"),
        "127 levels: {}",
        out.text
    );
    let out = ctx.tools.call("todo_write", &exec, &nested(128)).wait();
    assert!(
        out.text
            .starts_with("Error: invalid arguments: malformed JSON: recursion limit exceeded"),
        "128 levels: {}",
        out.text
    );
}

#[test]
fn deep_nesting_is_refused_without_exhausting_the_stack() {
    let ctx = ctx();
    let exec = Exec::for_agent(Agent::new("p", Session::in_memory()));
    for depth in [200, 100_000] {
        let args = format!(r#"{{"todos": {}{}}}"#, "[".repeat(depth), "]".repeat(depth));
        let out = ctx.tools.call("todo_write", &exec, &args).wait();
        assert!(out.is_error);
        assert!(
            out.text
                .starts_with("Error: invalid arguments: malformed JSON: recursion limit exceeded"),
            "{}",
            out.text
        );
    }
    // Within the limit, deep but wrong arguments get the schema's words.
    let args = format!(r#"{{"todos": [{}{}]}}"#, "[".repeat(50), "]".repeat(50));
    let out = ctx.tools.call("todo_write", &exec, &args).wait();
    let expected: Value =
        json!("Error: invalid arguments: todos[0]: expected an object, got an array");
    assert_eq!(json!(out.text), expected);
}

//! Concurrency classes of a batch: at most `max_parallel` calls at once, results in call order,
//! an exclusive tool's call alone, a serial tool's never beside another of its own. The tools
//! record when each call runs; no test here reads a clock to judge speed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tool_runtime::{Concurrency, Ctx, DynamicTool, Exec, Tool, ToolCall, tool};

/// When each call ran, by its tag, and the most that ran at once.
#[derive(Default)]
struct Log {
    spans: Vec<(String, Instant, Instant)>,
    running: usize,
    most: usize,
}

fn sleeper(name: &str, class: Concurrency, log: &Arc<Mutex<Log>>) -> DynamicTool {
    let log = Arc::clone(log);
    DynamicTool::builder(
        name,
        "Sleeps.",
        json!({"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]}),
    )
    .concurrency(class)
    .handler(move |_, args: Value| {
        let start = Instant::now();
        {
            let mut log = log.lock().unwrap();
            log.running += 1;
            log.most = log.most.max(log.running);
        }
        std::thread::sleep(Duration::from_millis(60));
        let mut log = log.lock().unwrap();
        log.running -= 1;
        let tag = args["tag"].as_str().unwrap().to_owned();
        log.spans.push((tag.clone(), start, Instant::now()));
        tag
    })
    .unwrap()
}

fn calls(list: &[(&str, &str)]) -> Vec<ToolCall> {
    list.iter()
        .map(|(tool, tag)| ToolCall::new(*tool, json!({"tag": tag}).to_string()))
        .collect()
}

fn overlap(a: &(String, Instant, Instant), b: &(String, Instant, Instant)) -> bool {
    a.1 < b.2 && b.1 < a.2
}

#[test]
fn at_most_max_parallel_calls_run_at_once_and_results_keep_call_order() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ctx = Ctx::new();
    ctx.tool(sleeper("nap", Concurrency::Parallel, &log))
        .unwrap();
    ctx.tools.set_max_parallel(4);
    let tags: Vec<String> = (0..10).map(|i| format!("call {i}")).collect();
    let list: Vec<(&str, &str)> = tags.iter().map(|tag| ("nap", tag.as_str())).collect();
    let outputs = ctx.tools.call_batch(&Exec::new(), &calls(&list));
    let texts: Vec<&str> = outputs.iter().map(|out| out.text.as_str()).collect();
    assert_eq!(texts, tags);
    assert_eq!(log.lock().unwrap().most, 4);
}

#[test]
fn an_exclusive_call_runs_alone_and_a_serial_tool_beside_others_but_not_itself() {
    let log = Arc::new(Mutex::new(Log::default()));
    let mut ctx = Ctx::new();
    ctx.tool(sleeper("nap", Concurrency::Parallel, &log))
        .unwrap();
    ctx.tool(sleeper("alone", Concurrency::Exclusive, &log))
        .unwrap();
    ctx.tool(sleeper("list", Concurrency::Serial, &log))
        .unwrap();
    let outputs = ctx.tools.call_batch(
        &Exec::new(),
        &calls(&[
            ("nap", "n1"),
            ("list", "s1"),
            ("list", "s2"),
            ("nap", "n2"),
            ("alone", "x"),
            ("nap", "n3"),
            ("nap", "n4"),
        ]),
    );
    let texts: Vec<&str> = outputs.iter().map(|out| out.text.as_str()).collect();
    assert_eq!(texts, ["n1", "s1", "s2", "n2", "x", "n3", "n4"]);
    let log = log.lock().unwrap();
    let span = |tag: &str| log.spans.iter().find(|span| span.0 == tag).unwrap();
    for other in ["n1", "s1", "s2", "n2", "n3", "n4"] {
        assert!(!overlap(span("x"), span(other)), "x overlaps {other}");
    }
    assert!(
        !overlap(span("s1"), span("s2")),
        "a serial tool overlapped itself"
    );
    assert!(
        overlap(span("s1"), span("n1")) || overlap(span("s2"), span("n2")),
        "a serial call ran beside no other"
    );
    // After the exclusive call, the rest run side by side again.
    assert!(overlap(span("n3"), span("n4")));
}

/// Resets everything.
#[tool(exclusive)]
fn wipe() -> &'static str {
    "wiped"
}

/// Drops a table.
#[tool(needs_approval, destructive)]
fn drop_table(
    /// The table.
    table: String,
) -> String {
    format!("dropped {table}")
}

#[test]
fn a_macro_tool_declares_its_class_and_todo_write_is_serial() {
    assert_eq!(Wipe.definition().concurrency(), Concurrency::Exclusive);
    assert!(DropTable.definition().needs_approval());
    assert!(!Wipe.definition().needs_approval());
    assert_eq!(
        DropTable
            .check_args(r#"{"table": 7}"#)
            .map(|refused| refused.text),
        Some("Error: invalid arguments: table: expected a string, got 7".to_owned())
    );
    assert_eq!(DropTable.check_args(r#"{"table": "t"}"#), None);
    assert_eq!(
        tool_todo::TodoWrite.definition().concurrency(),
        Concurrency::Serial
    );
}

/// Finds the forecast of a city.
#[tool(deferred)]
fn forecast(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Finds the forecast of a city.
#[tool(name = "forecast")]
fn forecast_at_once(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

#[test]
fn a_deferred_tool_says_so_to_its_host_and_nothing_of_it_to_a_model() {
    assert!(Forecast.definition().deferred());
    assert!(!ForecastAtOnce.definition().deferred());
    let deferred = DynamicTool::builder("d", "D.", json!({"type": "object"}))
        .deferred()
        .handler(|_, _| "")
        .unwrap();
    assert!(deferred.definition().deferred());
    for dialect in tool_runtime::Dialect::ALL {
        assert_eq!(
            Forecast.definition().json(dialect).unwrap(),
            ForecastAtOnce.definition().json(dialect).unwrap(),
            "{dialect:?}"
        );
    }
}

//! Calls are cancelled, cut at their deadline, and followed while they run: the host's
//! cancellation and a tool's `timeout` answer stable texts, the tool sees them through `Cancel`,
//! and `Progress` reports reach whoever the host lets hear them.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tool_runtime::{Cancel, Ctx, Exec, Progress, ProgressUpdate, Service, Tool, tool};

/// What the tools saw, for the tests to read.
#[derive(Default)]
struct Seen {
    stopped_early: AtomicBool,
    steps: AtomicU32,
}

/// Sleeps on tokio's timer.
#[tool(allow_undocumented)]
async fn sleeper(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Sleeps, with a deadline of its own.
#[tool(timeout = "100ms", allow_undocumented)]
async fn hasty(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Works in steps on a blocking thread, looking at its cancellation between them.
#[tool(blocking, timeout = "150ms", allow_undocumented)]
fn grind(seen: Service<Seen>, cancel: Cancel, steps: u32) -> String {
    for _ in 0..steps {
        if cancel.is_cancelled() {
            seen.stopped_early.store(true, Ordering::SeqCst);
            return "stopped".into();
        }
        seen.steps.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(10));
    }
    format!("ground {steps} steps")
}

/// Reports its progress as it goes.
#[tool(allow_undocumented)]
async fn walk(progress: Progress, steps: u32) -> String {
    for step in 1..=steps {
        tokio::task::yield_now().await;
        progress.report(step, steps, format!("step {step}"));
    }
    progress.report_without_total(steps + 1, "");
    format!("walked {steps} steps, heard: {}", progress.is_heard())
}

/// Answers at once.
#[tool(allow_undocumented)]
fn quick(word: String) -> String {
    word
}

fn ctx() -> (Ctx, Service<Seen>) {
    let mut ctx = Ctx::new();
    ctx.provide(Seen::default());
    let seen = ctx.service::<Seen>().unwrap();
    ctx.plugin::<Sleeper>()
        .unwrap()
        .plugin::<Hasty>()
        .unwrap()
        .plugin::<Grind>()
        .unwrap()
        .plugin::<Walk>()
        .unwrap()
        .plugin::<Quick>()
        .unwrap();
    (ctx, seen)
}

/// Waits (30 s at most) until the blocking tool has seen its cancellation and stopped.
fn wait_until_stopped(seen: &Seen) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.stopped_early.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the tool never saw its cancellation"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_host_cancels_a_running_call_and_it_answers_that_it_was_cancelled() {
    let (ctx, _) = ctx();
    let cancel = Cancel::new();
    let exec = Exec::new().with_cancel(cancel.clone());
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
    });
    let started = Instant::now();
    let out = ctx.tools.call("sleeper", &exec, r#"{"ms": 60000}"#).wait();
    canceller.join().unwrap();
    assert_eq!(
        (out.text.as_str(), out.is_error),
        ("Error: sleeper was cancelled", true)
    );
    // It answered when cancelled, not when the minute was up.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_call_cancelled_before_it_starts_does_not_run() {
    let (ctx, _) = ctx();
    let cancel = Cancel::new();
    cancel.cancel();
    let exec = Exec::new().with_cancel(cancel);
    let out = ctx.tools.call("quick", &exec, r#"{"word": "hi"}"#).wait();
    assert_eq!(out.text, "Error: quick was cancelled");
    // Nor does a call of an unknown tool pretend otherwise: the name is checked first.
    let out = ctx.tools.call("nope", &exec, "{}").wait();
    assert!(out.text.starts_with("Error: unknown tool"), "{}", out.text);
}

#[test]
fn a_tools_timeout_cuts_the_call_and_says_how_long_it_had() {
    let (ctx, _) = ctx();
    assert_eq!(
        Hasty.definition().timeout(),
        Some(Duration::from_millis(100))
    );
    let out = ctx
        .tools
        .call("hasty", &Exec::new(), r#"{"ms": 60000}"#)
        .wait();
    assert_eq!(out.text, "Error: hasty timed out after 100 ms");
    // Within its deadline it answers as ever.
    let out = ctx.tools.call("hasty", &Exec::new(), r#"{"ms": 1}"#).wait();
    assert_eq!(out.text, "slept 1 ms");
}

#[test]
fn the_hosts_default_timeout_applies_where_a_tool_declares_none() {
    let (mut ctx, _) = ctx();
    ctx.tools.set_default_timeout(Some(Duration::from_secs(2)));
    let out = ctx
        .tools
        .call("sleeper", &Exec::new(), r#"{"ms": 60000}"#)
        .wait();
    assert_eq!(out.text, "Error: sleeper timed out after 2 s");
    // A tool's own deadline wins over the default.
    let out = ctx
        .tools
        .call("hasty", &Exec::new(), r#"{"ms": 60000}"#)
        .wait();
    assert_eq!(out.text, "Error: hasty timed out after 100 ms");
}

#[test]
fn a_blocking_tool_past_its_deadline_is_answered_for_and_sees_its_cancellation() {
    let (ctx, seen) = ctx();
    let out = ctx
        .tools
        .call("grind", &Exec::new(), r#"{"steps": 100000}"#)
        .wait();
    assert_eq!(out.text, "Error: grind timed out after 150 ms");
    // The thread it ran on is not stopped from outside: the tool saw its cancellation and
    // stopped of itself.
    wait_until_stopped(&seen);
    assert!(seen.steps.load(Ordering::SeqCst) < 100000);
}

#[test]
fn the_host_cancelling_a_blocking_tool_cancels_what_it_sees() {
    let (ctx, seen) = ctx();
    let cancel = Cancel::new();
    let exec = Exec::new().with_cancel(cancel.clone());
    let future = ctx.tools.call("grind", &exec, r#"{"steps": 100000}"#);
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        cancel.cancel();
    });
    assert_eq!(future.wait().text, "Error: grind was cancelled");
    canceller.join().unwrap();
    wait_until_stopped(&seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_host_cancels_an_awaited_call() {
    let (ctx, _) = ctx();
    let ctx = Arc::new(ctx);
    let cancel = Cancel::new();
    let exec = Exec::new().with_cancel(cancel.clone());
    let call = {
        let ctx = Arc::clone(&ctx);
        tokio::spawn(async move { ctx.tools.call("sleeper", &exec, r#"{"ms": 60000}"#).await })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    cancel.cancel();
    let out = call.await.unwrap();
    assert_eq!(out.text, "Error: sleeper was cancelled");
}

#[test]
fn a_deadline_on_a_runtime_without_a_timer_is_an_error_not_a_panic() {
    let (ctx, _) = ctx();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let out = runtime.block_on(ctx.tools.call("walk", &Exec::new(), r#"{"steps": 1}"#));
    assert_eq!(out.text, "walked 1 steps, heard: false");
    let out = runtime.block_on(ctx.tools.call("hasty", &Exec::new(), r#"{"ms": 1}"#));
    assert_eq!(
        out.text,
        "Error: hasty has a timeout, and the tokio runtime running it has no timer (build it with `enable_time`)"
    );
}

#[test]
fn progress_reaches_the_hosts_sink_in_order_with_the_call_it_came_from() {
    let (ctx, _) = ctx();
    let heard: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let sink = Arc::clone(&heard);
    let exec = Exec::new()
        .with_call_id("call_7")
        .with_progress(move |update| sink.lock().unwrap().push(update));
    let out = ctx.tools.call("walk", &exec, r#"{"steps": 3}"#).wait();
    assert_eq!(out.text, "walked 3 steps, heard: true");
    let heard = heard.lock().unwrap();
    let seen: Vec<(f64, Option<f64>, Option<&str>)> = heard
        .iter()
        .map(|update| (update.done, update.total, update.message.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (1.0, Some(3.0), Some("step 1")),
            (2.0, Some(3.0), Some("step 2")),
            (3.0, Some(3.0), Some("step 3")),
            (4.0, None, None),
        ]
    );
    assert!(heard.iter().all(|update| update.tool == "walk"));
    assert!(
        heard
            .iter()
            .all(|update| update.call_id.as_deref() == Some("call_7"))
    );
}

//! An async tool that uses tokio (a timer) answers in every call path a host has: awaited in a
//! runtime, waited for in a synchronous host, from `spawn_blocking`, inside a runtime's task, and
//! batched from either kind of host. Nothing answers with a panic's text.

use std::time::Duration;

use tool_runtime::{Agent, Ctx, Exec, Session, ToolCall, tool};

/// Waits on tokio's timer, then answers.
#[tool]
async fn nap(
    agent: Option<Agent>,
    /// How long, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    if let Some(agent) = agent {
        agent.session().append("nap/done", &ms).unwrap();
    }
    format!("slept {ms} ms")
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<Nap>().unwrap();
    ctx
}

#[test]
fn a_synchronous_host_waits_for_a_tokio_tool() {
    let ctx = ctx();
    let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).wait();
    assert_eq!((out.text.as_str(), out.is_error), ("slept 5 ms", false));
}

#[test]
fn a_batch_of_tokio_tools_runs_from_a_synchronous_host_in_order() {
    let ctx = ctx();
    let session = Session::in_memory();
    let calls = [
        ToolCall::new("nap", r#"{"ms": 30}"#),
        ToolCall::new("nap", r#"{"ms": 1}"#),
    ];
    let outputs = ctx
        .tools
        .call_batch(&Exec::for_agent(Agent::new("a", session.clone())), &calls);
    let texts: Vec<&str> = outputs.iter().map(|o| o.text.as_str()).collect();
    assert_eq!(texts, ["slept 30 ms", "slept 1 ms"]);
    // The events are in the message's order, though the second call finished first.
    let kept: Vec<u64> = session
        .events_from(1)
        .unwrap()
        .iter()
        .map(|event| event.data::<u64>().unwrap())
        .collect();
    assert_eq!(kept, [30, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_host_awaits_waits_and_batches() {
    let ctx = std::sync::Arc::new(ctx());
    let exec = Exec::new();
    // Awaited.
    let out = ctx.tools.call("nap", &exec, r#"{"ms": 5}"#).await;
    assert_eq!(out.text, "slept 5 ms");
    // Waited for inside a task of a multi-threaded runtime.
    let out = ctx.tools.call("nap", &exec, r#"{"ms": 5}"#).wait();
    assert_eq!(out.text, "slept 5 ms");
    // From spawn_blocking, as call_batch's docs advise.
    let batch = std::sync::Arc::clone(&ctx);
    let outputs = tokio::task::spawn_blocking(move || {
        batch
            .tools
            .call_batch(&Exec::new(), &[ToolCall::new("nap", r#"{"ms": 5}"#)])
    })
    .await
    .unwrap();
    assert_eq!(outputs[0].text, "slept 5 ms");
    // And straight from the task.
    let outputs = ctx
        .tools
        .call_batch(&exec, &[ToolCall::new("nap", r#"{"ms": 5}"#)]);
    assert_eq!(outputs[0].text, "slept 5 ms");
}

#[tokio::test(flavor = "current_thread")]
async fn a_single_threaded_runtime_waits_awaits_and_batches() {
    let ctx = ctx();
    // Its one thread cannot block on itself: the call runs on a thread of its own.
    let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).wait();
    assert_eq!((out.text.as_str(), out.is_error), ("slept 5 ms", false));
    let out = ctx.tools.call("nap", &Exec::new(), r#"{"ms": 5}"#).await;
    assert_eq!(out.text, "slept 5 ms");
    let outputs = ctx
        .tools
        .call_batch(&Exec::new(), &[ToolCall::new("nap", r#"{"ms": 5}"#)]);
    assert_eq!(outputs[0].text, "slept 5 ms");
}

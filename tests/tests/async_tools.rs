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

/// Where concurrent calls meet: each waits, blocking its thread, until ten have arrived.
#[derive(Default)]
struct Meeting {
    arrived: std::sync::Mutex<usize>,
    all_here: std::sync::Condvar,
}

impl Meeting {
    /// Arrives and waits up to `patience` for the others: whether all ten met.
    fn meet(&self, patience: Duration) -> bool {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.all_here.notify_all();
        let (arrived, _) = self
            .all_here
            .wait_timeout_while(arrived, patience, |arrived| *arrived < 10)
            .unwrap();
        *arrived >= 10
    }
}

/// Meets the other calls, blocking its thread while it waits.
#[tool(blocking)]
fn meet(meeting: tool_runtime::Service<Meeting>, exec: &Exec) -> String {
    let together = meeting.meet(Duration::from_secs(10));
    format!("{} {}", exec.call_id.as_deref().unwrap_or("-"), together)
}

/// The same, not marked blocking: it runs on the thread that calls it.
#[tool]
fn meet_inline(meeting: tool_runtime::Service<Meeting>) -> String {
    meeting.meet(Duration::from_millis(50)).to_string()
}

/// Ten concurrent calls of a blocking tool on a single-threaded async host, as tasks.
async fn ten_calls(tool: &'static str) -> Vec<String> {
    let mut ctx = Ctx::new();
    ctx.provide(Meeting::default());
    ctx.plugin::<Meet>()
        .unwrap()
        .plugin::<MeetInline>()
        .unwrap();
    let ctx = std::sync::Arc::new(ctx);
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let ctx = std::sync::Arc::clone(&ctx);
            tokio::spawn(async move {
                let exec = Exec::new().with_call_id(format!("c{i}"));
                ctx.tools.call(tool, &exec, "{}").await.text
            })
        })
        .collect();
    let mut texts = Vec::new();
    for task in tasks {
        texts.push(task.await.unwrap());
    }
    texts
}

#[tokio::test(flavor = "current_thread")]
async fn blocking_tools_run_off_the_executor_and_meet_each_other() {
    // All ten are in the tool at once: none holds the host's one thread while it blocks.
    let texts = ten_calls("meet").await;
    let expected: Vec<String> = (0..10).map(|i| format!("c{i} true")).collect();
    assert_eq!(texts, expected);
    // Unmarked, each holds the thread and waits alone, one after another: only the tenth finds
    // the others there (this is what `blocking` is for).
    let texts = ten_calls("meet_inline").await;
    assert_eq!(texts[..9], ["false"; 9], "{texts:?}");
}

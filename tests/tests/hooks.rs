//! Policy hooks around every dispatch: order, denial, rewrite (checked again), redaction, async
//! tools, a turn's batch, and plan mode.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_runtime::hook::{self, Before, Hook, HookCall, PlanMode};
use tool_runtime::{Agent, Annotations, Ctx, DynamicTool, Exec, Session, ToolCall, ToolOutput};

fn echo(name: &str, annotations: Annotations) -> DynamicTool {
    DynamicTool::builder(
        name,
        "Echoes.",
        json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}),
    )
    .annotations(annotations)
    .handler(|call, args: Value| format!("{} {}", call.tool(), args))
    .unwrap()
}

/// Records what it saw, in order, under its name.
struct Trace {
    name: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Hook for Trace {
    fn before(&self, call: &HookCall<'_>) -> Before {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} before {}", self.name, call.args()));
        Before::Allow
    }

    fn after(&self, _call: &HookCall<'_>, mut output: ToolOutput) -> ToolOutput {
        self.seen
            .lock()
            .unwrap()
            .push(format!("{} after", self.name));
        output.text.push_str(&format!(" +{}", self.name));
        output
    }
}

#[test]
fn hooks_run_in_order_before_and_in_reverse_after_and_see_rewritten_arguments() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut ctx = Ctx::new();
    ctx.tool(echo("echo", Annotations::new())).unwrap();
    ctx.tools.hook(Trace {
        name: "a",
        seen: Arc::clone(&seen),
    });
    ctx.tools
        .hook(hook::before_call(|_| Before::Rewrite(r#"{"n": 2}"#.into())));
    ctx.tools.hook(Trace {
        name: "b",
        seen: Arc::clone(&seen),
    });
    let out = ctx.tools.call("echo", &Exec::new(), r#"{"n": 1}"#).wait();
    assert_eq!(out.text, r#"echo {"n":2} +b +a"#);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            r#"a before {"n": 1}"#,
            r#"b before {"n": 2}"#,
            "b after",
            "a after"
        ]
    );
}

#[test]
fn a_denial_runs_nothing_and_a_rewrite_is_checked_against_the_schema_again() {
    let ran = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&ran);
    let mut ctx = Ctx::new();
    let counter = DynamicTool::builder(
        "count",
        "Counts.",
        json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}),
    )
    .handler(move |_, _: Value| {
        *counted.lock().unwrap() += 1;
        "counted"
    })
    .unwrap();
    ctx.tool(counter).unwrap();
    ctx.tools.hook(hook::before_call(|call| match call.args() {
        r#"{"n": 0}"# => Before::Deny("zero is not counted".into()),
        r#"{"n": 1}"# => Before::Rewrite(r#"{"n": 10}"#.into()),
        _ => Before::Allow,
    }));
    let call = |args: &str| ctx.tools.call("count", &Exec::new(), args).wait();
    let denied = call(r#"{"n": 0}"#);
    assert_eq!(
        (denied.text.as_str(), denied.is_error),
        ("Error: zero is not counted", true)
    );
    assert_eq!(
        call(r#"{"n": 1}"#).text,
        "Error: invalid arguments: n: expected an integer of at most 9, got 10"
    );
    assert_eq!(call(r#"{"n": 2}"#).text, "counted");
    assert_eq!(*ran.lock().unwrap(), 1);
}

#[tokio::test]
async fn an_async_tool_s_result_is_redacted_for_an_async_host() {
    let mut ctx = Ctx::new();
    let slow = DynamicTool::builder("secret", "Tells.", json!({"type": "object"}))
        .async_handler(|_, _: Value| async {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            "the password is hunter2"
        })
        .unwrap();
    ctx.tool(slow).unwrap();
    ctx.tools.hook(hook::after_call(|_, mut output| {
        output.text = output.text.replace("hunter2", "[redacted]");
        output
    }));
    let exec = Exec::new();
    let out = ctx.tools.call("secret", &exec, "{}").await;
    assert_eq!(out.text, "the password is [redacted]");
}

#[test]
fn plan_mode_runs_read_only_tools_in_a_batch_and_denies_the_others_in_call_order() {
    let mut ctx = Ctx::new();
    ctx.tool(echo("look", Annotations::new().with_read_only(true)))
        .unwrap();
    ctx.tool(echo("delete", Annotations::new().with_destructive(true)))
        .unwrap();
    ctx.tools.hook(PlanMode::new());
    let call = |id: &str, name: &str| ToolCall::new(name, "{}").with_id(id);
    let agent = Agent::new("plan", Session::in_memory());
    let outputs = ctx.tools.call_batch(
        &Exec::for_agent(agent),
        &[call("1", "delete"), call("2", "look")],
    );
    assert_eq!(
        outputs[0].text,
        "Error: delete is not run in plan mode, which runs only read-only tools; present the \
         plan and let the user approve it first"
    );
    assert_eq!(outputs[1].text, "look {}");
}

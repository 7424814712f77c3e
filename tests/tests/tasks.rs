//! Tools whose calls may run as tasks (MCP's tasks extension): what `#[tool(task)]` and a
//! `Detach` parameter declare (and `asks`, what a tool cannot do without asking its client), what `Detach::now` does in a host that runs no tasks and in one
//! that does, and the panic hook by which a host tells a tool's panic from its error.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tool_runtime::{Asks, Ctx, Detach, Detacher, DynamicTool, Exec, TaskSupport, Tool, tool};

/// Computes for a while.
#[tool(task)]
async fn compute() -> String {
    "computed".into()
}

/// Asks first, then goes on as a task.
#[tool(task = "required")]
async fn report(detach: Detach) -> String {
    let first = detach.now();
    let again = detach.now();
    format!("detached: {first}, again: {again}")
}

/// Answers at once.
#[tool]
fn quick() -> &'static str {
    "quick"
}

/// Cannot do without the person and the client's roots.
#[tool(asks = "roots person")]
async fn survey() -> String {
    "surveyed".into()
}

/// Breaks.
#[tool]
async fn breaks() -> String {
    panic!("the fixture breaks")
}

/// Counts its detachments.
#[derive(Default)]
struct Counting(AtomicUsize);

impl Detacher for Counting {
    fn detach(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_tool_declares_whether_its_calls_run_as_tasks_and_where_they_become_one() {
    assert_eq!(Compute.definition().task_support(), TaskSupport::Optional);
    assert!(!Compute.definition().detaches());
    assert_eq!(Report.definition().task_support(), TaskSupport::Required);
    assert!(Report.definition().detaches());
    assert_eq!(Quick.definition().task_support(), TaskSupport::Never);
    assert_eq!(Survey.definition().asks(), [Asks::Roots, Asks::Person]);
    assert!(Quick.definition().asks().is_empty());
    let dynamic = DynamicTool::builder("later", "Later.", json!({"type": "object"}))
        .task(TaskSupport::Optional)
        .handler(|_, _| "later")
        .unwrap();
    assert_eq!(dynamic.definition().task_support(), TaskSupport::Optional);
    assert!(!dynamic.definition().detaches());
}

#[tokio::test]
async fn detaching_does_nothing_where_the_host_runs_no_task_and_tells_the_host_where_it_does() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Report>().unwrap();
    let out = ctx.tools.call("report", &Exec::new(), "{}").await;
    assert_eq!(out.text, "detached: false, again: false");
    let counting = Arc::new(Counting::default());
    let exec = Exec::new().with_detach(Arc::clone(&counting) as Arc<dyn Detacher>);
    let out = ctx.tools.call("report", &exec, "{}").await;
    assert_eq!(out.text, "detached: true, again: true");
    // Saying it twice reaches the host twice; the host acts on the first.
    assert_eq!(counting.0.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_panic_hook_hears_a_tools_panic_and_the_call_still_answers_as_a_panicked_one() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Breaks>().unwrap();
    ctx.plugin::<Compute>().unwrap();
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let exec = {
        let heard = Arc::clone(&heard);
        Exec::new().with_panic_hook(move |message| heard.lock().unwrap().push(message.to_owned()))
    };
    let out = ctx.tools.call("breaks", &exec, "{}").await;
    assert!(out.is_error);
    assert_eq!(out.text, "Error: breaks panicked: the fixture breaks");
    let out = ctx.tools.call("compute", &exec, "{}").await;
    assert_eq!(out.text, "computed");
    assert_eq!(*heard.lock().unwrap(), ["the fixture breaks"]);
}

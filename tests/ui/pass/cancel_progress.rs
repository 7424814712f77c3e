//! `Cancel` and `Progress` are context parameters; `timeout` takes a duration.
use tool_runtime::{Cancel, Progress, Tool, tool};

/// Waits in steps.
#[tool(timeout = "1m 30s")]
async fn steps(
    cancel: Cancel,
    progress: Progress,
    /// How many steps.
    count: u32,
) -> String {
    for step in 0..count {
        if cancel.is_cancelled() {
            break;
        }
        progress.report(step, count, "");
    }
    "done".into()
}

/// Blocks, with a deadline.
#[tool(blocking, timeout = "250ms")]
fn block(cancel: Cancel) -> String {
    format!("{}", cancel.is_cancelled())
}

fn main() {
    assert_eq!(
        Steps.definition().timeout(),
        Some(std::time::Duration::from_secs(90))
    );
    assert_eq!(
        Block.definition().timeout(),
        Some(std::time::Duration::from_millis(250))
    );
    // Neither is in the schema.
    assert!(Steps.definition().input_schema()["properties"].get("cancel").is_none());
}

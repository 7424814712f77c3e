use tool_runtime::{Agent, Ctx, Exec, Session, Tool, tool};

/// Says who is asking.
#[tool]
fn whoami(agent: Agent, exec: &Exec) -> String {
    format!("{} ({})", agent.id(), exec.call_id.as_deref().unwrap_or("no call id"))
}

fn main() {
    assert_eq!(Whoami.definition().input_schema()["properties"], serde_json::json!({}));
    let mut ctx = Ctx::new();
    ctx.plugin::<Whoami>().unwrap();
    let exec = Exec::for_agent(Agent::new("a1", Session::in_memory())).with_call_id("c1");
    assert_eq!(ctx.tools.call("whoami", &exec, "{}").wait().text, "a1 (c1)");
}

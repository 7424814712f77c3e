//! A synchronous tool that blocks, with every kind of context parameter.
use tool_runtime::{Agent, Ctx, Exec, Service, Session, tool};

struct Root(String);

/// Reads a file.
#[tool(blocking, read_only)]
fn read(
    root: Service<Root>,
    exec: &Exec,
    agent: Option<Agent>,
    /// The file's name.
    name: String,
) -> Result<String, String> {
    let _ = (exec, agent);
    std::fs::read_to_string(format!("{}/{name}", root.0)).map_err(|error| error.to_string())
}

fn main() {
    let mut ctx = Ctx::new();
    ctx.provide(Root("/nonexistent".into()));
    ctx.plugin::<Read>().unwrap();
    let exec = Exec::for_agent(Agent::new("a", Session::in_memory()));
    let out = ctx.tools.call("read", &exec, r#"{"name": "x"}"#).wait();
    assert!(out.is_error && out.text.starts_with("Error: "), "{}", out.text);
}

//! Any type that serializes and describes itself is a result: numbers, lists, JSON values, in a
//! `Result` or not; text types stay text.
use tool_runtime::{Ctx, Exec, Tool, tool};

/// Counts.
#[tool]
fn count() -> u32 {
    3
}

/// Lists.
#[tool]
async fn list() -> Result<Vec<String>, String> {
    Ok(vec!["a".into()])
}

/// Echoes.
#[tool]
fn echo(
    /// Anything.
    value: serde_json::Value,
) -> serde_json::Value {
    value
}

/// Greets.
#[tool]
fn greet() -> Result<std::borrow::Cow<'static, str>, String> {
    Ok("hi".into())
}

fn main() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Count>().unwrap().plugin::<List>().unwrap().plugin::<Echo>().unwrap();
    ctx.plugin::<Greet>().unwrap();
    let exec = Exec::new();
    assert_eq!(ctx.tools.call("count", &exec, "{}").wait().data(), Some(3.into()));
    assert_eq!(ctx.tools.call("list", &exec, "{}").wait().text, r#"["a"]"#);
    assert_eq!(ctx.tools.call("echo", &exec, r#"{"value": {"b": 1, "a": 2}}"#).wait().text, r#"{"b":1,"a":2}"#);
    assert_eq!(ctx.tools.call("greet", &exec, "{}").wait().data(), None);
    assert!(Count.definition().output_schema().is_some());
    assert!(Greet.definition().output_schema().is_none());
}

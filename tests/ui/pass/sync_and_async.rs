use tool_runtime::{Ctx, Exec, ToolError, tool};

/// Adds.
#[tool]
fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Divides, later.
#[tool]
pub async fn divide(a: i64, b: i64) -> Result<String, ToolError> {
    if b == 0 {
        return Err(ToolError::new("division by zero"));
    }
    Ok((a / b).to_string())
}

fn main() {
    assert_eq!(add(1, 2), "3");
    let mut ctx = Ctx::new();
    ctx.plugin::<Add>().unwrap().plugin::<Divide>().unwrap();
    let exec = Exec::new();
    assert_eq!(ctx.tools.call("add", &exec, r#"{"a": 1, "b": 2}"#).wait().text, "3");
    assert_eq!(ctx.tools.call("divide", &exec, r#"{"a": 7, "b": 2}"#).wait().text, "3");
    assert_eq!(ctx.tools.call("divide", &exec, r#"{"a": 7, "b": 0}"#).wait().text, "Error: division by zero");
}

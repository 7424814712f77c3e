//! A tool whose default type name (`Bump`) is the author's already takes another.
use tool_runtime::{Ctx, Exec, Tool, tool};

/// The author's own type of that name.
struct Bump(u32);

/// Bumps a counter.
#[tool(type_name = "BumpTool")]
fn bump(
    /// By how much.
    by: u32,
) -> String {
    (Bump(1).0 + by).to_string()
}

fn main() {
    assert_eq!(BumpTool.definition().name(), "bump");
    let mut ctx = Ctx::new();
    ctx.plugin::<BumpTool>().unwrap();
    assert_eq!(ctx.tools.call("bump", &Exec::new(), r#"{"by": 2}"#).wait().text, "3");
}

//! Every attribute a model parameter takes, with its struct-field meaning.
use tool_runtime::{Ctx, Exec, Tool, tool};

fn ten() -> u32 {
    10
}

/// Searches.
#[tool]
fn search(
    /// What to look for.
    #[schemars(length(min = 1, max = 20), regex(pattern = r"^\w+$"))]
    query: String,
    #[serde(rename = "pageSize", default = "ten")]
    #[schemars(range(min = 1, max = 50), example = 10)]
    page_size: u32,
    #[serde(default)] exact: bool,
    #[schemars(email)] notify: Option<String>,
    #[schemars(url)] callback: Option<String>,
    #[schemars(contains(pattern = "@"))] owner: Option<String>,
    #[schemars(inner(length(max = 3)))] tags: Option<Vec<String>>,
    #[schemars(extend("multipleOf" = 2))] step: Option<u8>,
) -> String {
    let _ = (notify, callback, owner, tags, step);
    format!("{query} {page_size} {exact}")
}

fn main() {
    let schema = Search.definition().input_schema();
    assert_eq!(schema["required"], serde_json::json!(["query"]));
    assert_eq!(schema["properties"]["pageSize"]["maximum"], 50);
    let mut ctx = Ctx::new();
    ctx.plugin::<Search>().unwrap();
    let out = ctx.tools.call("search", &Exec::new(), r#"{"query": "rust"}"#).wait();
    assert_eq!(out.text, "rust 10 false");
}

//! A parameter's `#[serde(default …)]`: its schema says the default, as a struct field's does,
//! it may be left out or be `null` (both meaning the default), and so it has a form in every
//! dialect, OpenAI's strict mode (every property required, `null` for one left out) included.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tool_runtime::{Ctx, Dialect, Exec, Tool, tool};

fn ten() -> u32 {
    10
}

/// How hard to look.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    /// The first page only.
    #[default]
    Shallow,
    /// Every page.
    Deep,
}

/// A setting with no JSON of its own to show as a default.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct Filter {
    /// Words to leave out.
    pub exclude: Vec<String>,
}

/// Searches.
#[tool(allow_undocumented)]
fn search(
    /// What to look for.
    query: String,
    /// Results per page.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 50))]
    page_size: u32,
    #[serde(default)] exact: bool,
    /// How deep.
    #[serde(default)]
    depth: Depth,
    #[serde(default)] filter: Filter,
) -> String {
    format!(
        "{query} {page_size} {exact} {depth:?} {}",
        filter.exclude.len()
    )
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<Search>().unwrap();
    ctx
}

fn call(args: Value) -> String {
    ctx()
        .tools
        .call("search", &Exec::new(), &args.to_string())
        .wait()
        .text
}

#[test]
fn the_schema_says_the_default() {
    let schema = Search.definition().input_schema().clone();
    let properties = &schema["properties"];
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(
        properties["page_size"],
        json!({"type": "integer", "description": "Results per page.", "minimum": 1,
               "maximum": 50, "default": 10})
    );
    assert_eq!(
        properties["exact"],
        json!({"type": "boolean", "default": false})
    );
    assert_eq!(properties["depth"]["default"], "shallow");
    assert_eq!(
        properties["depth"]["description"],
        "How deep.\n- \"shallow\": The first page only.\n- \"deep\": Every page."
    );
    // A default that is not `Serialize` is not said, and the argument may still be left out.
    assert!(properties["filter"].get("default").is_none());
}

#[test]
fn left_out_or_null_is_the_default() {
    assert_eq!(call(json!({"query": "rust"})), "rust 10 false Shallow 0");
    assert_eq!(
        call(
            json!({"query": "rust", "page_size": null, "exact": null, "depth": null, "filter": null})
        ),
        "rust 10 false Shallow 0"
    );
    assert_eq!(
        call(
            json!({"query": "rust", "page_size": 20, "exact": true, "depth": "deep",
                    "filter": {"exclude": ["a"]}})
        ),
        "rust 20 true Deep 1"
    );
    assert_eq!(
        call(json!({"query": "rust", "page_size": 99})),
        "Error: invalid arguments: page_size: expected an integer from 1 to 50, got 99"
    );
    assert_eq!(
        call(json!({"query": "rust", "depth": "sideways"})),
        "Error: invalid arguments: depth: expected one of \"shallow\", \"deep\", got \"sideways\""
    );
}

#[test]
fn every_dialect_has_a_form_for_it() {
    for dialect in Dialect::ALL {
        let rendered = Search.definition().render(dialect);
        assert!(rendered.is_ok(), "{dialect:?}: {:?}", rendered.err());
    }
    let strict = Search.definition().render(Dialect::OpenAiStrict).unwrap();
    let parameters = &strict["function"]["parameters"];
    assert_eq!(
        parameters["required"],
        json!(["query", "page_size", "exact", "depth", "filter"])
    );
    // There, each takes null too (what strict mode sends for one left out), its default said.
    assert_eq!(
        parameters["properties"]["page_size"],
        json!({"description": "Results per page.",
               "anyOf": [{"type": "integer", "minimum": 1, "maximum": 50}, {"type": "null"}],
               "default": 10})
    );
    for name in ["exact", "depth", "filter"] {
        let branches = parameters["properties"][name]["anyOf"].as_array().unwrap();
        assert!(branches.contains(&json!({"type": "null"})), "{name}");
    }
    // What strict mode sends for a left-out argument, null, is the default.
    assert_eq!(
        call(
            json!({"query": "q", "page_size": null, "exact": null, "depth": null, "filter": null})
        ),
        "q 10 false Shallow 0"
    );
}

/// Looks.
#[tool(allow_undocumented)]
fn look(
    /// How deep, if it matters.
    depth: Option<Depth>,
    kind: Option<Depth>,
) -> String {
    format!("{depth:?}{kind:?}")
}

#[test]
fn gemini_keeps_the_variant_docs_of_an_optional_enum() {
    let gemini = Look.definition().render(Dialect::Gemini).unwrap();
    let properties = &gemini["parameters"]["properties"];
    assert_eq!(
        properties["depth"]["description"],
        "How deep, if it matters.\n- \"shallow\": The first page only.\n- \"deep\": Every page."
    );
    assert_eq!(properties["depth"]["nullable"], true);
    // With no description of its own, the type's stays whole.
    assert_eq!(
        properties["kind"]["description"],
        "How hard to look.\n- \"shallow\": The first page only.\n- \"deep\": Every page."
    );
}

/// Counts.
#[tool]
fn counts(
    /// A small count.
    small: Option<u8>,
    /// A count.
    count: Option<u32>,
    /// A big count.
    big: Option<u64>,
    /// A signed count.
    signed: Option<i64>,
    /// A bounded count.
    #[schemars(range(min = 0, max = 10_000_000_000u64))]
    bounded: Option<u64>,
) {
    let _ = (small, count, big, signed, bounded);
}

#[test]
fn integer_ranges_read_as_a_model_writes_them() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Counts>().unwrap();
    let refused = |args: Value| {
        ctx.tools
            .call("counts", &Exec::new(), &args.to_string())
            .wait()
            .text
    };
    assert_eq!(
        refused(json!({"small": 300})),
        "Error: invalid arguments: small: expected an integer from 0 to 255, got 300"
    );
    assert_eq!(
        refused(json!({"count": -1})),
        "Error: invalid arguments: count: expected a non-negative integer at most 4294967295, got -1"
    );
    assert_eq!(
        refused(json!({"big": -1})),
        "Error: invalid arguments: big: expected a non-negative integer, got -1"
    );
    assert_eq!(
        refused(json!({"signed": 1.5})),
        "Error: invalid arguments: signed: expected an integer or null, got 1.5"
    );
    assert_eq!(
        refused(json!({"bounded": 10_000_000_001u64})),
        "Error: invalid arguments: bounded: expected a non-negative integer at most 10000000000, got 10000000001"
    );
    // A tool that returns nothing did its work.
    assert_eq!(refused(json!({})), "Done.");
}

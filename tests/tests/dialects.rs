//! Model-facing definitions in every provider dialect: golden files, meta-schemas, and what each
//! dialect cannot say.

// The argument types exist to be parsed and described; the tools never read them.
#![allow(dead_code)]

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::{Ctx, Dialect, LoadError, Tool, tool};
use tool_todo::TodoWrite;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Step {
    /// What to do.
    action: String,
    /// How many times.
    repeat: Option<u8>,
    /// How urgent.
    urgency: Urgency,
    /// Where it happens.
    place: Option<Place>,
}

/// How urgent a step is.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Urgency {
    /// Whenever.
    Low,
    /// Soon.
    High,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Place {
    city: String,
}

/// Plans steps.
#[tool]
fn plan(
    /// The steps.
    steps: Vec<Step>,
    /// A deadline in days.
    deadline: Option<u32>,
) -> &'static str {
    let _ = (steps, deadline);
    "ok"
}

/// Counts words.
#[tool(allow_undocumented)]
fn tally(counts: HashMap<String, u32>) -> &'static str {
    let _ = counts;
    "ok"
}

#[derive(Deserialize, JsonSchema)]
struct WithDefault {
    #[serde(default)]
    tags: Vec<String>,
}

/// Takes a default.
#[tool(allow_undocumented)]
fn defaulted(options: WithDefault) -> &'static str {
    let _ = options;
    "ok"
}

#[derive(Deserialize, JsonSchema)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

/// Walks a tree.
#[tool(allow_undocumented)]
fn walk(tree: Tree) -> &'static str {
    let _ = tree;
    "ok"
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

#[test]
fn todo_write_in_every_dialect_is_pinned() {
    for dialect in Dialect::ALL {
        let rendered = TodoWrite.definition().render(dialect).unwrap();
        insta::assert_snapshot!(format!("todo_write.{dialect}"), pretty(rendered));
    }
}

#[test]
fn a_richer_tool_in_every_dialect_is_pinned() {
    for dialect in Dialect::ALL {
        let rendered = Plan.definition().render(dialect).unwrap();
        insta::assert_snapshot!(format!("plan.{dialect}"), pretty(rendered));
    }
}

/// The schema part of a rendered definition.
fn schema_of(dialect: Dialect, rendered: &Value) -> &Value {
    match dialect {
        Dialect::Neutral | Dialect::Anthropic => &rendered["input_schema"],
        Dialect::OpenAi | Dialect::OpenAiStrict => &rendered["function"]["parameters"],
        Dialect::OpenAiResponses | Dialect::Gemini => &rendered["parameters"],
        Dialect::Mcp => &rendered["inputSchema"],
    }
}

/// Every schema object below `schema`, itself included.
fn objects(schema: &Value) -> Vec<&serde_json::Map<String, Value>> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                out.push(object);
                for (key, child) in object {
                    match key.as_str() {
                        "properties" => {
                            stack.extend(child.as_object().into_iter().flat_map(|p| p.values()))
                        }
                        "enum" | "const" | "required" | "description" => {}
                        _ => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

#[test]
fn every_dialect_validates_against_the_json_schema_meta_schema() {
    for definition in [TodoWrite.definition(), Plan.definition()] {
        assert!(jsonschema::draft202012::meta::validate(definition.input_schema()).is_ok());
        for dialect in Dialect::ALL {
            let rendered = definition.render(dialect).unwrap();
            let schema = schema_of(dialect, rendered);
            if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
                panic!("{} in {dialect}: {error}", definition.name());
            }
            for keyword in ["$schema", "$ref", "$defs", "title", "format"] {
                assert!(
                    objects(schema).iter().all(|o| !o.contains_key(keyword)),
                    "{keyword} in {dialect}"
                );
            }
        }
    }
}

#[test]
fn mcp_entries_are_mcp_tools() {
    let tool_schema = serde_json::to_value(schemars::schema_for!(rmcp::model::Tool)).unwrap();
    let validator = jsonschema::draft202012::new(&tool_schema).unwrap();
    for definition in [TodoWrite.definition(), Plan.definition()] {
        let entry = definition.render(Dialect::Mcp).unwrap();
        assert!(validator.is_valid(entry), "{entry}");
        // The MCP specification requires an object schema for a tool's input.
        assert_eq!(entry["inputSchema"]["type"], "object");
        // What the Rust MCP SDK reads is what was written.
        let tool: rmcp::model::Tool = serde_json::from_value(entry.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&tool).unwrap(), entry);
    }
}

#[test]
fn openai_strict_closes_every_object_and_requires_every_property() {
    for definition in [TodoWrite.definition(), Plan.definition()] {
        let rendered = definition.render(Dialect::OpenAiStrict).unwrap();
        assert_eq!(rendered["function"]["strict"], true);
        for object in objects(&rendered["function"]["parameters"]) {
            if object.get("type") == Some(&json!("object")) {
                assert_eq!(object["additionalProperties"], false);
                let names: Vec<Value> = object["properties"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(|k| json!(k))
                    .collect();
                assert_eq!(object["required"], Value::Array(names));
            }
            assert!(!object.contains_key("oneOf"));
        }
    }
    // An optional argument is nullable, as it was.
    let strict = Plan.definition().render(Dialect::OpenAiStrict).unwrap();
    let deadline = &strict["function"]["parameters"]["properties"]["deadline"];
    assert_eq!(deadline["anyOf"][1], json!({"type": "null"}));
}

#[test]
fn what_a_dialect_cannot_say_is_a_clear_error() {
    let error = Tally
        .definition()
        .render(Dialect::OpenAiStrict)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `tally` cannot be expressed in the openai-strict dialect: the object at arguments.counts takes free-form keys (a map), which strict mode forbids"
    );
    let error = Tally.definition().render(Dialect::Gemini).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `tally` cannot be expressed in the gemini dialect: the object at arguments.counts takes free-form keys (a map), which Gemini cannot declare"
    );
    let error = Defaulted
        .definition()
        .render(Dialect::OpenAiStrict)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `defaulted` cannot be expressed in the openai-strict dialect: `arguments.options.tags` may be left out but not be null (a `#[serde(default)]` field); strict mode requires every property: make it an `Option`"
    );
    // The other dialects say them.
    assert!(Tally.definition().render(Dialect::OpenAi).is_ok());
    assert!(Defaulted.definition().render(Dialect::Gemini).is_ok());
}

#[test]
fn a_host_that_states_its_dialects_refuses_a_tool_that_cannot_render_when_it_loads() {
    // Stated first: the tool that cannot render is refused alone, naming the construct.
    let mut ctx = Ctx::new();
    ctx.tools
        .require_dialects(&[Dialect::OpenAi, Dialect::Gemini])
        .unwrap();
    ctx.plugin::<TodoWrite>().unwrap();
    let error = ctx.plugin::<Tally>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `tally` cannot be expressed in the gemini dialect: the object at arguments.counts takes free-form keys (a map), which Gemini cannot declare"
    );
    assert!(matches!(error, LoadError::Dialect(ref e) if e.dialect == Dialect::Gemini));
    // The others serve on.
    assert_eq!(ctx.tools.names().collect::<Vec<_>>(), ["todo_write"]);
    assert!(ctx.tools.definitions_json(Dialect::Gemini).is_ok());

    // Stated after loading: the loaded tools are checked then.
    let mut ctx = Ctx::new();
    ctx.plugin::<Tally>().unwrap();
    assert!(matches!(
        ctx.tools.require_dialects(&[Dialect::OpenAiStrict]),
        Err(LoadError::Dialect(ref e)) if e.tool == "tally"
    ));
    // Not stated: every tool loads, and the request in that dialect fails for the whole set.
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>()
        .unwrap()
        .plugin::<Tally>()
        .unwrap();
    assert!(ctx.tools.definitions_json(Dialect::Gemini).is_err());
    assert!(ctx.tools.definitions_json(Dialect::OpenAi).is_ok());
}

/// Fetches a page.
#[tool(title = "Fetch a page", read_only, open_world)]
fn fetch(
    /// The page's address.
    url: String,
) -> String {
    url
}

#[test]
fn a_tools_title_and_hints_go_to_mcp_only_and_only_when_declared() {
    let mcp = Fetch.definition().render(Dialect::Mcp).unwrap();
    assert_eq!(mcp["title"], "Fetch a page");
    assert_eq!(
        mcp["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    // Provider dialects have no place for them.
    for dialect in Dialect::ALL {
        if dialect != Dialect::Mcp {
            let text = Fetch.definition().json(dialect).unwrap();
            assert!(
                !text.contains("Fetch a page") && !text.contains("Hint"),
                "{text}"
            );
        }
    }
    // Nothing declared, nothing sent.
    let plain = Tally.definition().render(Dialect::Mcp).unwrap();
    assert!(plain.get("title").is_none() && plain.get("annotations").is_none());
    // rmcp reads them as MCP's own fields.
    let tool: rmcp::model::Tool = serde_json::from_value(mcp.clone()).unwrap();
    assert_eq!(tool.title.as_deref(), Some("Fetch a page"));
    let hints = tool.annotations.unwrap();
    assert_eq!(
        (
            hints.read_only_hint,
            hints.destructive_hint,
            hints.open_world_hint
        ),
        (Some(true), None, Some(true))
    );
}

#[test]
fn gemini_gets_the_openapi_subset() {
    let rendered = Plan.definition().render(Dialect::Gemini).unwrap();
    for object in objects(&rendered["parameters"]) {
        for keyword in ["additionalProperties", "const", "oneOf", "$ref", "$schema"] {
            assert!(!object.contains_key(keyword), "{keyword} in {rendered}");
        }
        if let Some(options) = object.get("enum") {
            assert!(options.as_array().unwrap().iter().all(Value::is_string));
        }
    }
    let deadline = &rendered["parameters"]["properties"]["deadline"];
    assert_eq!(
        deadline,
        &json!({"type": "integer", "description": "A deadline in days.", "nullable": true, "minimum": 0, "maximum": 4_294_967_295_u32})
    );
}

#[test]
fn recursive_argument_types_are_refused_when_loaded() {
    let mut ctx = Ctx::new();
    let error = ctx.plugin::<Walk>().unwrap_err();
    assert_eq!(
        error,
        LoadError::Schema {
            tool: "walk".into(),
            reason: "its arguments use the recursive type `Tree`, which a tool schema cannot inline: give the model a finite shape".into()
        }
    );
    assert!(Walk.definition().render(Dialect::Anthropic).is_err());
}

#[test]
fn renderings_are_computed_once_and_requests_are_a_copy() {
    let definition = TodoWrite.definition();
    let first = definition.json(Dialect::Gemini).unwrap();
    let second = definition.json(Dialect::Gemini).unwrap();
    assert!(std::ptr::eq(first, second));
    assert_eq!(
        serde_json::from_str::<Value>(first).unwrap(),
        *definition.render(Dialect::Gemini).unwrap()
    );

    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let one = ctx
        .tools
        .definitions_json(Dialect::OpenAi)
        .unwrap()
        .to_owned();
    assert!(std::ptr::eq(
        ctx.tools.definitions_json(Dialect::OpenAi).unwrap(),
        ctx.tools.definitions_json(Dialect::OpenAi).unwrap()
    ));
    assert_eq!(
        one,
        format!("[{}]", definition.json(Dialect::OpenAi).unwrap())
    );
    ctx.plugin::<Plan>().unwrap();
    let two: Value =
        serde_json::from_str(ctx.tools.definitions_json(Dialect::OpenAi).unwrap()).unwrap();
    assert_eq!(two.as_array().unwrap().len(), 2);
    assert_eq!(two[1]["function"]["name"], "plan");
}

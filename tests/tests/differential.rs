//! The schema a model sees is the schema the runtime enforces: values generated from each
//! tool's schema, valid and broken in every way the schema can say, are checked by a real JSON
//! Schema validator (the `jsonschema` crate) and by the runtime's argument parser, which must
//! agree on every one.

// The argument types exist to be parsed and described; the tools never read them.
#![allow(dead_code)]

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, Exec, Tool, tool};
use tool_todo::{Todo, TodoWrite};

/// The same arguments as `todo_write`, without its rules beyond the schema.
#[tool]
fn todo_args(
    agent: Option<Agent>,
    /// The COMPLETE task list, replacing any previous list.
    todos: Vec<Todo>,
) -> &'static str {
    let _ = (agent, todos);
    "ok"
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Address {
    street: String,
    number: u16,
    unit: Option<u8>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Home,
    Work,
    Other,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Contact {
    Email(String),
    Phone { number: String, ext: Option<u16> },
    Nothing,
}

/// Without `deny_unknown_fields`: the runtime closes it, and the schema says so.
#[derive(Deserialize, JsonSchema)]
struct Person {
    name: String,
    age: u8,
    kind: Kind,
    address: Option<Address>,
    tags: Vec<String>,
    contacts: Vec<Contact>,
    score: f64,
    active: bool,
    nickname: Option<String>,
    pair: (i8, bool),
}

/// Keywords beyond types, nested in objects, arrays and options.
#[derive(Deserialize, JsonSchema)]
struct Window {
    #[schemars(range(min = -5, max = 5))]
    lo: i32,
    #[schemars(length(min = 1, max = 4), regex(pattern = "^[a-c]+$"))]
    code: Option<String>,
    #[schemars(length(min = 1, max = 3))]
    sizes: Option<Vec<u8>>,
    unique: Option<HashSet<u8>>,
    #[schemars(extend("multipleOf" = 3))]
    step: Option<u16>,
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    ratio: Option<f64>,
    labels: Option<Labels>,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(extend("minProperties" = 1, "maxProperties" = 2, "propertyNames" = {"pattern": "^[a-z]+$"}, "dependentRequired" = {"b": ["a"]}))]
struct Labels(BTreeMap<String, u8>);

/// Accepts windows.
#[tool(allow_undocumented)]
fn constrained(
    window: Window,
    #[schemars(range(max = 100))] score: Option<u8>,
    #[schemars(length(max = 2))] windows: Option<Vec<Window>>,
) -> &'static str {
    let _ = (window, score, windows);
    "ok"
}

/// Accepts a person.
#[tool(allow_undocumented)]
fn rich(person: Person, limit: Option<i32>, levels: Vec<Option<u32>>) -> &'static str {
    let _ = (person, limit, levels);
    "ok"
}

/// Values the schema accepts, as a proptest strategy: shrinking finds the smallest value two
/// validators disagree on.
fn valid(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return prop::sample::select(options.clone()).boxed();
    }
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let branches: Vec<_> = branches.iter().map(|b| valid(b, depth)).collect();
        return prop::strategy::Union::new(branches).boxed();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("null") => Just(Value::Null).boxed(),
        Some("boolean") => any::<bool>().prop_map(Value::from).boxed(),
        Some("string") => prop_oneof![
            // Both sides of a pattern and of length bounds.
            prop::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'Z', ' ']), 0..6)
                .prop_map(|chars| Value::from(chars.into_iter().collect::<String>())),
            prop::sample::select(vec![
                "",
                "a",
                "Fix the build",
                "ü — \"quoted\" \\ \n",
                "\u{1b}[31m",
                "🦀",
            ])
            .prop_map(Value::from),
            prop::collection::vec(any::<char>(), 0..6)
                .prop_map(|chars| Value::from(chars.into_iter().collect::<String>())),
        ]
        .boxed(),
        Some("integer") => {
            let min = schema
                .get("minimum")
                .and_then(Value::as_i64)
                .unwrap_or(-1000);
            let max = schema
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(1000)
                .min(min + 100_000);
            prop_oneof![Just(min), Just(max), min..=max]
                .prop_map(Value::from)
                .boxed()
        }
        Some("number") => prop_oneof![
            prop::sample::select(vec![0.5, -3.25, 1e10, 7.0]),
            -1e6..1e6f64,
        ]
        .prop_map(Value::from)
        .boxed(),
        Some("array") => {
            if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
                let items: Vec<_> = prefix.iter().map(|item| valid(item, depth + 1)).collect();
                return items.prop_map(Value::Array).boxed();
            }
            let len = if depth > 3 { 0..1 } else { 0..4 };
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            prop::collection::vec(valid(&items, depth + 1), len)
                .prop_map(Value::Array)
                .boxed()
        }
        Some("object") => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let members: Vec<_> = schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(name, property)| {
                    let value = valid(property, depth + 1);
                    let value = if required.contains(&name.as_str()) {
                        value.prop_map(Some).boxed()
                    } else {
                        prop::option::weighted(0.6, value).boxed()
                    };
                    (Just(name.clone()), value)
                })
                .collect();
            // A map: members of its value schema, under names on both sides of `propertyNames`.
            let extra = match schema.get("additionalProperties") {
                Some(value) if value.is_object() => prop::collection::vec(
                    (
                        prop::sample::select(vec!["a", "b", "c", "Zed"]),
                        valid(value, depth + 1),
                    ),
                    0..4,
                )
                .boxed(),
                _ => Just(Vec::new()).boxed(),
            };
            (members, extra)
                .prop_map(|(members, extra)| {
                    let mut object: serde_json::Map<String, Value> = members
                        .into_iter()
                        .filter_map(|(name, value)| Some((name, value?)))
                        .collect();
                    for (name, value) in extra {
                        object.insert(name.to_owned(), value);
                    }
                    Value::Object(object)
                })
                .boxed()
        }
        _ => Just(Value::Null).boxed(),
    }
}

/// Every path to a value inside `value`, with the schema at it.
fn nodes<'a>(
    schema: &'a Value,
    value: &Value,
    path: Vec<PathStep>,
    out: &mut Vec<(Vec<PathStep>, &'a Value)>,
) {
    out.push((path.clone(), schema));
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        // The branch the value fits, by type.
        for branch in branches {
            if jsonschema::is_valid(branch, value) {
                nodes(branch, value, path, out);
                return;
            }
        }
        return;
    }
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                if let Some(member_schema) = schema.get("properties").and_then(|p| p.get(name)) {
                    let mut path = path.clone();
                    path.push(PathStep::Key(name.clone()));
                    nodes(member_schema, member, path, out);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_schema = schema
                    .get("prefixItems")
                    .and_then(|p| p.get(index))
                    .or_else(|| schema.get("items"));
                if let Some(item_schema) = item_schema {
                    let mut path = path.clone();
                    path.push(PathStep::Index(index));
                    nodes(item_schema, item, path, out);
                }
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'v>(value: &'v mut Value, path: &[PathStep]) -> &'v mut Value {
    path.iter().fold(value, |value, step| match step {
        PathStep::Key(key) => &mut value[key.as_str()],
        PathStep::Index(index) => &mut value[*index],
    })
}

/// How to break a valid value: where, in which way, and with what.
#[derive(Clone, Debug)]
struct Break {
    node: prop::sample::Index,
    way: u8,
    pick: prop::sample::Index,
}

fn breaks() -> impl Strategy<Value = Break> {
    (
        any::<prop::sample::Index>(),
        0..5u8,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(node, way, pick)| Break { node, way, pick })
}

/// Breaks `value` at one place, in one of the ways a schema can refuse.
fn mutate(schema: &Value, value: &mut Value, how: &Break) {
    let mut all = Vec::new();
    nodes(schema, value, Vec::new(), &mut all);
    let (path, node_schema) = all[how.node.index(all.len())].clone();
    // A valid value of another part of the schema, to put in the wrong place.
    let (other, _) = all[how.pick.index(all.len())].clone();
    let other = at(&mut value.clone(), &other).clone();
    let target = at(value, &path);
    let replacements = [
        json!(null),
        json!(true),
        json!(42),
        json!(-1),
        json!(300),
        json!(70000),
        json!(1.5),
        json!(2.0),
        json!(1e3),
        json!("done"),
        json!("in_progress"),
        json!([]),
        json!({}),
        json!([1, "x"]),
    ];
    match how.way {
        0 | 1 => *target = how.pick.get(&replacements).clone(),
        2 => {
            if let Value::Object(members) = target {
                let names: Vec<String> = members.keys().cloned().collect();
                if !names.is_empty() {
                    members.remove(how.pick.get(&names));
                }
            } else {
                *target = json!({"unexpected": 1});
            }
        }
        3 => {
            if let Value::Object(members) = target {
                let name = *how.pick.get(&["priority", "session", "extra"]);
                members.insert(name.to_owned(), json!("x"));
            } else if let Value::Array(items) = target {
                items.push(how.pick.get(&replacements).clone());
            }
        }
        4 => *target = other,
        _ => {
            // Just inside or just outside a declared bound.
            let bounds: Vec<(&str, i64)> = [
                ("minimum", -1),
                ("minimum", 0),
                ("maximum", 0),
                ("maximum", 1),
                ("minLength", -1),
                ("maxLength", 1),
            ]
            .into_iter()
            .filter(|(key, _)| node_schema.get(key).is_some())
            .collect();
            if bounds.is_empty() {
                return;
            }
            let (key, offset) = *how.pick.get(&bounds);
            let bound = node_schema[key].as_i64().unwrap_or(0) + offset;
            *target = if key.ends_with("Length") {
                json!("a".repeat(usize::try_from(bound.max(0)).unwrap_or(0)))
            } else {
                json!(bound)
            };
        }
    }
}

fn differential(tool_name: &str, tool: &dyn Tool, ctx: &Ctx, cases: u32) {
    differential_with(tool_name, tool, ctx, cases, None);
}

/// [`differential`], and each value's answer compared with the one `twin` (a tool of the same
/// schema in `ctx`) gives.
fn differential_with(tool_name: &str, tool: &dyn Tool, ctx: &Ctx, cases: u32, twin: Option<&str>) {
    let schema = tool.definition().input_schema();
    let validator = jsonschema::draft202012::new(schema).unwrap();
    let exec = Exec::new();
    // One value in three as generated, the others broken in one place.
    let values =
        (valid(schema, 0), prop::option::weighted(0.67, breaks())).prop_map(|(mut value, how)| {
            if let Some(how) = how {
                mutate(schema, &mut value, &how);
            }
            value
        });
    let (accepted, rejected) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig {
            cases,
            failure_persistence: None,
            ..ProptestConfig::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let result = runner.run(&values, |value| {
        let schema_says = validator.is_valid(&value);
        let output = ctx.tools.call(tool_name, &exec, &value.to_string()).wait();
        let runtime_says = !output.is_error;
        prop_assert_eq!(
            schema_says,
            runtime_says,
            "disagreement on {}: the schema says {}, the runtime says {:?}",
            value,
            schema_says,
            output.text
        );
        if let Some(twin) = twin {
            let twin_output = ctx.tools.call(twin, &exec, &value.to_string()).wait();
            prop_assert_eq!(
                &twin_output.text,
                &output.text,
                "{} and {} answer {} differently",
                twin,
                tool_name,
                value
            );
        }
        let counter = if schema_says { &accepted } else { &rejected };
        counter.set(counter.get() + 1);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let (accepted, rejected) = (accepted.get(), rejected.get());
    // Both outcomes were exercised in earnest.
    assert!(
        accepted > cases / 10 && rejected > cases / 5,
        "{accepted} accepted, {rejected} rejected"
    );
    eprintln!("{tool_name}: {cases} values, {accepted} accepted and {rejected} rejected by both");
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoArgs>().unwrap();
    ctx.plugin::<Rich>().unwrap();
    ctx.plugin::<Constrained>().unwrap();
    ctx
}

#[test]
fn todo_write_schema_and_parser_agree() {
    assert_eq!(
        TodoArgs.definition().input_schema(),
        TodoWrite.definition().input_schema()
    );
    differential("todo_args", &TodoArgs, &ctx(), 10_000);
}

#[test]
fn a_richer_tool_schema_and_parser_agree() {
    differential("rich", &Rich, &ctx(), 10_000);
}

#[test]
fn a_tool_with_keywords_beyond_types_schema_and_parser_agree() {
    let schema = Constrained.definition().input_schema().to_string();
    for keyword in [
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "multipleOf",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "dependentRequired",
    ] {
        assert!(schema.contains(keyword), "{keyword} in {schema}");
    }
    differential("constrained", &Constrained, &ctx(), 10_000);
}

/// Each tool's schema served by a runtime-defined tool: the oracle agrees with it as with the
/// macro tool, and every refusal is word for word the macro tool's.
#[test]
fn runtime_defined_tools_of_the_same_schemas_agree_and_answer_the_same_texts() {
    let mut ctx = ctx();
    let macro_tools: [(&str, &dyn Tool); 3] = [
        ("todo_args", &TodoArgs),
        ("rich", &Rich),
        ("constrained", &Constrained),
    ];
    for (name, tool) in macro_tools {
        let dynamic = tool_runtime::DynamicTool::builder(
            format!("{name}_at_run_time"),
            "The same schema.",
            tool.definition().input_schema().clone(),
        )
        .handler(|_, _: Value| "ok")
        .unwrap();
        ctx.tool(dynamic).unwrap();
    }
    for (name, _) in macro_tools {
        let dynamic = format!("{name}_at_run_time");
        let dynamic_tool = ctx.tools.get(&dynamic).unwrap();
        differential_with(&dynamic, dynamic_tool, &ctx, 3_000, Some(name));
    }
}

#[test]
fn integers_written_with_a_fraction_are_integers_to_both() {
    let ctx = ctx();
    let person = json!({"name": "a", "age": 30.0, "kind": "home", "tags": [], "contacts": [], "score": 1,
                        "active": true, "pair": [1e1, false]});
    let out = ctx
        .tools
        .call(
            "rich",
            &Exec::new(),
            &json!({"person": person, "levels": [2.0, null]}).to_string(),
        )
        .wait();
    assert_eq!(out.text, "ok");
}

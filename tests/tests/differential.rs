//! The schema a model sees is the schema the runtime enforces: values generated from each
//! tool's schema, valid and broken in every way the schema can say, are checked by a real JSON
//! Schema validator (the `jsonschema` crate) and by the runtime's argument parser, which must
//! agree on every one.

// The argument types exist to be parsed and described; the tools never read them.
#![allow(dead_code)]

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
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

/// Unknown fields are allowed here: serde ignores them, and the schema says so.
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

/// Accepts a person.
#[tool]
fn rich(person: Person, limit: Option<i32>, levels: Vec<Option<u32>>) -> &'static str {
    let _ = (person, limit, levels);
    "ok"
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A value the schema accepts.
fn generate(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return options[rng.below(options.len())].clone();
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        return generate(&branches[rng.below(branches.len())], rng, depth);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("null") => Value::Null,
        Some("boolean") => json!(rng.chance(50)),
        Some("string") => {
            let samples = [
                "",
                "a",
                "Fix the build",
                "ü — \"quoted\" \\ \n",
                "\u{1b}[31m",
                "🦀",
            ];
            json!(samples[rng.below(samples.len())])
        }
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
            let candidates = [min, max, min + (max - min) / 2, (min + 1).min(max)];
            json!(candidates[rng.below(candidates.len())])
        }
        Some("number") => json!([0.5, -3.25, 1e10, 7.0][rng.below(4)]),
        Some("array") => {
            if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
                return Value::Array(
                    prefix
                        .iter()
                        .map(|item| generate(item, rng, depth + 1))
                        .collect(),
                );
            }
            let len = if depth > 3 { 0 } else { rng.below(4) };
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array((0..len).map(|_| generate(&items, rng, depth + 1)).collect())
        }
        Some("object") => {
            let mut object = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (name, property) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if required.contains(&name.as_str()) || rng.chance(60) {
                    object.insert(name.clone(), generate(property, rng, depth + 1));
                }
            }
            Value::Object(object)
        }
        _ => json!(null),
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

/// Breaks `value` at a random place, in one of the ways a schema can refuse.
fn mutate(schema: &Value, value: &mut Value, rng: &mut Rng) {
    let mut all = Vec::new();
    nodes(schema, value, Vec::new(), &mut all);
    let (path, node_schema) = all[rng.below(all.len())].clone();
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
    match rng.below(5) {
        0 | 1 => *target = replacements[rng.below(replacements.len())].clone(),
        2 => {
            if let Value::Object(members) = target {
                let names: Vec<String> = members.keys().cloned().collect();
                if !names.is_empty() {
                    members.remove(&names[rng.below(names.len())]);
                }
            } else {
                *target = json!({"unexpected": 1});
            }
        }
        3 => {
            if let Value::Object(members) = target {
                members.insert(
                    ["priority", "session", "extra"][rng.below(3)].to_owned(),
                    json!("x"),
                );
            } else if let Value::Array(items) = target {
                items.push(replacements[rng.below(replacements.len())].clone());
            }
        }
        _ => {
            // A valid value of another part of the schema, in the wrong place.
            let (_, other) = all[rng.below(all.len())];
            let _ = node_schema;
            *target = generate(other, rng, 2);
        }
    }
}

fn differential(tool_name: &str, tool: &dyn Tool, ctx: &Ctx, seed: u64, values: usize) {
    let schema = tool.definition().input_schema();
    let validator = jsonschema::draft202012::new(schema).unwrap();
    let exec = Exec::new();
    let mut rng = Rng(seed);
    let (mut accepted, mut rejected) = (0, 0);
    for i in 0..values {
        let mut value = generate(schema, &mut rng, 0);
        if i % 3 != 0 {
            mutate(schema, &mut value, &mut rng);
        }
        let schema_says = validator.is_valid(&value);
        let output = ctx.tools.call(tool_name, &exec, &value.to_string()).wait();
        let runtime_says = !output.is_error;
        assert_eq!(
            schema_says, runtime_says,
            "disagreement on {value}: the schema says {schema_says}, the runtime says {:?}",
            output.text
        );
        if schema_says {
            accepted += 1;
        } else {
            rejected += 1;
        }
    }
    // Both outcomes were exercised in earnest.
    assert!(
        accepted > values / 10 && rejected > values / 5,
        "{accepted} accepted, {rejected} rejected"
    );
    eprintln!("{tool_name}: {values} values, {accepted} accepted and {rejected} rejected by both");
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoArgs>().unwrap();
    ctx.plugin::<Rich>().unwrap();
    ctx
}

#[test]
fn todo_write_schema_and_parser_agree() {
    assert_eq!(
        TodoArgs.definition().input_schema(),
        TodoWrite.definition().input_schema()
    );
    differential("todo_args", &TodoArgs, &ctx(), 0x5eed_0001, 10_000);
}

#[test]
fn a_richer_tool_schema_and_parser_agree() {
    differential("rich", &Rich, &ctx(), 0x5eed_0002, 10_000);
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

//! Tools defined from JSON schemas read at run time (`tools.json`), in an author's crate: every
//! keyword is enforced as the `jsonschema` crate (the oracle) reads it, with the runtime's texts,
//! and a host of the author's own serves them under its own name.

use std::process::Command;

use serde_json::{Value, json};

mod common;
use tool_runtime::{Ctx, Exec};

fn file() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tools.json")).unwrap()
}

fn valid() -> Value {
    json!({
        "room": 204, "nights": 2.5,
        "guests": [{"name": "Ada", "age": 36}, {"name": "Alan"}],
        "tags": ["quiet", "view"], "kind": "double", "version": 2,
        "notes": {"arrival": "late"}, "card": "4111", "expiry": "12/29",
        "contact": "ada@example.com"
    })
}

/// The value with one change: `(pointer to the parent, member, new value or None to remove)`.
fn broken(pointer: &str, member: &str, value: Option<Value>) -> Value {
    let mut out = valid();
    let parent = out.pointer_mut(pointer).unwrap();
    match (parent, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(member.to_owned(), value);
        }
        (Value::Object(map), None) => {
            map.remove(member);
        }
        (Value::Array(items), Some(value)) => items[member.parse::<usize>().unwrap()] = value,
        (Value::Array(items), None) => {
            items.remove(member.parse::<usize>().unwrap());
        }
        _ => unreachable!(),
    }
    out
}

#[test]
fn every_keyword_of_a_schema_read_at_run_time_is_enforced_as_the_oracle_reads_it() {
    let tools = author_crate::schemas::tools(&file(), "tools.json").unwrap();
    let schema: Value = serde_json::from_str::<Value>(&file()).unwrap()[0]["input_schema"].clone();
    let oracle = jsonschema::draft202012::new(&schema).unwrap();
    let mut ctx = Ctx::new();
    for tool in tools {
        ctx.tool(tool).unwrap();
    }
    // The reference is inlined: the model reads one schema with no `$defs`.
    let shown = ctx
        .tools
        .get("book")
        .unwrap()
        .definition()
        .input_schema()
        .to_string();
    assert!(
        !shown.contains("$ref") && !shown.contains("$defs"),
        "{shown}"
    );
    let cases = [
        ("valid", valid()),
        ("minimum", broken("", "room", Some(json!(98)))),
        ("maximum", broken("", "room", Some(json!(1000)))),
        ("multipleOf", broken("", "room", Some(json!(205)))),
        (
            "integer written 2.0e2",
            broken("", "room", Some(json!(200.0))),
        ),
        ("type", broken("", "room", Some(json!("204")))),
        ("exclusiveMinimum", broken("", "nights", Some(json!(0)))),
        (
            "maximum of a number",
            broken("", "nights", Some(json!(30.5))),
        ),
        ("minItems", broken("", "guests", Some(json!([])))),
        (
            "maxItems",
            broken(
                "",
                "guests",
                Some(
                    json!([{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}, {"name": "E"}]),
                ),
            ),
        ),
        ("minLength", broken("/guests/0", "name", Some(json!("")))),
        (
            "maxLength",
            broken("/guests/0", "name", Some(json!("Abcdefghijklmnopqrstu"))),
        ),
        ("pattern", broken("/guests/0", "name", Some(json!("ada")))),
        (
            "exclusiveMaximum",
            broken("/guests/0", "age", Some(json!(130))),
        ),
        ("required inside a $ref", broken("/guests/0", "name", None)),
        (
            "additionalProperties inside a $ref",
            broken("/guests/0", "nick", Some(json!("A"))),
        ),
        ("uniqueItems", broken("", "tags", Some(json!(["a", "a"])))),
        ("enum", broken("", "kind", Some(json!("triple")))),
        ("const", broken("", "version", Some(json!(3)))),
        ("minProperties", broken("", "notes", Some(json!({})))),
        (
            "maxProperties",
            broken(
                "",
                "notes",
                Some(json!({"a": "1", "b": "2", "c": "3", "d": "4"})),
            ),
        ),
        ("propertyNames", broken("/notes", "Late", Some(json!("x")))),
        (
            "additionalProperties schema",
            broken("/notes", "floor", Some(json!(3))),
        ),
        ("dependentRequired", broken("", "expiry", None)),
        ("anyOf null", broken("", "contact", Some(Value::Null))),
        ("anyOf", broken("", "contact", Some(json!(7)))),
        ("required", broken("", "kind", None)),
        (
            "additionalProperties false",
            broken("", "extra", Some(json!(true))),
        ),
    ];
    let exec = Exec::new();
    for (keyword, value) in cases {
        let out = ctx.tools.call("book", &exec, &value.to_string()).wait();
        assert_eq!(
            !out.is_error,
            oracle.is_valid(&value),
            "{keyword}: {value} answered {}",
            out.text
        );
        if !out.is_error {
            assert_eq!(
                out.data(),
                Some(value.clone()).map(|mut v| {
                    // An integer written with a fraction reaches the handler as an integer.
                    if v["room"] == json!(200.0) {
                        v["room"] = json!(200);
                    }
                    v
                })
            );
        } else {
            assert!(
                out.text.starts_with("Error: invalid arguments: "),
                "{}",
                out.text
            );
        }
    }
    let text = |value: Value| {
        ctx.tools
            .call("book", &exec, &value.to_string())
            .wait()
            .text
    };
    assert_eq!(
        text(broken("/guests/0", "name", Some(json!("ada")))),
        "Error: invalid arguments: guests[0].name: expected a string of 1 to 20 characters \
         matching \"^[A-Z][a-z]+$\", got \"ada\""
    );
    assert_eq!(
        text(broken("", "expiry", None)),
        "Error: invalid arguments: missing field \"expiry\", which \"card\" requires"
    );
}

#[test]
fn a_host_of_the_author_s_own_serves_them_under_its_own_name() {
    let host = env!("CARGO_BIN_EXE_author-schemas");
    let help = Command::new(host).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(
        help.starts_with("Rooms booked by tools read from a file."),
        "{help}"
    );
    assert!(!help.contains("toolhost"), "{help}");
    let call = Command::new(host)
        .args(["call", "--no-agent", "book", r#"{"room": 204}"#])
        .output()
        .unwrap();
    assert_eq!(call.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&call.stdout),
        "Error: invalid arguments: missing field \"guests\"\n"
    );
    let (answers, stderr) = common::mcp_exchange(
        host,
        &std::env::temp_dir().join(format!("author-schemas-{}", std::process::id())),
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "schemas", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ],
    );
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "author-schemas");
    assert_eq!(answers[0]["result"]["serverInfo"]["version"], "0.3.0");
    let names: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["book", "ping"]);
    assert!(!stderr.contains("toolhost"), "{stderr}");
}

//! The author's tool, loaded and called as a host does.

use author_crate::BumpTool;
use serde_json::json;
use tool_runtime::{Ctx, Exec, Tool};

fn call(args: serde_json::Value) -> String {
    let mut ctx = Ctx::new();
    ctx.plugin::<BumpTool>().unwrap();
    ctx.tools
        .call("bump", &Exec::new(), &args.to_string())
        .wait()
        .text
}

#[test]
fn constraints_hold_as_the_schema_says() {
    assert_eq!(call(json!({"by": 3})), "+3, page 10");
    assert_eq!(call(json!({"by": 3, "times": 2})), "+6, page 10");
    assert_eq!(
        call(json!({"by": 11})),
        "Error: invalid arguments: by: expected an integer from 1 to 10, got 11"
    );
    assert_eq!(
        call(json!({"by": 1, "times": 4})),
        "Error: invalid arguments: times: expected an integer from 1 to 3, got 4"
    );
    assert_eq!(
        call(json!({"by": 1, "label": "Loud"})),
        r#"Error: invalid arguments: label: expected a string of at most 8 characters matching "^[a-z]+$", got "Loud""#
    );
    assert_eq!(
        call(json!({"by": 1, "options": {"page_size": 5}})),
        r#"Error: invalid arguments: options: unknown field "page_size", expected one of "pageSize", "labels""#
    );
    assert_eq!(
        call(json!({"by": 1, "options": {"labels": ["a", "a"]}})),
        "Error: invalid arguments: options.labels: expected an array of unique items, got item 1 equal to item 0"
    );
    assert_eq!(
        call(json!({"by": 2, "label": "calm", "options": {"pageSize": 5}})),
        "+2 (calm), page 5"
    );
}

#[test]
fn the_schema_says_what_is_enforced() {
    let schema = BumpTool.definition().input_schema();
    assert_eq!(schema["required"], json!(["by"]));
    assert_eq!(schema["properties"]["times"]["maximum"], 3);
    assert_eq!(
        schema["properties"]["options"]["anyOf"][0]["additionalProperties"],
        false
    );
}

#[test]
fn asserting_formats_without_the_runtimes_formats_feature_fails_at_load_saying_so() {
    // This crate depends on tool-runtime without its `formats` feature.
    let error = Ctx::new()
        .plugin::<author_crate::Notify>()
        .map(|_| ())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("asserting formats needs tool-runtime's `formats` feature"),
        "{error}"
    );
}

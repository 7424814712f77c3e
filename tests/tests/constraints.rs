//! The schema is the contract: every validation keyword a tool's schema shows the model is
//! enforced before the tool runs, in the schema's own words, and authors say constraints,
//! renames and defaults on the parameter itself.

// The argument types exist to be parsed and described; the tools never read most of them.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::{Ctx, Exec, Tool, ToolOutput, tool};

/// A count from 1 to 10.
#[derive(Debug, Deserialize, JsonSchema)]
struct Amount(#[schemars(range(min = 1, max = 10))] u64);

/// A score of at most 100, in a type whose own range is wider.
#[derive(Debug, Deserialize, JsonSchema)]
struct Score(#[schemars(range(max = 100))] u8);

/// Paging, without `deny_unknown_fields`: the runtime closes it.
#[derive(Debug, Deserialize, JsonSchema)]
struct Paging {
    #[serde(rename = "pageSize")]
    page_size: Option<u32>,
}

/// Keywords schemars emits only through `extend`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("minProperties" = 1, "maxProperties" = 2, "propertyNames" = {"pattern": "^[a-z]+$"}))]
struct Labels(BTreeMap<String, String>);

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("dependentRequired" = {"from": ["to"]}))]
struct Span {
    from: Option<u32>,
    to: Option<u32>,
}

/// Bumps a counter.
#[allow(clippy::too_many_arguments, reason = "one argument a keyword")]
#[tool(allow_undocumented)]
fn bump(
    by: Amount,
    score: Option<Score>,
    paging: Option<Paging>,
    /// Tags, at most three.
    #[schemars(length(max = 3))]
    tags: Option<Vec<String>>,
    seen: Option<HashSet<String>>,
    #[schemars(extend("multipleOf" = 5))] step: Option<i32>,
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))] ratio: Option<f64>,
    labels: Option<Labels>,
    span: Option<Span>,
    #[schemars(email)] contact: Option<String>,
) -> String {
    let _ = (
        score, paging, tags, seen, step, ratio, labels, span, contact,
    );
    format!("bumped by {}", by.0)
}

fn default_page() -> u32 {
    20
}

/// Lists a page of items.
#[tool]
fn list(
    /// The name to match: lowercase, at most five letters.
    #[schemars(length(max = 5), regex(pattern = r"^[a-z]+$"))]
    name: String,
    /// Items a page.
    #[serde(rename = "pageSize", default = "default_page")]
    #[schemars(range(min = 1, max = 100), example = 20)]
    page_size: u32,
    /// Whether to include archived items.
    #[serde(default)]
    archived: bool,
) -> String {
    format!("{name} {page_size} {archived}")
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.plugin::<Bump>().unwrap().plugin::<List>().unwrap();
    ctx
}

fn call(ctx: &Ctx, tool: &str, args: Value) -> ToolOutput {
    ctx.tools.call(tool, &Exec::new(), &args.to_string()).wait()
}

fn refused(ctx: &Ctx, tool: &str, args: Value) -> String {
    let out = call(ctx, tool, args);
    assert!(out.is_error, "accepted: {}", out.text);
    out.text
        .strip_prefix("Error: invalid arguments: ")
        .unwrap_or(&out.text)
        .to_owned()
}

#[test]
fn the_issues_examples_are_refused_in_the_schemas_words() {
    let ctx = ctx();
    assert_eq!(call(&ctx, "bump", json!({"by": 10})).text, "bumped by 10");
    assert_eq!(
        refused(&ctx, "bump", json!({"by": 11})),
        "by: expected an integer from 1 to 10, got 11"
    );
    assert_eq!(
        refused(&ctx, "bump", json!({"by": 0})),
        "by: expected an integer from 1 to 10, got 0"
    );
    assert_eq!(
        refused(&ctx, "list", json!({"name": "ABCDEFGH"})),
        r#"name: expected a string of at most 5 characters matching "^[a-z]+$", got a string of 8 characters"#
    );
    assert_eq!(
        refused(&ctx, "list", json!({"name": "ABC"})),
        r#"name: expected a string of at most 5 characters matching "^[a-z]+$", got "ABC""#
    );
    assert_eq!(
        refused(&ctx, "bump", json!({"by": 1, "tags": ["a", "b", "c", "d"]})),
        "tags: expected an array of at most 3 items, got an array of 4 items"
    );
    // The words and the acceptance agree: 101 is refused as 300 is.
    for score in [101, 300] {
        assert_eq!(
            refused(&ctx, "bump", json!({"by": 1, "score": score})),
            format!("score: expected an integer from 0 to 100, got {score}")
        );
    }
    assert_eq!(
        call(&ctx, "bump", json!({"by": 1, "score": 100})).text,
        "bumped by 1"
    );
    // A member the schema does not name is refused, never silently dropped.
    assert_eq!(
        refused(&ctx, "bump", json!({"by": 1, "paging": {"page_size": 5}})),
        r#"paging: unknown field "page_size", expected "pageSize""#
    );
    assert_eq!(
        call(&ctx, "bump", json!({"by": 1, "paging": {"pageSize": 5}})).text,
        "bumped by 1"
    );
}

#[test]
fn every_keyword_is_enforced() {
    let ctx = ctx();
    let bump = |extra: Value| {
        let mut args = json!({"by": 1});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        args
    };
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"seen": ["a", "b", "a"]}))),
        "seen: expected an array of unique items, got item 2 equal to item 0"
    );
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"step": 7}))),
        "step: expected an integer from -2147483648 to 2147483647 that is a multiple of 5, got 7"
    );
    assert!(!call(&ctx, "bump", bump(json!({"step": -15}))).is_error);
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"ratio": 1.0}))),
        "ratio: expected a number greater than 0.0 less than 1.0, got 1.0"
    );
    assert!(!call(&ctx, "bump", bump(json!({"ratio": 0.5}))).is_error);
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"labels": {}}))),
        "labels: expected an object of 1 to 2 members, got an object of 0 members"
    );
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"labels": {"Big": "x"}}))),
        r#"labels: member name "Big": expected a value matching "^[a-z]+$", got "Big""#
    );
    assert_eq!(
        refused(&ctx, "bump", bump(json!({"span": {"from": 1}}))),
        r#"span: missing field "to", which "from" requires"#
    );
    assert!(!call(&ctx, "bump", bump(json!({"span": {"to": 1}}))).is_error);
    // `format` is an annotation (JSON Schema 2020-12's default): shown, not asserted, unless
    // the tool asserts formats (below).
    let schema = Bump.definition().input_schema();
    assert_eq!(
        schema["properties"]["contact"]["anyOf"][0]["format"],
        "email"
    );
    assert!(!call(&ctx, "bump", bump(json!({"contact": "not an address"}))).is_error);
}

#[test]
fn parameters_carry_renames_defaults_constraints_and_examples() {
    let ctx = ctx();
    let schema = List.definition().input_schema();
    assert_eq!(
        schema,
        &json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The name to match: lowercase, at most five letters.",
                         "maxLength": 5, "pattern": "^[a-z]+$"},
                "pageSize": {"type": "integer", "description": "Items a page.", "minimum": 1, "maximum": 100,
                             "default": 20, "examples": [20]},
                "archived": {"type": "boolean", "description": "Whether to include archived items.",
                             "default": false}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        call(&ctx, "list", json!({"name": "abc"})).text,
        "abc 20 false"
    );
    assert_eq!(
        call(
            &ctx,
            "list",
            json!({"name": "abc", "pageSize": 5, "archived": true})
        )
        .text,
        "abc 5 true"
    );
    assert_eq!(
        refused(&ctx, "list", json!({"name": "abc", "pageSize": 0})),
        "pageSize: expected an integer from 1 to 100, got 0"
    );
    assert_eq!(
        refused(&ctx, "list", json!({"name": "abc", "page_size": 5})),
        r#"unknown field "page_size", expected one of "name", "pageSize", "archived""#
    );
}

#[test]
fn a_value_the_schema_accepts_is_never_refused() {
    let ctx = ctx();
    let validator = jsonschema::draft202012::new(Bump.definition().input_schema()).unwrap();
    for args in [
        json!({"by": 1, "score": 0, "tags": [], "seen": [], "step": 0, "ratio": 0.25,
               "labels": {"a": "x", "b": "y"}, "span": {"from": 1, "to": 2}, "contact": "a@b.c"}),
        json!({"by": 10.0, "score": 100.0, "step": 1e1}),
        json!({"by": 5, "paging": {}, "span": {}}),
    ] {
        assert!(validator.is_valid(&args), "{args}");
        let out = call(&ctx, "bump", args.clone());
        assert!(!out.is_error, "{args}: {}", out.text);
    }
}

/// How soon.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    /// It can wait.
    Low,
    Normal,
    /// Drop everything.
    High,
}

/// Files a ticket.
#[tool]
fn file_ticket(
    /// The ticket's priority.
    priority: Priority,
    /// The priority it takes later, if another.
    later: Option<Priority>,
) -> String {
    format!("{priority:?} {later:?}")
}

#[test]
fn documented_enum_variants_keep_the_enum_and_reach_the_model_in_its_description() {
    let schema = FileTicket.definition().input_schema();
    // schemars lists the undocumented variants first.
    let variants = "- \"normal\"\n- \"low\": It can wait.\n- \"high\": Drop everything.";
    assert_eq!(
        schema["properties"]["priority"],
        json!({"type": "string", "description": format!("The ticket's priority.\n{variants}"),
               "enum": ["normal", "low", "high"]})
    );
    assert_eq!(
        schema["properties"]["later"]["anyOf"][0],
        json!({"type": "string", "description": format!("How soon.\n{variants}"),
               "enum": ["normal", "low", "high"]})
    );
    let mut ctx = Ctx::new();
    ctx.plugin::<FileTicket>().unwrap();
    assert_eq!(
        call(&ctx, "file_ticket", json!({"priority": "high"})).text,
        "High None"
    );
    assert_eq!(
        refused(&ctx, "file_ticket", json!({"priority": "urgent"})),
        r#"priority: expected one of "normal", "low", "high", got "urgent""#
    );
}

/// A string in a format no checker knows.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("format" = "shoe-size"))]
struct ShoeSize(String);

/// Invites someone.
#[tool(assert_formats)]
fn invite(
    /// Their address.
    #[schemars(email)]
    email: String,
    /// Where their profile is, if anywhere.
    #[schemars(url)]
    profile: Option<String>,
    /// The day of the meeting.
    #[schemars(extend("format" = "date"))]
    day: Option<String>,
    /// How many, in a number format (the type's range; not a string format).
    seats: Option<u8>,
) -> String {
    format!("{email} {profile:?} {day:?} {seats:?}")
}

/// Measures feet.
#[tool(assert_formats)]
fn measure(
    /// The size.
    size: ShoeSize,
) -> String {
    size.0
}

#[test]
fn a_tool_that_asserts_formats_refuses_strings_outside_them() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Invite>().unwrap();
    // The schema the model sees is unchanged by asserting.
    let schema = Invite.definition().input_schema();
    assert_eq!(
        schema["properties"]["email"],
        json!({"type": "string", "format": "email", "description": "Their address."})
    );
    assert_eq!(
        call(&ctx, "invite", json!({"email": "ada@example.com", "profile": "https://example.com/ada", "day": "2026-12-03", "seats": 3})).text,
        r#"ada@example.com Some("https://example.com/ada") Some("2026-12-03") Some(3)"#
    );
    assert_eq!(
        refused(&ctx, "invite", json!({"email": "not an address"})),
        r#"email: expected a string in the format "email", got "not an address""#
    );
    // Under a union (an `Option`) too.
    assert_eq!(
        refused(
            &ctx,
            "invite",
            json!({"email": "a@b.c", "profile": "no scheme"})
        ),
        r#"profile: expected a string or null in the format "uri", got "no scheme""#
    );
    assert_eq!(
        refused(
            &ctx,
            "invite",
            json!({"email": "a@b.c", "day": "2026-02-30"})
        ),
        r#"day: expected a string or null in the format "date", got "2026-02-30""#
    );
    assert!(!call(&ctx, "invite", json!({"email": "a@b.c", "profile": null})).is_error);
}

#[test]
fn a_format_no_checker_knows_fails_the_tool_at_load_naming_it() {
    let error = Ctx::new().plugin::<Measure>().map(|_| ()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains(r#"format "shoe-size" is not one this runtime can assert"#),
        "{error}"
    );
}

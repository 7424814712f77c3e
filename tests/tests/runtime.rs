//! The runtime through tools written with `#[tool]`: dispatch, errors, plugins, services, sessions.

use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::{
    Agent, Ctx, Exec, LoadError, Service, ServiceKey, Session, Tool, ToolError, ToolOutput, tool,
};

/// Where to look.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// A city name.
    pub city: String,
    /// Metres above sea level.
    pub altitude: Option<u16>,
}

/// How precise to be.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Whole degrees.
    Low,
    /// Tenths of a degree.
    High,
}

/// Reports the weather.
/// Second line.
#[tool]
pub fn weather(
    /// The place.
    place: Place,
    /// How precise.
    precision: Option<Precision>,
    /// How many days ahead, 0 to 7.
    days: u8,
) -> String {
    format!("{} {:?} {days} {:?}", place.city, precision, place.altitude)
}

/// Counts calls, in a host service.
#[derive(Default)]
pub struct Counter(AtomicUsize);

/// Counts a call.
#[tool]
fn count(counter: Service<Counter>, exec: &Exec) -> String {
    let n = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{n} {}", exec.call_id.as_deref().unwrap_or("-"))
}

/// Waits, then echoes.
#[tool(allow_undocumented)]
async fn echo(agent: Option<Agent>, text: String) -> Result<String, ToolError> {
    std::future::ready(()).await;
    match agent {
        Some(agent) => Ok(format!("{}: {text}", agent.id())),
        None => Err(ToolError::new("nobody to echo for")),
    }
}

/// Panics.
#[tool(allow_undocumented)]
fn explode(message: String) -> String {
    panic!("{message}")
}

/// Panics after an await.
#[tool]
async fn explode_later() -> String {
    std::future::ready(()).await;
    panic!("later")
}

fn ctx() -> Ctx {
    let mut ctx = Ctx::new();
    ctx.provide(Counter::default());
    ctx.plugin::<Weather>().unwrap();
    ctx.plugin::<Count>().unwrap();
    ctx.plugin::<Echo>().unwrap();
    ctx.plugin::<Explode>().unwrap();
    ctx.plugin::<ExplodeLater>().unwrap();
    ctx
}

fn call(ctx: &Ctx, name: &str, args: &str) -> ToolOutput {
    ctx.tools.call(name, &Exec::new(), args).wait()
}

#[test]
fn nested_optional_and_enum_arguments_reach_the_schema_and_the_function() {
    let schema = Weather.definition().input_schema().clone();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "place": {
                    "type": "object",
                    "description": "The place.",
                    "properties": {
                        "city": {"type": "string", "description": "A city name."},
                        "altitude": {"description": "Metres above sea level.", "anyOf": [
                            {"type": "integer", "minimum": 0, "maximum": 65535},
                            {"type": "null"}
                        ]}
                    },
                    "required": ["city"],
                    "additionalProperties": false
                },
                "precision": {
                    "description": "How precise.",
                    "anyOf": [
                        // The variants' docs join the enum's description; it stays an enum.
                        {"type": "string",
                         "description": "How precise to be.\n- \"low\": Whole degrees.\n- \"high\": Tenths of a degree.",
                         "enum": ["low", "high"]},
                        {"type": "null"}
                    ]
                },
                "days": {"type": "integer", "description": "How many days ahead, 0 to 7.", "minimum": 0, "maximum": 255}
            },
            "required": ["place", "days"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        Weather.definition().description(),
        "Reports the weather.\nSecond line."
    );
    let ctx = ctx();
    let out = call(&ctx, "weather", r#"{"place": {"city": "Oslo"}, "days": 2}"#);
    assert_eq!(out, ToolOutput::success("Oslo None 2 None"));
    let out = call(
        &ctx,
        "weather",
        r#"{"days": 2, "precision": "high", "place": {"city": "Oslo", "altitude": 23}}"#,
    );
    assert_eq!(out, ToolOutput::success("Oslo Some(High) 2 Some(23)"));
    let out = call(
        &ctx,
        "weather",
        r#"{"place": {"city": "Oslo"}, "days": 2, "precision": null}"#,
    );
    assert_eq!(out, ToolOutput::success("Oslo None 2 None"));
}

#[test]
fn argument_errors_use_the_schema_words() {
    let ctx = ctx();
    let cases = [
        (
            r#"{"place": {"city": "Oslo"}, "days": 300}"#,
            "days: expected an integer from 0 to 255, got 300",
        ),
        (
            r#"{"place": {"city": "Oslo"}, "days": -1}"#,
            "days: expected an integer from 0 to 255, got -1",
        ),
        (
            r#"{"place": {"city": "Oslo"}, "days": 1.5}"#,
            "days: expected an integer from 0 to 255, got 1.5",
        ),
        (
            r#"{"place": {"city": "Oslo", "altitude": "high"}, "days": 1}"#,
            r#"place.altitude: expected an integer from 0 to 65535 or null, got "high""#,
        ),
        (
            r#"{"place": {"city": "Oslo"}, "days": 1, "precision": "max"}"#,
            r#"precision: expected one of "low", "high", got "max""#,
        ),
        (
            r#"{"place": {"city": "Oslo"}, "days": 1, "precision": 5}"#,
            r#"precision: expected "low" or "high" or null, got 5"#,
        ),
        (
            r#"{"place": "Oslo", "days": 1}"#,
            r#"place: expected an object, got "Oslo""#,
        ),
        (
            r#"{"place": {"city": "Oslo"}, "days": 1, "days": 2}"#,
            "duplicate field `days`",
        ),
    ];
    for (args, problem) in cases {
        let out = call(&ctx, "weather", args);
        assert_eq!(
            out,
            ToolOutput::error(format!("invalid arguments: {problem}")),
            "{args}"
        );
    }
}

// Regression, found by fuzzing: with a key given twice, the parser fails on the first value while
// a JSON value keeps the second, so the schema sees nothing wrong and the deserializer's own
// message is given; that message quoted the model's string raw, newlines and all.
#[test]
fn the_deserializers_own_messages_stay_on_one_line() {
    let ctx = ctx();
    let args = format!(
        r#"{{"place": {{"city": "Oslo"}}, "days": 1, "precision": "fast\n\r{}", "precision": "low"}}"#,
        "x".repeat(300)
    );
    let out = call(&ctx, "weather", &args);
    assert!(out.is_error);
    assert!(!out.text.contains(['\n', '\r']), "{:?}", out.text);
    assert!(
        out.text
            .starts_with(r"Error: invalid arguments: precision: unknown variant `fast\n\r"),
        "{:?}",
        out.text
    );
    assert!(out.text.chars().count() < 260, "{}", out.text.len());
}

#[test]
fn integers_written_with_a_fraction_or_exponent_are_integers() {
    let ctx = ctx();
    let out = call(
        &ctx,
        "weather",
        r#"{"place": {"city": "Oslo", "altitude": 1e2}, "days": 2.0}"#,
    );
    assert_eq!(out, ToolOutput::success("Oslo None 2 Some(100)"));
    let out = call(
        &ctx,
        "weather",
        r#"{"place": {"city": "Oslo"}, "days": 1e3}"#,
    );
    assert_eq!(
        out,
        ToolOutput::error("invalid arguments: days: expected an integer from 0 to 255, got 1000.0")
    );
}

/// Writes to its agent's session, which it must have.
#[tool(allow_undocumented)]
fn stamp(agent: Agent) -> String {
    agent.id().to_owned()
}

#[test]
fn a_tool_says_whether_its_calls_need_an_agent_session() {
    let mut ctx = ctx();
    ctx.plugin::<Stamp>().unwrap();
    let needs = |name: &str| ctx.tools.get(name).unwrap().definition().requires_agent();
    // An `Agent` parameter needs one; an `Option<Agent>`, services, `&Exec` and plain
    // arguments do not, so a host may run such a call without a session.
    assert!(needs("stamp"));
    for name in ["weather", "count", "echo", "explode"] {
        assert!(!needs(name), "{name}");
    }
    // todo_write keeps its list in its agent's session.
    assert!(tool_todo::TodoWrite.definition().requires_agent());
}

/// Blocks, and says so.
#[tool(blocking, allow_undocumented)]
fn wait_a_moment() -> String {
    std::thread::sleep(std::time::Duration::from_millis(1));
    "waited".to_owned()
}

#[test]
fn a_tool_says_whether_its_call_runs_on_its_callers_thread() {
    let mut ctx = ctx();
    ctx.plugin::<Stamp>().unwrap();
    ctx.plugin::<WaitAMoment>().unwrap();
    let synchronous = |name: &str| ctx.tools.get(name).unwrap().definition().synchronous();
    // A plain `fn` runs inside the call; an `async fn` yields, and a `blocking` one runs on a
    // blocking thread of its own: a host moves only the first off its executor.
    for name in ["stamp", "count", "explode"] {
        assert!(synchronous(name), "{name}");
    }
    for name in ["echo", "explode_later", "wait_a_moment"] {
        assert!(!synchronous(name), "{name}");
    }
    assert!(tool_todo::TodoWrite.definition().synchronous());
}

#[test]
fn unknown_tools_name_the_tools_that_exist() {
    let out = call(&ctx(), "wether", "{}");
    assert_eq!(
        out,
        ToolOutput::error(
            r#"unknown tool "wether"; available tools: weather, count, echo, explode, explode_later"#
        )
    );
    let out = call(&Ctx::new(), "a\nb", "{}");
    assert_eq!(
        out,
        ToolOutput::error(r#"unknown tool "a\nb"; available tools: none"#)
    );
}

#[test]
fn oversized_arguments_are_refused_before_parsing() {
    let mut ctx = ctx();
    ctx.tools.set_max_args_bytes(64);
    let args = format!(r#"{{"text": "{}"}}"#, "x".repeat(100));
    let out = call(&ctx, "echo", &args);
    assert_eq!(
        out,
        ToolOutput::error("invalid arguments: 112 bytes is more than the limit of 64 bytes")
    );
    // At the cap itself the call goes through.
    let args = format!(r#"{{"text": "{}"}}"#, "x".repeat(52));
    assert_eq!(args.len(), 64);
    let exec = Exec::for_agent(Agent::new("a1", Session::in_memory()));
    let out = ctx.tools.call("echo", &exec, &args).wait();
    assert_eq!(out, ToolOutput::success(format!("a1: {}", "x".repeat(52))));
}

#[test]
fn a_panic_inside_a_tool_is_an_error_text() {
    let ctx = ctx();
    assert_eq!(
        call(&ctx, "explode", r#"{"message": "boom"}"#),
        ToolOutput::error("explode panicked: boom")
    );
    assert_eq!(
        call(&ctx, "explode_later", "{}"),
        ToolOutput::error("explode_later panicked: later")
    );
    // The host goes on serving.
    assert_eq!(call(&ctx, "count", "{}"), ToolOutput::success("1 -"));
}

#[test]
fn async_tools_run_and_may_take_an_optional_agent() {
    let ctx = ctx();
    let agent = Agent::new("a1", Session::in_memory());
    let out = ctx
        .tools
        .call("echo", &Exec::for_agent(agent), r#"{"text": "hi"}"#)
        .wait();
    assert_eq!(out, ToolOutput::success("a1: hi"));
    assert_eq!(
        call(&ctx, "echo", r#"{"text": "hi"}"#),
        ToolOutput::error("nobody to echo for")
    );
}

#[tokio::test]
async fn async_hosts_await_calls() {
    let ctx = ctx();
    let exec = Exec::new().with_call_id("c7");
    assert_eq!(
        ctx.tools.call("count", &exec, "{}").await,
        ToolOutput::success("1 c7")
    );
}

#[test]
fn tools_without_model_arguments_take_an_empty_object_only() {
    let ctx = ctx();
    assert_eq!(
        Count.definition().input_schema(),
        &json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert_eq!(call(&ctx, "count", "{}"), ToolOutput::success("1 -"));
    assert_eq!(
        call(&ctx, "count", r#"{"n": 1}"#),
        ToolOutput::error(r#"invalid arguments: unknown field "n", expected no fields"#)
    );
    assert_eq!(
        call(&ctx, "count", "null"),
        ToolOutput::error("invalid arguments: expected an object, got null")
    );
}

#[test]
fn plugins_inject_host_services_checked_at_load_time() {
    assert_eq!(
        <Count as tool_runtime::Plugin>::INJECT,
        &[ServiceKey::of::<Counter>()]
    );
    let mut ctx = Ctx::new();
    let error = ctx.plugin::<Count>().unwrap_err();
    assert_eq!(
        error,
        LoadError::MissingService {
            plugin: "count",
            service: std::any::type_name::<Counter>()
        }
    );
    assert_eq!(
        error.to_string(),
        "plugin `count` needs the host service `runtime::Counter`, which this host does not provide"
    );
    assert_eq!(ctx.tools.names().count(), 0);
}

#[test]
fn a_tool_registered_without_its_service_fails_the_call_not_the_host() {
    let mut ctx = Ctx::new();
    ctx.tools.register(Count).unwrap();
    assert_eq!(
        call(&ctx, "count", "{}"),
        ToolOutput::error(
            "count needs the host service `runtime::Counter`, which this host does not provide"
        )
    );
}

#[test]
fn loading_two_tools_of_one_name_is_an_error() {
    let mut ctx = ctx();
    let error = ctx.plugin::<Weather>().unwrap_err();
    // Both origins are named: the plugin loaded first, and the one that came again.
    assert_eq!(
        error,
        LoadError::DuplicateTool {
            name: "weather".into(),
            loaded: "plugin `runtime::Weather`".into(),
            again: "plugin `runtime::Weather`".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "a tool named `weather` is already loaded, from plugin `runtime::Weather`; plugin \
         `runtime::Weather` cannot load another"
    );
}

#[test]
fn definitions_are_computed_once_and_serialize_the_same_every_time() {
    let first = Weather.definition() as *const _;
    let second = Weather.definition() as *const _;
    assert_eq!(first, second);
    let ctx = ctx();
    // A definition built afresh from the same parts renders the same bytes in every dialect as
    // the cached one: rendering depends on nothing but the definition.
    for cached in ctx.tools.definitions() {
        let fresh = tool_runtime::Definition::new(
            cached.name().to_owned(),
            cached.description().to_owned(),
            cached.input_schema().clone(),
        );
        for dialect in tool_runtime::Dialect::ALL {
            assert_eq!(
                fresh.json(dialect).ok(),
                cached.json(dialect).ok(),
                "{dialect:?}"
            );
        }
        assert_eq!(fresh.to_json().to_string(), cached.to_json().to_string());
    }
    let names: Vec<&str> = ctx.tools.names().collect();
    assert_eq!(
        names,
        ["weather", "count", "echo", "explode", "explode_later"]
    );
    // No keywords a provider might refuse.
    for definition in ctx.tools.definitions() {
        let text = definition.input_schema().to_string();
        for keyword in ["$schema", "$ref", "$defs", "title", "format"] {
            assert!(!text.contains(keyword), "{keyword} in {text}");
        }
    }
}

#[test]
fn subscribers_see_events_in_order_and_catch_up_from_the_log_when_behind() {
    let session = Session::in_memory();
    session.append("x/early", &0).unwrap();
    let mut from_start = session.subscribe_from(1);
    let mut live = session.subscribe();
    // Far more than the live buffer holds, so `live` falls behind and must read the log.
    let total = 3000u64;
    for i in 1..total {
        session.append("x/n", &i).unwrap();
    }
    let mut seen = Vec::new();
    while let Some(event) = live.try_next().unwrap() {
        seen.push(event.seq);
    }
    assert_eq!(seen, (2..=total).collect::<Vec<_>>());
    let mut seen = Vec::new();
    while let Some(event) = from_start.try_next().unwrap() {
        seen.push(event.data::<Value>().unwrap());
    }
    assert_eq!(seen.len() as u64, total);
    assert_eq!(seen[0], json!(0));
    assert_eq!(seen[2999], json!(2999));
}

#[test]
fn the_model_cannot_name_a_session() {
    // `session` is not an argument of any tool: the runtime refuses it as an unknown field.
    let ctx = ctx();
    let out = call(&ctx, "echo", r#"{"text": "hi", "session": "agent-2"}"#);
    assert_eq!(
        out,
        ToolOutput::error(r#"invalid arguments: unknown field "session", expected "text""#)
    );
}

/// A title of an even length: a rule only the type knows, the schema says "a string".
#[derive(Debug)]
pub struct EvenTitle(String);

impl<'de> Deserialize<'de> for EvenTitle {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let title = String::deserialize(deserializer)?;
        match title.chars().count() % 2 {
            0 => Ok(EvenTitle(title)),
            _ => Err(serde::de::Error::custom(format!(
                "`{title}` has an odd number of characters"
            ))),
        }
    }
}

impl JsonSchema for EvenTitle {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EvenTitle".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

/// A book.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Book {
    /// Its title.
    pub title: EvenTitle,
}

/// Shelves books.
#[tool]
pub fn shelve(
    /// The books, by shelf name.
    shelves: std::collections::BTreeMap<String, Vec<Book>>,
) -> String {
    let titles: Vec<&str> = shelves
        .values()
        .flatten()
        .map(|book| book.title.0.as_str())
        .collect();
    titles.join(", ")
}

#[test]
fn a_refusal_only_the_types_know_names_the_value_it_came_from() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Shelve>().unwrap();
    assert_eq!(
        call(
            &ctx,
            "shelve",
            r#"{"shelves": {"top": [{"title": "ab"}, {"title": "éé"}]}}"#
        ),
        ToolOutput::success("ab, éé")
    );
    // The schema accepts every title; the type's own words say why this one is refused, and
    // where: the path of the value its parse failed in.
    assert_eq!(
        call(
            &ctx,
            "shelve",
            r#"{"shelves": {"top": [{"title": "ab"}], "low\"er": [{"title": "ab"}, {"title": "abc"}]}}"#
        ),
        ToolOutput::error(
            r#"invalid arguments: shelves.low"er[1].title: `abc` has an odd number of characters"#
        )
    );
}

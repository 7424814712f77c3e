//! Tools defined at run time from a JSON schema keep the contract of `#[tool]` functions: their
//! schema is checked when they are built, a model's bad arguments get the same texts a macro
//! tool's get, and hosts load them beside plugins.

use std::time::Duration;

use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, Dialect, DynamicTool, Exec, LoadError, Session, Tool, ToolError};
use tool_todo::TodoWrite;

/// todo_write's own schema and description, served by a runtime-defined tool that records the
/// list as todo_write does.
fn todo_write_at_run_time() -> DynamicTool {
    let definition = TodoWrite.definition();
    DynamicTool::builder(
        "todo_write",
        definition.description(),
        definition.input_schema().clone(),
    )
    .handler(|call, args: Value| -> Result<String, ToolError> {
        let agent = call.require_agent()?;
        agent
            .session()
            .append("todo/write", &args)
            .map_err(|error| ToolError::new(error.to_string()))?;
        Ok("recorded".to_owned())
    })
    .unwrap()
}

#[test]
fn bad_arguments_get_the_texts_a_macro_tool_gives() {
    let mut macro_ctx = Ctx::new();
    macro_ctx.plugin::<TodoWrite>().unwrap();
    let mut dynamic_ctx = Ctx::new();
    dynamic_ctx.tool(todo_write_at_run_time()).unwrap();
    let exec = Exec::for_agent(Agent::new("a", Session::in_memory()));
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let cases = [
        r#"{"todos": 5}"#.to_owned(),
        r#"{"todos": [{"content": "a", "status": "done"}]}"#.to_owned(),
        r#"{"todos": [{"content": "a"}]}"#.to_owned(),
        r#"{}"#.to_owned(),
        r#"{"todos": [], "session": "other"}"#.to_owned(),
        r#"{"todos": [], "todos": []}"#.to_owned(),
        r#"{"todos": [{"content": "a", "content": "b", "status": "pending"}]}"#.to_owned(),
        r#"{"todos": [1e400]}"#.to_owned(),
        r#"{"todos": [{"content": "\ud800", "status": "pending"}]}"#.to_owned(),
        r#"{"todos": "#.to_owned(),
        "not json".to_owned(),
        format!(r#"{{"todos": {deep}}}"#),
        "x".repeat(2 << 20),
    ];
    // A handler of the text gets it checked as it is read, and the same refusals.
    let definition = TodoWrite.definition();
    let text_tool = DynamicTool::builder(
        "todo_write",
        definition.description(),
        definition.input_schema().clone(),
    )
    .raw_handler(|_, args: &str| format!("read {args}"))
    .unwrap();
    let mut text_ctx = Ctx::new();
    text_ctx.tool(text_tool).unwrap();
    for args in &cases {
        let expected = macro_ctx.tools.call("todo_write", &exec, args).wait();
        let got = dynamic_ctx.tools.call("todo_write", &exec, args).wait();
        assert!(expected.is_error, "{args:.80}");
        assert_eq!(got, expected, "{args:.80}");
        let got = text_ctx.tools.call("todo_write", &exec, args).wait();
        assert_eq!(got, expected, "{args:.80}");
    }
    let args = r#"{"todos": [{"content": "a", "status": "pending"}, {"status": "completed",
        "content": "b\u0063"}]}"#;
    let out = text_ctx.tools.call("todo_write", &exec, args).wait();
    assert_eq!(out.text, format!("read {args}"));
    // Good arguments reach the handler, parsed.
    let out = dynamic_ctx
        .tools
        .call("todo_write", &exec, r#"{"todos": []}"#)
        .wait();
    assert_eq!(out.text, "recorded");
    // The handler's context: a call with no agent is refused as todo_write refuses it.
    let out = dynamic_ctx
        .tools
        .call("todo_write", &Exec::new(), r#"{"todos": []}"#)
        .wait();
    assert_eq!(
        out.text,
        "Error: todo_write requires an owning agent session"
    );
}

#[test]
fn what_the_runtime_cannot_enforce_is_refused_when_the_tool_is_built() {
    let build = |schema: Value| {
        DynamicTool::builder("probe", "Probes.", schema)
            .handler(|_, _| "ok")
            .unwrap_err()
    };
    let reason = |error: LoadError| match error {
        LoadError::Schema { tool, reason } => {
            assert_eq!(tool, "probe");
            reason
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        reason(build(json!({"type": "object", "properties": {
            "a": {"type": "string", "if": {"minLength": 2}, "then": {"maxLength": 3}}}}))),
        "`if` at arguments.a is a keyword the runtime does not enforce"
    );
    assert_eq!(
        reason(build(json!({"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "object", "patternProperties": {}}}}}))),
        "`patternProperties` at arguments.list is a keyword the runtime does not enforce"
    );
    assert!(
        reason(build(json!({"type": "object", "properties": {
            "a": {"type": "string", "pattern": "(?=x)x"}}})))
        .contains("(?=x)x"),
    );
    assert!(
        reason(build(json!({"type": "object", "properties": {
            "a": {"type": "string", "format": "colour"}}})))
        .starts_with("the format \"colour\" at arguments.a is not one the runtime knows"),
    );
    assert_eq!(
        reason(build(json!({"type": "array"}))),
        "the input schema must be an object's (`\"type\": \"object\"`)"
    );
    let error = DynamicTool::builder("not a name", "x", json!({"type": "object"}))
        .handler(|_, _| "ok")
        .unwrap_err();
    assert!(error.to_string().contains("is not a tool name"), "{error}");
}

#[test]
fn the_host_s_dialects_apply_and_names_are_one_each() {
    let map = || {
        DynamicTool::builder(
            "tag",
            "Tags.",
            json!({"type": "object", "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}),
        )
        .handler(|_, args: Value| args.to_string())
        .unwrap()
    };
    let mut ctx = Ctx::new();
    ctx.tools
        .require_dialects(&[Dialect::OpenAiStrict])
        .unwrap();
    assert!(matches!(
        ctx.tool(map()).unwrap_err(),
        LoadError::Dialect(ref error) if error.tool == "tag"
    ));
    let mut ctx = Ctx::new();
    ctx.tool(map()).unwrap();
    assert!(matches!(
        ctx.tool(map()).unwrap_err(),
        LoadError::DuplicateTool { ref name, ref loaded, ref again }
            if name == "tag"
                && loaded == "tool `tool_runtime::dynamic::DynamicTool`"
                && again == loaded
    ));
    // A plugin and a tool value of one name: the refusal names both.
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>().unwrap();
    let impostor = DynamicTool::builder("todo_write", "Writes.", json!({"type": "object"}))
        .handler(|_, args: Value| args.to_string())
        .unwrap();
    assert_eq!(
        ctx.tool(impostor).unwrap_err().to_string(),
        "a tool named `todo_write` is already loaded, from plugin `tool_todo::TodoWrite`; tool \
         `tool_runtime::dynamic::DynamicTool` cannot load another"
    );
    // A host takes tool values beside plugins.
    let ctx = tool_host::Host::new("mixed")
        .plugin::<TodoWrite>()
        .tool(map())
        .ctx()
        .unwrap();
    assert_eq!(ctx.tools.names().collect::<Vec<_>>(), ["todo_write", "tag"]);
}

#[test]
fn a_synchronous_handler_makes_a_synchronous_tool() {
    let schema = json!({"type": "object"});
    let sync = DynamicTool::builder("sync", "Answers.", schema.clone())
        .handler(|_, _: Value| "done")
        .unwrap();
    let raw = DynamicTool::builder("raw", "Answers.", schema.clone())
        .raw_handler(|_, _: &str| "done")
        .unwrap();
    let later = DynamicTool::builder("later", "Answers.", schema)
        .async_handler(|_, _: Value| async { "done" })
        .unwrap();
    assert!(sync.definition().synchronous());
    assert!(raw.definition().synchronous());
    assert!(!later.definition().synchronous());
}

#[test]
fn raw_and_async_handlers_and_deadlines() {
    let echo = DynamicTool::builder(
        "echo",
        "Echoes its arguments' text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
    .raw_handler(|_, args: &str| args.to_owned())
    .unwrap();
    let wait = DynamicTool::builder(
        "wait",
        "Waits.",
        json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}},
               "required": ["ms"]}),
    )
    .timeout(Duration::from_millis(200))
    .async_handler(|call, args: Value| async move {
        let ms = args["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("{} waited {ms} ms", call.tool())
    })
    .unwrap();
    let mut ctx = Ctx::new();
    ctx.tool(echo).unwrap().tool(wait).unwrap();
    // The raw text, as the model sent it, once it passed the schema.
    let args = r#"{ "text" : "a\u0062c" }"#;
    assert_eq!(ctx.tools.call("echo", &Exec::new(), args).wait().text, args);
    assert_eq!(
        ctx.tools
            .call("echo", &Exec::new(), r#"{"text": 1}"#)
            .wait()
            .text,
        "Error: invalid arguments: text: expected a string, got 1"
    );
    assert_eq!(
        ctx.tools
            .call("wait", &Exec::new(), r#"{"ms": 5}"#)
            .wait()
            .text,
        "wait waited 5 ms"
    );
    assert_eq!(
        ctx.tools
            .call("wait", &Exec::new(), r#"{"ms": 5000}"#)
            .wait()
            .text,
        "Error: wait timed out after 200 ms"
    );
    assert_eq!(
        ctx.tools
            .call("wait", &Exec::new(), r#"{"ms": -1}"#)
            .wait()
            .text,
        "Error: invalid arguments: ms: expected an integer of at least 0, got -1"
    );
}

#[test]
fn a_source_names_where_a_tool_came_from_in_a_refusal() {
    let tool = |source: &str| {
        DynamicTool::builder("lookup", "Looks up.", json!({"type": "object"}))
            .source(source)
            .handler(|_, args: Value| args.to_string())
            .unwrap()
    };
    let mut ctx = Ctx::new();
    ctx.tool(tool("MCP server `files`")).unwrap();
    assert_eq!(
        ctx.tool(tool("MCP server `search`"))
            .unwrap_err()
            .to_string(),
        "a tool named `lookup` is already loaded, from MCP server `files`; MCP server `search` \
         cannot load another"
    );
    // A registry's copy shares its tools and takes more, the original untouched.
    let mut more = ctx.tools.clone();
    let other = DynamicTool::builder("other", "Other.", json!({"type": "object"}))
        .handler(|_, _| "other")
        .unwrap();
    more.register(other).unwrap();
    assert_eq!(more.names().collect::<Vec<_>>(), ["lookup", "other"]);
    assert_eq!(ctx.tools.names().collect::<Vec<_>>(), ["lookup"]);
    assert!(more.register(tool("again")).is_err());
}

/// A schema as pydantic writes a nested model (the Python MCP SDK's tools): `$defs` and
/// `$ref`, which the runtime inlines and then enforces as any other keyword.
#[test]
fn references_to_the_schema_s_own_definitions_are_inlined_and_enforced() {
    let tool = DynamicTool::builder(
        "plan",
        "Plans.",
        json!({
            "$defs": {"Todo": {
                "properties": {
                    "content": {"title": "Content", "type": "string", "minLength": 1},
                    "status": {"enum": ["pending", "done"], "title": "Status", "type": "string"}},
                "required": ["content", "status"],
                "title": "Todo",
                "type": "object"}},
            "properties": {
                "todos": {"items": {"$ref": "#/$defs/Todo"}, "title": "Todos", "type": "array"},
                "first": {"$ref": "#/$defs/Todo", "description": "The first."}},
            "required": ["todos"],
            "title": "planArguments",
            "type": "object"
        }),
    )
    .handler(|_, args: Value| args["todos"].as_array().map_or(0, Vec::len).to_string())
    .unwrap();
    let schema = tool.definition().input_schema().to_string();
    assert!(
        !schema.contains("$ref") && !schema.contains("$defs"),
        "{schema}"
    );
    assert_eq!(
        tool.definition().input_schema()["properties"]["first"]["description"],
        "The first."
    );
    let mut ctx = Ctx::new();
    ctx.tool(tool).unwrap();
    let call = |args: &str| ctx.tools.call("plan", &Exec::new(), args).wait().text;
    assert_eq!(
        call(r#"{"todos": [{"content": "a", "status": "pending"}]}"#),
        "1"
    );
    assert_eq!(
        call(r#"{"todos": [{"content": "a", "status": "later"}]}"#),
        "Error: invalid arguments: todos[0].status: expected one of \"pending\", \"done\", got \
         \"later\""
    );
    // A recursive type, a reference elsewhere and a definition bomb are refused at build.
    let refused = |schema: Value| {
        DynamicTool::builder("tree", "Trees.", schema)
            .handler(|_, _| "ok")
            .unwrap_err()
            .to_string()
    };
    let recursive = refused(json!({
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
        "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}}));
    assert!(
        recursive.contains("the recursive type `Node`"),
        "{recursive}"
    );
    let elsewhere = refused(json!({
        "type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}));
    assert!(
        elsewhere.contains("is not to one of the schema's own"),
        "{elsewhere}"
    );
    let mut defs = serde_json::Map::new();
    defs.insert("D0".into(), json!({"type": "string"}));
    for level in 1..24 {
        let below = format!("#/$defs/D{}", level - 1);
        defs.insert(
            format!("D{level}"),
            json!({"type": "object", "properties": {"a": {"$ref": below}, "b": {"$ref": below}}}),
        );
    }
    let bomb = refused(json!({"$defs": defs, "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D23"}}}));
    assert!(bomb.contains("more than 4096 references"), "{bomb}");
}

#[test]
fn an_unchecked_tool_shows_its_schema_as_written_and_checks_only_for_an_object() {
    let schema = json!({"type": "object", "properties": {"kind": {"type": "string"}},
        "if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["kind"]}});
    assert!(
        DynamicTool::builder("cond", "Conditional.", schema.clone())
            .handler(|_, _| "ok")
            .is_err()
    );
    let tool = DynamicTool::builder("cond", "Conditional.", schema.clone())
        .unchecked()
        .handler(|_, args: Value| args.to_string())
        .unwrap();
    assert!(tool.definition().input_schema().get("if").is_some());
    // To MCP clients byte for byte, `$schema` and `$defs` kept; to providers normalized.
    let written = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "$defs": {"k": {"type": "string"}},
        "properties": {"kind": {"$ref": "#/$defs/k"}}, "title": "Kinds"});
    let shown = DynamicTool::builder("kinds", "Kinds.", written.clone())
        .unchecked()
        .handler(|_, _| "ok")
        .unwrap();
    let mcp = shown
        .definition()
        .render(tool_runtime::Dialect::Mcp)
        .unwrap();
    assert_eq!(mcp["inputSchema"], written);
    let anthropic = shown
        .definition()
        .render(tool_runtime::Dialect::Anthropic)
        .unwrap();
    assert_eq!(
        anthropic["input_schema"],
        json!({"type": "object", "properties": {"kind": {"type": "string"}}})
    );
    let shared = std::sync::Arc::new(tool);
    // A handler of the text is held to the same: an object, each member named once.
    let text = DynamicTool::builder("cond_text", "Conditional.", schema)
        .unchecked()
        .raw_handler(|_, args: &str| args.to_owned())
        .unwrap();
    let mut ctx = Ctx::new();
    ctx.tool(std::sync::Arc::clone(&shared)).unwrap();
    ctx.tool(text).unwrap();
    let call = |args: &str| ctx.tools.call("cond", &Exec::new(), args).wait().text;
    assert_eq!(call(r#"{"kind": 7}"#), r#"{"kind":7}"#);
    assert_eq!(
        call("[1]"),
        "Error: invalid arguments: expected an object, got an array"
    );
    let text_call = |args: &str| ctx.tools.call("cond_text", &Exec::new(), args).wait().text;
    assert_eq!(text_call(r#"{"kind": 7}"#), r#"{"kind": 7}"#);
    for args in ["[1]", r#"{"a": {"b": 1, "b": 2}}"#, "{", "7"] {
        assert!(call(args).starts_with("Error: "), "{args}");
        assert_eq!(text_call(args), call(args), "{args}");
    }
}

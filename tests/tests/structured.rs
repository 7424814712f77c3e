//! Tools that return data: the model reads its compact JSON, hosts get the value and its schema,
//! and MCP's outputSchema and structuredContent always agree (checked with the `jsonschema`
//! crate on the rendered MCP entry).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tool_runtime::{Ctx, Dialect, Exec, Tool, ToolError, ToolOutput, tool};

/// The weather at a place.
#[derive(Serialize, JsonSchema)]
struct Weather {
    /// The city.
    city: String,
    /// Degrees Celsius.
    temp_c: f64,
    /// What it is like.
    tags: Vec<String>,
}

/// Tells the weather.
#[tool(type_name = "WeatherTool")]
fn weather(
    /// The city.
    city: String,
) -> Result<Weather, ToolError> {
    if city.is_empty() {
        return Err(ToolError::new("which city?"));
    }
    Ok(Weather {
        city,
        temp_c: 21.5,
        tags: vec!["sunny".into()],
    })
}

/// Lists the first primes.
#[tool]
async fn primes(
    /// How many.
    count: usize,
) -> Vec<u32> {
    [2, 3, 5, 7, 11].into_iter().take(count).collect()
}

/// Says hello.
#[tool]
fn hello(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn call(ctx: &Ctx, tool: &str, args: Value) -> ToolOutput {
    ctx.tools.call(tool, &Exec::new(), &args.to_string()).wait()
}

/// MCP's entry and a result's structuredContent, checked as an MCP client checks them.
fn mcp_agrees(tool: &dyn Tool, output: &ToolOutput) -> Value {
    let entry = tool.definition().render(Dialect::Mcp).unwrap().clone();
    let schema = &entry["outputSchema"];
    assert_eq!(schema["type"], "object", "MCP requires an object: {schema}");
    let content = tool
        .definition()
        .mcp_structured_content(&output.data().unwrap());
    let validator = jsonschema::draft202012::new(schema).unwrap();
    assert!(validator.is_valid(&content), "{content} against {schema}");
    content
}

#[test]
fn a_struct_is_the_result_its_json_the_text_its_schema_the_output_schema() {
    let mut ctx = Ctx::new();
    ctx.plugin::<WeatherTool>()
        .unwrap()
        .plugin::<Primes>()
        .unwrap()
        .plugin::<Hello>()
        .unwrap();
    let out = call(&ctx, "weather", json!({"city": "Oslo"}));
    // Keys in the struct's order, compact: the same bytes on every call.
    assert_eq!(
        out.text,
        r#"{"city":"Oslo","temp_c":21.5,"tags":["sunny"]}"#
    );
    assert!(!out.is_error);
    let value = out.data().unwrap();
    let schema = WeatherTool.definition().output_schema().unwrap();
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["properties"]["temp_c"]["description"],
        "Degrees Celsius."
    );
    assert!(
        jsonschema::draft202012::new(schema)
            .unwrap()
            .is_valid(&value)
    );
    // An object goes to MCP as it is.
    assert_eq!(mcp_agrees(&WeatherTool, &out), value);
    assert_eq!(
        WeatherTool.definition().render(Dialect::Mcp).unwrap()["outputSchema"],
        *schema
    );

    // The error of a Result is text, as for every tool.
    let out = call(&ctx, "weather", json!({"city": ""}));
    assert_eq!(
        (out.text.as_str(), out.is_error, out.data()),
        ("Error: which city?", true, None)
    );

    // Data that is not an object reaches MCP as {"result": …}, its schema wrapped alike.
    let out = call(&ctx, "primes", json!({"count": 3}));
    assert_eq!(out.text, "[2,3,5]");
    assert_eq!(mcp_agrees(&Primes, &out), json!({"result": [2, 3, 5]}));
    assert_eq!(
        Primes.definition().render(Dialect::Mcp).unwrap()["outputSchema"]["required"],
        json!(["result"])
    );

    // Text stays text: no output schema, no structured result.
    let out = call(&ctx, "hello", json!({"name": "Ada"}));
    assert_eq!(out, ToolOutput::success("Hello, Ada!"));
    assert!(Hello.definition().output_schema().is_none());
    assert!(
        Hello
            .definition()
            .render(Dialect::Mcp)
            .unwrap()
            .get("outputSchema")
            .is_none()
    );
    // Provider dialects carry no output schema.
    for dialect in Dialect::ALL {
        if dialect != Dialect::Mcp {
            let text = WeatherTool.definition().json(dialect).unwrap();
            assert!(!text.contains("temp_c"), "{dialect:?}: {text}");
        }
    }
}

/// Returns awkward floats.
#[tool]
fn floats() -> Vec<f64> {
    vec![
        0.1 + 0.2,
        5e-324,
        1e-310,
        f64::MAX,
        -0.0,
        1.0 / 3.0,
        123_456_789.123_456_78,
    ]
}

#[test]
fn data_reads_back_from_its_text_as_the_value_written() {
    let mut ctx = Ctx::new();
    ctx.plugin::<Floats>().unwrap();
    let out = ctx.tools.call("floats", &Exec::new(), "{}").wait();
    assert!(out.structured);
    let written = serde_json::to_value(floats()).unwrap();
    let read = out.data().unwrap();
    assert_eq!(read, written);
    // Bit for bit, not only as equal numbers.
    let bits = |value: &Value| -> Vec<u64> {
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_f64().unwrap().to_bits())
            .collect()
    };
    assert_eq!(bits(&read), bits(&written));
}

//! The fixture tools of the MCP conformance suite (`@modelcontextprotocol/conformance`), written
//! as an author writes tools: `#[tool]` functions and one runtime-defined tool, served by
//! `conformance-host mcp --http` (this crate's binary, a [`tool_host::Host`]).
//!
//! Each tool is the one a scenario of the suite calls by name, answering as the suite's own
//! reference server does.

use std::time::Duration;

use serde_json::json;
use tool_runtime::{
    Answer, Ask, Audio, DynamicTool, EmbeddedResource, Form, Image, LoadError, Logger, Progress,
    Prompt, PromptMessage, Resource, ResourceTemplate, Root, Sampling, ToolError, ToolOutput, tool,
};

/// A 1×1 PNG, the suite's test image.
pub const PIXEL: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\xfc\xcf\xc0\xf0\x1f\x00\x05\x05\x02\x00\x5f\xc8\xf1\xd2\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

/// A WAV of one silent sample, the suite's test audio.
pub const SILENCE: &[u8] = b"\x52\x49\x46\x46\x26\x00\x00\x00\x57\x41\x56\x45\x66\x6d\x74\x20\x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00\x64\x61\x74\x61\x02\x00\x00\x00";

/// Purges the named cache. Destructive: runs only once a person approves the call.
///
/// Not a fixture of the suite: the framework's own `needs_approval` tool, asked about through
/// the client's elicitation (`tests/approval.py`).
#[tool(needs_approval, destructive)]
pub fn purge_cache(
    /// The cache to purge.
    cache: String,
) -> String {
    format!("purged {cache}")
}

/// What the person did with a form, as the suite's reference server says it.
fn answered(answer: &Answer) -> (&'static str, serde_json::Value) {
    match answer {
        Answer::Accepted(content) => ("accept", content.clone()),
        Answer::Declined => ("decline", json!({})),
        Answer::Dismissed => ("cancel", json!({})),
    }
}

/// Tests elicitation: asks the user for a username and an email address
#[tool(read_only)]
pub async fn test_elicitation(
    ask: Ask,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    let form = Form::new(
        message,
        json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        }),
    );
    let (action, content) = answered(&ask.person("user_info", form).await?);
    Ok(format!(
        "User response: <action: {action}, content: {content}>"
    ))
}

/// Tests elicitation with a default for every primitive type (SEP-1034)
#[tool(read_only)]
pub async fn test_elicitation_sep1034_defaults(ask: Ask) -> Result<String, ToolError> {
    let form = Form::new(
        "Please review and update the form fields with defaults",
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            },
            "required": []
        }),
    );
    let (action, content) = answered(&ask.person("defaults", form).await?);
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Tests elicitation with every kind of enumeration (SEP-1330)
#[tool(read_only)]
pub async fn test_elicitation_sep1330_enums(ask: Ask) -> Result<String, ToolError> {
    let form = Form::new(
        "Please select options from the enum fields",
        json!({
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]
                    }
                }
            },
            "required": []
        }),
    );
    let (action, content) = answered(&ask.person("enums", form).await?);
    Ok(format!(
        "Elicitation completed: action={action}, content={content}"
    ))
}

/// Tests sampling: asks the client's model to answer a prompt
#[tool(read_only)]
pub async fn test_sampling(
    ask: Ask,
    /// The prompt to send to the LLM
    prompt: String,
) -> Result<String, ToolError> {
    let sampled = ask.model("answer", Sampling::new(prompt, 100)).await?;
    Ok(format!("LLM response: {}", sampled.text))
}

/// A form asking for one string, `field`, which the person must give.
fn asking_for(message: &str, field: &str, kind: &str) -> Form {
    Form::new(
        message,
        json!({
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field]
        }),
    )
}

/// What the person gave for `field`, or why there is nothing.
fn given(answer: &Answer, field: &str) -> String {
    match answer {
        Answer::Accepted(content) => match &content[field] {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        },
        Answer::Declined => "(declined)".to_owned(),
        Answer::Dismissed => "(dismissed)".to_owned(),
    }
}

/// The roots the client named, as one line.
fn named(roots: &[Root]) -> String {
    let names: Vec<String> = roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => format!("{} ({name})", root.uri),
            None => root.uri.clone(),
        })
        .collect();
    format!("Roots: {}", names.join(", "))
}

/// Tests a round of questions: asks the person for their name, then greets them (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_elicitation(ask: Ask) -> Result<String, ToolError> {
    let answer = ask
        .person(
            "user_name",
            asking_for("What is your name?", "name", "string"),
        )
        .await?;
    Ok(format!("Hello, {}!", given(&answer, "name")))
}

/// Tests a round of questions: asks the client's model for the capital of France (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_sampling(ask: Ask) -> Result<String, ToolError> {
    let sampling = Sampling::new("What is the capital of France?", 100);
    let sampled = ask.model("capital_question", sampling).await?;
    Ok(format!("LLM response: {}", sampled.text))
}

/// Tests a round of questions: asks the client for its roots (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_list_roots(ask: Ask) -> Result<String, ToolError> {
    Ok(named(&ask.roots("client_roots").await?))
}

/// Tests a round whose state comes back: asks the person to confirm (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_request_state(ask: Ask) -> Result<String, ToolError> {
    let answer = ask
        .person("confirm", asking_for("Please confirm", "ok", "boolean"))
        .await?;
    // The framework opened the round's sealed state, or refused the call.
    Ok(format!("state-ok: confirmed {}", given(&answer, "ok")))
}

/// Tests several questions in one round: the person, the client's model, its roots (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_multiple_inputs(ask: Ask) -> Result<String, ToolError> {
    let (person, model, roots) = tokio::join!(
        ask.person(
            "user_name",
            asking_for("What is your name?", "name", "string")
        ),
        ask.model("greeting", Sampling::new("Generate a greeting", 50)),
        ask.roots("client_roots"),
    );
    Ok(format!(
        "Hello, {}! {} {}",
        given(&person?, "name"),
        model?.text,
        named(&roots?)
    ))
}

/// Tests questions over several rounds: the name, then the favorite color (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_multi_round(ask: Ask) -> Result<String, ToolError> {
    let name = ask
        .person(
            "step1",
            asking_for("Step 1: What is your name?", "name", "string"),
        )
        .await?;
    let color = ask
        .person(
            "step2",
            asking_for("Step 2: What is your favorite color?", "color", "string"),
        )
        .await?;
    Ok(format!(
        "Hello, {}! Your favorite color is {}.",
        given(&name, "name"),
        given(&color, "color")
    ))
}

/// Tests a round whose state is sealed: a tampered state is refused (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_tampered_state(ask: Ask) -> Result<String, ToolError> {
    let answer = ask
        .person("confirm", asking_for("Please confirm", "ok", "boolean"))
        .await?;
    Ok(format!("state-ok: confirmed {}", given(&answer, "ok")))
}

/// Tests that a round asks only what the client can answer: the person and the client's
/// model, each where the client declared it (SEP-2322)
#[tool(read_only)]
pub async fn test_input_required_result_capabilities(ask: Ask) -> Result<String, ToolError> {
    let (person, model) = tokio::join!(
        ask.person(
            "user_name",
            asking_for("What is your name?", "name", "string")
        ),
        ask.model("greeting", Sampling::new("Generate a greeting", 50)),
    );
    let person = person.map_or_else(|error| error.to_string(), |answer| given(&answer, "name"));
    let model = model.map_or_else(|error| error.to_string(), |sampled| sampled.text);
    Ok(format!("person: {person}; model: {model}"))
}

/// Tests simple text content response
#[tool(read_only)]
pub fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Tests image content response
#[tool(read_only)]
pub fn test_image_content() -> Image {
    Image::png(PIXEL)
}

/// Tests audio content response
#[tool(read_only)]
pub fn test_audio_content() -> Audio {
    Audio::new("audio/wav", SILENCE)
}

/// Tests embedded resource content response
#[tool(read_only)]
pub fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Tests response with multiple content types (text, image, resource)
#[tool(read_only)]
pub fn test_multiple_content_types() -> ToolOutput {
    ToolOutput::success("Multiple content types test:")
        .with_image(Image::png(PIXEL))
        .with(EmbeddedResource::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Tests tool that reports progress notifications
#[tool(read_only)]
pub async fn test_tool_with_progress(progress: Progress) -> &'static str {
    for step in [0, 50, 100] {
        progress.report(step, 100, format!("Completed step {step} of 100"));
        if step < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    "Progress reported: 0, 50 and 100 of 100"
}

/// Tests tool that emits log messages during execution
#[tool(read_only)]
pub async fn test_tool_with_logging(log: Logger) -> &'static str {
    for (step, message) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        log.info(message);
    }
    "Tool with logging executed successfully"
}

/// Tests error response handling
#[tool(read_only)]
pub fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// The input schema of `json_schema_2020_12_tool`: JSON Schema 2020-12 keywords (`$schema`,
/// `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`,
/// `additionalProperties`) that must reach `tools/list` as written.
pub fn json_schema_2020_12() -> serde_json::Value {
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// `json_schema_2020_12_tool`, defined at run time from [`json_schema_2020_12`]: it answers
/// with the arguments it was given. The runtime's checker does not enforce `if`/`then`/`else`,
/// so the tool is declared unchecked ([`DynamicTool`]'s `unchecked`): its schema reaches MCP
/// clients as written, and its arguments are checked only to be an object.
pub fn json_schema_2020_12_tool() -> Result<DynamicTool, LoadError> {
    DynamicTool::builder(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json_schema_2020_12(),
    )
    .source("conformance-host")
    .unchecked()
    .handler(|_, args: serde_json::Value| ToolOutput::structured(args))
}

/// The suite's resources: a text, a PNG, and JSON at each URI of a template.
pub fn resources() -> (Vec<Resource>, Vec<ResourceTemplate>) {
    let fixed = vec![
        Resource::text(
            "test://static-text",
            "static-text",
            "text/plain",
            "This is the content of the static text resource.",
        )
        .title("Static Text Resource")
        .description("A static text resource for testing"),
        Resource::blob("test://static-binary", "static-binary", "image/png", PIXEL)
            .title("Static Binary Resource")
            .description("A static binary resource (image) for testing"),
        Resource::text(
            "test://watched-resource",
            "watched-resource",
            "text/plain",
            "A resource clients subscribe to.",
        )
        .title("Watched Resource")
        .description("A resource whose changes subscribed clients hear"),
    ];
    let templates = vec![
        ResourceTemplate::new("test://template/{id}/data", "template", |uri, vars| {
            let id = &vars["id"];
            let data = serde_json::json!({
                "id": id,
                "templateTest": true,
                "data": format!("Data for ID: {id}"),
            });
            Ok(vec![EmbeddedResource::text(
                uri,
                "application/json",
                data.to_string(),
            )])
        })
        .title("Resource Template")
        .description("A resource template with parameter substitution")
        .mime_type("application/json"),
    ];
    (fixed, templates)
}

/// The suite's prompts: one of text, one with arguments, one embedding a resource, one with
/// an image.
pub fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new("test_simple_prompt", |_| {
            Ok(vec![PromptMessage::user(
                "This is a simple prompt for testing.",
            )])
        })
        .title("Simple Test Prompt")
        .description("A simple prompt without arguments"),
        Prompt::new("test_prompt_with_arguments", |args| {
            Ok(vec![PromptMessage::user(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                args["arg1"], args["arg2"]
            ))])
        })
        .title("Prompt With Arguments")
        .description("A prompt with required arguments")
        .argument("arg1", "First test argument", true)
        .argument("arg2", "Second test argument", true)
        .completing("arg1", |typed| {
            ["paris", "park", "party"]
                .into_iter()
                .filter(|value| value.starts_with(typed))
                .map(str::to_owned)
                .collect()
        }),
        Prompt::new("test_prompt_with_embedded_resource", |args| {
            Ok(vec![
                PromptMessage::user(EmbeddedResource::text(
                    args["resourceUri"].as_str(),
                    "text/plain",
                    "Embedded resource content for testing.",
                )),
                PromptMessage::user("Please process the embedded resource above."),
            ])
        })
        .title("Prompt With Embedded Resource")
        .description("A prompt that includes an embedded resource")
        .argument("resourceUri", "URI of the resource to embed", true),
        Prompt::new("test_prompt_with_image", |_| {
            Ok(vec![
                PromptMessage::user(Image::png(PIXEL)),
                PromptMessage::user("Please analyze the image above."),
            ])
        })
        .title("Prompt With Image")
        .description("A prompt that includes image content"),
        Prompt::asking("test_input_required_result_prompt", |_, ask| async move {
            let answer = ask
                .person(
                    "user_context",
                    asking_for("What context should the prompt use?", "context", "string"),
                )
                .await?;
            Ok(vec![PromptMessage::user(format!(
                "Use this context: {}",
                given(&answer, "context")
            ))])
        })
        .description("A prompt that asks the person what context to use (SEP-2322)"),
    ]
}

/// Greets `name` at once: never a task (the tasks extension's sync-only fixture)
#[tool(read_only)]
pub fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds` seconds, then says so: a task for a client that speaks the tasks
/// extension, stopped by `tasks/cancel`
#[tool(task, read_only)]
pub async fn slow_compute(
    cancel: tool_runtime::Cancel,
    /// How long to compute, in seconds
    seconds: u64,
    /// A label for the computation
    #[serde(default)]
    label: Option<String>,
) -> Result<String, ToolError> {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(seconds)) => {}
        () = cancel.cancelled() => return Err(ToolError::new("slow_compute was cancelled")),
    }
    Ok(match label {
        Some(label) => format!("Computed for {seconds}s ({label})"),
        None => format!("Computed for {seconds}s"),
    })
}

/// Works for a second, then fails: the tool's own error, as a completed task's result
#[tool(task = "required", read_only)]
pub async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed"))
}

/// Fails the server's way, not the tool's: it panics, which a task reports as `failed`
#[tool(task, read_only)]
pub async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job fails as a fixture should")
}

/// Deletes `filename` once the person confirms: a task that waits on the person's answer
#[tool(task, destructive)]
pub async fn confirm_delete(
    ask: Ask,
    /// The file to delete
    filename: String,
) -> Result<String, ToolError> {
    let form = Form::new(
        format!("Delete {filename}?"),
        json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "description": "Delete it"}},
            "required": ["confirm"]
        }),
    );
    Ok(match ask.person("confirm", form).await? {
        Answer::Accepted(content) if content["confirm"] == json!(true) => {
            format!("Deleted {filename}")
        }
        _ => format!("Kept {filename}"),
    })
}

/// Asks the person two things at once: a task waiting on two answers
#[tool(task, read_only)]
pub async fn multi_input(ask: Ask) -> Result<String, ToolError> {
    let form = |message: &str| {
        Form::new(
            message,
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "confirm": {"type": "boolean"}
                }
            }),
        )
    };
    let (first, second) = tokio::join!(
        ask.person("first", form("Your name?")),
        ask.person("second", form("Confirm?")),
    );
    Ok(format!(
        "first: {}; second: {}",
        given(&first?, "name"),
        given(&second?, "name")
    ))
}

/// Asks the person's name, then goes on as a task: rounds first, a task for the rest
#[tool(task = "required", read_only)]
pub async fn test_tool_with_task(
    ask: Ask,
    detach: tool_runtime::Detach,
) -> Result<String, ToolError> {
    let answer = ask
        .person(
            "user_name",
            asking_for("What is your name?", "name", "string"),
        )
        .await?;
    detach.now();
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!(
        "Hello, {}! The task is done.",
        given(&answer, "name")
    ))
}

/// Says where a request was routed: its `region` argument is mirrored in the request's
/// `Mcp-Param-Region` header, which the server checks against it (SEP-2243)
#[tool(read_only)]
pub fn test_custom_header(
    /// The region to route the request to
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("routed to {region}")
}

/// Asks the client's model for a haiku: refused to a client that lends no model, before it runs
/// (SEP-2575)
#[tool(read_only, asks = "model")]
pub async fn test_missing_capability(ask: Ask) -> Result<String, ToolError> {
    let sampled = ask
        .model(
            "haiku",
            Sampling::new("Write a haiku about capabilities", 60),
        )
        .await?;
    Ok(sampled.text)
}

/// Says that the watched resource changed: the clients subscribed to it hear
/// `notifications/resources/updated`
#[tool(read_only)]
pub fn touch_watched_resource(
    changes: tool_runtime::Service<tool_runtime::ResourceChanges>,
) -> &'static str {
    changes.updated("test://watched-resource");
    "touched test://watched-resource"
}

/// Tests SSE reconnection: answers after a pause, on the POST's stream, which the server
/// primed with an event id and a `retry` a client resumes by (SEP-1699)
#[tool(read_only)]
pub async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed"
}

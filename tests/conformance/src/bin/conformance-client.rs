//! `conformance-client URL`: the framework's MCP client (the toolsets client behind
//! `toolhost agent --mcp`) as the conformance suite's client scenarios drive one. It reaches
//! the server at URL and lists its tools, then calls what the scenario asks for, as the suite's
//! reference client does: the calls the scenario's context names (`MCP_CONFORMANCE_CONTEXT`'s
//! `toolCalls`), each listed tool for the rounds scenario, the echo of a schema for the schema
//! one, and otherwise the first tool with `{"a": 2, "b": 3}`. The scenario
//! (`MCP_CONFORMANCE_SCENARIO`) judges what it sent. A form the server asks for is accepted,
//! each field without a default given a value of its type. It exits 1 when the server cannot be had, printing
//! why.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_mcp::toolsets::{IdentityProvider, McpServer, OAuth, Toolsets};
use tool_runtime::{Answer, Asker, Dialect, Exec, Question, Reply, Replying, ToolRegistry};

/// Where the authorization server sends the browser back to.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The client's metadata document (its `client_id`), as the suite's authorization server
/// knows it.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The person's browser: the authorization URL fetched, its redirect read and not followed.
async fn headless(url: String) -> Result<String, String> {
    let (host, path) = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .ok_or_else(|| format!("not an http:// URL: {url}"))?;
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(host).map_err(|error| error.to_string())?;
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|error| error.to_string())?;
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .map_err(|error| error.to_string())?;
    answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location")
                .then(|| value.trim().to_owned())
        })
        .ok_or_else(|| format!("the authorization server did not redirect: {answer}"))
}

/// Arguments for a tool of `schema`: a value of its type for each required argument.
fn arguments_for(schema: &Value) -> Value {
    let mut args = serde_json::Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let value = match schema["properties"][name]["type"].as_str() {
            Some("number") => json!(1.0),
            Some("integer") => json!(1),
            Some("boolean") => json!(true),
            _ => json!("test"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// The person behind the client: accepts every form, each field without a default given a value
/// of its type (the client fills in the defaults).
struct Accepting;

impl Asker for Accepting {
    fn ask<'a>(&'a self, _key: &'a str, question: Question) -> Replying<'a> {
        Box::pin(async move {
            let Question::Person(form) = question else {
                return Err(tool_runtime::AskError::Unsupported("answer that"));
            };
            let mut content = serde_json::Map::new();
            if let Some(properties) = form.schema["properties"].as_object() {
                for (name, property) in properties {
                    if property.get("default").is_some() {
                        continue;
                    }
                    let value = match property["type"].as_str() {
                        Some("boolean") => json!(true),
                        Some("integer" | "number") => json!(1),
                        _ => json!("yes"),
                    };
                    content.insert(name.clone(), value);
                }
            }
            Ok(Reply::Person(Answer::Accepted(Value::Object(content))))
        })
    }
}

/// The context's text at `key`.
fn given(context: &Value, key: &str) -> Result<String, String> {
    context[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("the scenario's context gives no `{key}`"))
}

/// How the client authorizes in `scenario`, from what its context gives: the client's own
/// credentials (a secret, a private key), a workload's identity token, an enterprise ID token
/// to exchange, else a person (the authorization code grant), whose browser is a request for
/// the authorization URL whose redirect is read, not followed (the suite's authorization
/// server approves at once).
fn oauth_for(scenario: &str, context: &Value) -> Result<OAuth, String> {
    let text = |error: tool_mcp::toolsets::OAuthError| error.to_string();
    Ok(match scenario {
        "auth/client-credentials-basic" => OAuth::client_secret(
            given(context, "client_id")?,
            given(context, "client_secret")?,
        ),
        "auth/client-credentials-jwt" => OAuth::client_key(
            given(context, "client_id")?,
            given(context, "private_key_pem")?.as_bytes(),
            &given(context, "signing_algorithm")?,
        )
        .map_err(text)?,
        "auth/wif-jwt-bearer" => {
            let token = given(context, "valid_jwt")?;
            OAuth::workload(given(context, "client_id")?, move || Ok(token.clone()))
        }
        "auth/enterprise-managed-authorization" => {
            let idp = IdentityProvider::new(
                given(context, "idp_issuer")?,
                given(context, "idp_token_endpoint")?,
                given(context, "idp_client_id")?,
            );
            let token = given(context, "idp_id_token")?;
            OAuth::enterprise(idp, move || Ok(token.clone())).registered(
                given(context, "client_id")?,
                Some(given(context, "client_secret")?),
            )
        }
        _ => {
            let oauth = OAuth::new(REDIRECT_URI, headless).client_name("conformance-client");
            match context["client_id"].as_str() {
                Some(id) => {
                    let secret = context["client_secret"].as_str().map(str::to_owned);
                    oauth.registered(id, secret)
                }
                None => oauth.metadata_url(CLIENT_METADATA_URL),
            }
        }
    })
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client URL");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let oauth = match oauth_for(&scenario, &context) {
        Ok(oauth) => oauth,
        Err(error) => {
            eprintln!("conformance-client: {error}");
            return ExitCode::from(2);
        }
    };
    let server = match McpServer::http(url).unchecked().oauth(oauth) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("conformance-client: {error}");
            return ExitCode::from(2);
        }
    };
    let toolsets = match Toolsets::connect_as(
        vec![server],
        "conformance-client",
        env!("CARGO_PKG_VERSION"),
    ) {
        Ok(toolsets) => toolsets,
        Err(error) => {
            eprintln!("conformance-client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let tools = match toolsets.registry(&ToolRegistry::default()) {
        Ok(tools) => tools,
        Err(error) => {
            eprintln!("conformance-client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<String> = toolsets.names().map(str::to_owned).collect();
    let mut calls: Vec<(String, Value)> = Vec::new();
    if let Some(listed) = context["toolCalls"].as_array() {
        for call in listed {
            let name = call["name"].as_str().unwrap_or_default().to_owned();
            calls.push((name, call["arguments"].clone()));
        }
    } else if scenario == "sep-2322-client-request-state" {
        calls.extend(names.iter().map(|name| (name.clone(), json!({}))));
    } else if scenario.starts_with("auth/") {
        // Each tool, with a value of its type for each required argument.
        for name in &names {
            let schema = tools
                .get(name)
                .map(|tool| tool.definition().input_schema().clone())
                .unwrap_or_default();
            calls.push((name.clone(), arguments_for(&schema)));
        }
    } else if scenario == "json-schema-2020-12-preservation" {
        // The schema as the client received it, sent back to be compared.
        let schema = tools
            .get("json_schema_2020_12_tool")
            .and_then(|tool| tool.definition().render(Dialect::Mcp).ok().cloned())
            .map_or(Value::Null, |entry| entry["inputSchema"].clone());
        calls.push(("json_schema_echo".to_owned(), json!({"schema": schema})));
    } else if let Some(first) = names.first() {
        calls.push((first.clone(), json!({"a": 2, "b": 3})));
    }
    let exec = Exec::new().with_ask(Arc::new(Accepting));
    for (name, args) in calls {
        let out = tools.call(&name, &exec, &args.to_string()).wait();
        println!("{name}: {out}");
    }
    ExitCode::SUCCESS
}

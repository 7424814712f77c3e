//! Provider dialects: the same definition in the shape each model API accepts.

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::annotations::Annotations;
use crate::normalize::normalize;

/// A provider's shape of a tool definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `{"name", "description", "input_schema"}` with the normalized schema.
    Neutral,
    /// OpenAI Chat Completions: `{"type": "function", "function": {"name", "description",
    /// "parameters"}}`.
    OpenAi,
    /// OpenAI Chat Completions with `"strict": true`: every property required (optional ones
    /// nullable), `additionalProperties: false` on every object, `anyOf` for unions. A schema
    /// that cannot be said so (a map, a non-nullable default) is an error.
    OpenAiStrict,
    /// OpenAI Responses: `{"type": "function", "name", "description", "parameters", "strict":
    /// false}` (the Responses API assumes strict unless told).
    OpenAiResponses,
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// A Gemini function declaration, `{"name", "description", "parameters"}`, in the OpenAPI
    /// subset Gemini accepts: no `additionalProperties`, `$ref`, `$schema` or `const`, enums of
    /// strings, `nullable` for "or null".
    Gemini,
    /// An MCP `tools/list` entry: `{"name", "description", "inputSchema"}`.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::Neutral,
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// The dialect's name: `neutral`, `openai`, `openai-strict`, `openai-responses`,
    /// `anthropic`, `gemini` or `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Neutral => "neutral",
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    /// The dialect's place in [`Dialect::ALL`], for a table with one entry per dialect.
    pub fn index(self) -> usize {
        Dialect::ALL
            .iter()
            .position(|d| *d == self)
            .expect("every dialect is in ALL")
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                format!(
                    "unknown dialect `{name}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// A definition that cannot be expressed in a dialect.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be expressed in the {dialect} dialect: {reason}")]
pub struct DialectError {
    /// The tool's name.
    pub tool: String,
    /// The dialect.
    pub dialect: Dialect,
    /// Why not.
    pub reason: String,
}

/// What a definition's shape in a dialect is made of.
pub(crate) struct Parts<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) input_schema: &'a Value,
    /// The input schema as its author wrote it, for MCP, when it is shown so
    /// ([`Definition::with_schema_as_written`](crate::Definition::with_schema_as_written)).
    pub(crate) as_written: Option<&'a Value>,
    /// What a call is checked against (the input schema, its defaulted parameters nullable).
    pub(crate) checked_schema: &'a Value,
    pub(crate) schema_error: Option<&'a str>,
    pub(crate) annotations: &'a Annotations,
    /// The output schema as MCP's `outputSchema` says it.
    pub(crate) output_schema: Option<Value>,
}

pub(crate) fn render(definition: &Parts<'_>, dialect: Dialect) -> Result<Value, DialectError> {
    let error = |reason: String| DialectError {
        tool: definition.name.to_owned(),
        dialect,
        reason,
    };
    if let Some(problem) = definition.schema_error {
        return Err(error(problem.to_owned()));
    }
    let name = definition.name;
    let description = definition.description;
    let schema = definition.input_schema;
    Ok(match dialect {
        Dialect::Neutral | Dialect::Anthropic => {
            json!({"name": name, "description": description, "input_schema": schema})
        }
        Dialect::OpenAi => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema},
        }),
        Dialect::OpenAiStrict => {
            // What the runtime checks: a parameter with a default takes `null` for it, which
            // is what strict mode sends for an argument left out.
            let parameters = strict(definition.checked_schema, "arguments").map_err(error)?;
            json!({
                "type": "function",
                "function": {"name": name, "description": description, "strict": true, "parameters": parameters},
            })
        }
        Dialect::OpenAiResponses => json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": schema,
            "strict": false,
        }),
        Dialect::Gemini => {
            let parameters = gemini(schema, "arguments").map_err(error)?;
            json!({"name": name, "description": description, "parameters": parameters})
        }
        Dialect::Mcp => {
            let schema = definition.as_written.unwrap_or(schema);
            let mut entry =
                json!({"name": name, "description": description, "inputSchema": schema});
            let annotations = definition.annotations;
            if let Some(title) = annotations.title() {
                entry["title"] = title.into();
            }
            if let Some(hints) = annotations.mcp_hints() {
                entry["annotations"] = hints;
            }
            if let Some(output) = definition.output_schema.clone() {
                entry["outputSchema"] = output;
            }
            entry
        }
    })
}

fn is_nullable(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("null"))
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(is_nullable))
}

/// OpenAI's strict mode: every object closed and every property required; optional properties
/// must already accept `null` (an `Option`), so that requiring them changes nothing the runtime
/// enforces.
fn strict(schema: &Value, path: &str) -> Result<Value, String> {
    let Value::Object(object) = schema else {
        return Ok(schema.clone());
    };
    for keyword in ["oneOf", "allOf", "not", "patternProperties", "if", "$ref"] {
        if object.contains_key(keyword) {
            return Err(format!("`{keyword}` at {path} has no strict-mode form"));
        }
    }
    let mut out = Map::new();
    for (key, value) in object {
        let value = match key.as_str() {
            "items" => strict(value, &format!("{path}[]"))?,
            "prefixItems" => return Err(format!("a tuple at {path} has no strict-mode form")),
            "anyOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|branch| strict(branch, path))
                    .collect::<Result<_, _>>()?,
            ),
            "properties" => {
                let mut properties = Map::new();
                for (name, property) in value.as_object().into_iter().flatten() {
                    properties.insert(name.clone(), strict(property, &format!("{path}.{name}"))?);
                }
                Value::Object(properties)
            }
            "additionalProperties" if value != &Value::Bool(false) => {
                return Err(format!(
                    "the object at {path} takes free-form keys (a map), which strict mode forbids"
                ));
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    if object.get("type") == Some(&json!("object")) {
        let properties = object.get("properties").and_then(Value::as_object);
        let required = object.get("required").and_then(Value::as_array);
        let names: Vec<Value> = properties
            .into_iter()
            .flatten()
            .map(|(name, _)| json!(name))
            .collect();
        for (name, property) in properties.into_iter().flatten() {
            let is_required = required.is_some_and(|required| required.contains(&json!(name)));
            if !is_required && !is_nullable(property) {
                return Err(format!(
                    "`{path}.{name}` may be left out but not be null (a `#[serde(default)]` field); strict mode requires every property: make it an `Option`"
                ));
            }
        }
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Ok(normalize(Value::Object(out)))
}

/// Keywords of the OpenAPI subset Gemini's function declarations accept.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "nullable",
    "enum",
    "format",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "anyOf",
];

/// Gemini's OpenAPI subset. What it cannot say and the runtime still enforces
/// (`additionalProperties: false`, exclusive bounds) is left out; what it cannot say and would
/// change the meaning (enums of non-strings, maps, tuples) is an error.
fn gemini(schema: &Value, path: &str) -> Result<Value, String> {
    let Value::Object(object) = schema else {
        return Ok(schema.clone());
    };
    if object.contains_key("$ref") {
        return Err(format!("a reference at {path} cannot be inlined"));
    }
    if object.contains_key("prefixItems") {
        return Err(format!("a tuple at {path} has no Gemini form"));
    }
    if let Some(additional) = object.get("additionalProperties")
        && additional != &Value::Bool(false)
    {
        return Err(format!(
            "the object at {path} takes free-form keys (a map), which Gemini cannot declare"
        ));
    }
    // "this or null": the branch, marked nullable.
    if let Some(branches) = object.get("anyOf").and_then(Value::as_array) {
        let others: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type") != Some(&json!("null")))
            .collect();
        if others.len() == 1 && branches.len() == 2 {
            let mut merged = match gemini(others[0], path)? {
                Value::Object(merged) => merged,
                other => return Ok(other),
            };
            if let Some(Value::String(description)) = object.get("description") {
                // The branch's own description goes, but for an enum's documented variants,
                // which the neutral schema keeps beside it: they join the outer one, as they
                // join a parameter's description when it is not optional.
                let mut description = description.clone();
                if merged.contains_key("enum")
                    && let Some(Value::String(own)) = merged.get("description")
                {
                    for variant in own.lines().filter(|line| line.starts_with("- \"")) {
                        description.push('\n');
                        description.push_str(variant);
                    }
                }
                merged.insert("description".into(), description.into());
            }
            merged.insert("nullable".into(), Value::Bool(true));
            return Ok(normalize(Value::Object(merged)));
        }
    }
    let mut out = Map::new();
    for (key, value) in object {
        let value = match key.as_str() {
            "const" => {
                if !value.is_string() {
                    return Err(format!("the constant at {path} is not a string"));
                }
                out.insert("type".into(), json!("string"));
                out.insert("enum".into(), json!([value]));
                continue;
            }
            "oneOf" | "anyOf" => {
                let branches = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|branch| gemini(branch, path))
                    .collect::<Result<_, _>>()?;
                out.insert("anyOf".into(), Value::Array(branches));
                continue;
            }
            "enum" => {
                if !value.as_array().into_iter().flatten().all(Value::is_string) {
                    return Err(format!("the enum at {path} is not of strings"));
                }
                value.clone()
            }
            "items" => gemini(value, &format!("{path}[]"))?,
            "properties" => {
                let mut properties = Map::new();
                for (name, property) in value.as_object().into_iter().flatten() {
                    properties.insert(name.clone(), gemini(property, &format!("{path}.{name}"))?);
                }
                Value::Object(properties)
            }
            key if GEMINI_KEYWORDS.contains(&key) => value.clone(),
            _ => continue,
        };
        out.insert(key.clone(), value);
    }
    Ok(normalize(Value::Object(out)))
}

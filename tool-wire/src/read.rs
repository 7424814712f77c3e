//! A non-streamed response read into a [`ModelTurn`], and the results that answer its calls.

use serde_json::{Map, Value};
use tool_runtime::ToolOutput;

use crate::json::{members, object, required, required_str, string_args, value_args};
use crate::provider::Provider;
use crate::turn::{ModelTurn, ToolSearch, Usage, WireError};
use crate::value;

impl Provider {
    /// The text and tool calls of a (non-streamed) response body.
    pub fn read_response(self, body: &str) -> Result<ModelTurn, WireError> {
        // Read once, and the parts the conversation keeps moved out of it, not copied.
        let response = value::parse(body).map_err(WireError::NotJson)?;
        match self {
            Provider::OpenAiChat => read_openai_chat(response),
            Provider::OpenAiResponses => read_openai_responses(response),
            Provider::Anthropic => read_anthropic(response),
            Provider::Gemini => read_gemini(response),
        }
    }

    /// The messages (or items) that answer `turn`'s calls with `outputs`, in call order, to
    /// append to the conversation after [`ModelTurn::message`].
    ///
    /// `outputs` holds one output per call, as [`ModelTurn::run`] returns them; a call
    /// without one (a host that stopped early) is answered `Error: the call was not run`, so
    /// no call is ever left without its result.
    pub fn results(self, turn: &ModelTurn, outputs: &[ToolOutput]) -> Vec<Value> {
        let not_run = ToolOutput::error("the call was not run");
        let pairs = turn
            .calls
            .iter()
            .enumerate()
            .map(|(index, call)| (index, call, outputs.get(index).unwrap_or(&not_run)));
        match self {
            Provider::OpenAiChat => pairs
                .map(|(_, call, output)| {
                    object([
                        ("role", "tool".into()),
                        ("tool_call_id", call.id.as_str().into()),
                        ("content", output.text.as_str().into()),
                    ])
                })
                .collect(),
            Provider::OpenAiResponses => pairs
                .map(|(_, call, output)| {
                    object([
                        ("type", "function_call_output".into()),
                        ("call_id", call.id.as_str().into()),
                        ("output", output.text.as_str().into()),
                    ])
                })
                .collect(),
            Provider::Anthropic => {
                let blocks: Vec<Value> = pairs
                    .map(|(_, call, output)| {
                        let mut block = Map::with_capacity(4);
                        block.insert("type".into(), "tool_result".into());
                        block.insert("tool_use_id".into(), call.id.as_str().into());
                        block.insert("content".into(), output.text.as_str().into());
                        if output.is_error {
                            block.insert("is_error".into(), true.into());
                        }
                        Value::Object(block)
                    })
                    .collect();
                if blocks.is_empty() {
                    Vec::new()
                } else {
                    vec![object([
                        ("role", "user".into()),
                        ("content", blocks.into()),
                    ])]
                }
            }
            Provider::Gemini => {
                let parts: Vec<Value> = pairs
                    .map(|(index, call, output)| {
                        let key = if output.is_error { "error" } else { "output" };
                        let mut response = Map::new();
                        if turn.provider_ids.get(index).copied().unwrap_or(false) {
                            response.insert("id".into(), call.id.clone().into());
                        }
                        response.insert("name".into(), call.name.clone().into());
                        response.insert(
                            "response".into(),
                            object([(key, output.text.as_str().into())]),
                        );
                        object([("functionResponse", response.into())])
                    })
                    .collect();
                if parts.is_empty() {
                    Vec::new()
                } else {
                    vec![object([("role", "user".into()), ("parts", parts.into())])]
                }
            }
        }
    }
}

pub(crate) fn read_openai_chat(mut response: Value) -> Result<ModelTurn, WireError> {
    let choice = response
        .get_mut("choices")
        .and_then(|choices| choices.get_mut(0))
        .ok_or(WireError::Missing("choices[0]"))?;
    let message = choice
        .get_mut("message")
        .filter(|message| message.is_object())
        .map(Value::take)
        .ok_or(WireError::Missing("choices[0].message"))?;
    let mut turn = ModelTurn::new(Vec::new(), choice.get("finish_reason"));
    turn.usage = response.get("usage").and_then(Usage::openai_chat);
    turn.identify(&response, "id", "model");
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        turn.push_text(text);
    }
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = call.get("function");
        let name = required_str(
            function.unwrap_or(&Value::Null),
            "name",
            "tool_calls[].function.name",
        )?;
        let id = required_str(call, "id", "tool_calls[].id")?;
        turn.push_call(
            Some(id),
            name,
            string_args(function.and_then(|f| f.get("arguments"))),
        )?;
    }
    turn.message.push(message);
    Ok(turn)
}

pub(crate) fn read_openai_responses(mut response: Value) -> Result<ModelTurn, WireError> {
    let output = match response.get_mut("output").map(Value::take) {
        Some(Value::Array(output)) => output,
        _ => return Err(WireError::Missing("output")),
    };
    let mut turn = ModelTurn::new(Vec::new(), response.get("status"));
    turn.usage = response.get("usage").and_then(Usage::openai_responses);
    turn.identify(&response, "id", "model");
    // A `tool_search_output` answers the `tool_search_call` of its `call_id`, or the one
    // before it.
    let mut asked: Vec<(Option<&str>, String)> = Vec::new();
    for item in &output {
        match item.get("type").and_then(Value::as_str) {
            Some("tool_search_call") => asked.push((
                item.get("call_id").and_then(Value::as_str),
                ToolSearch::query_of(item.get("arguments")),
            )),
            Some("tool_search_output") => {
                let call_id = item.get("call_id").and_then(Value::as_str);
                let query = asked
                    .iter()
                    .rev()
                    .find(|(id, _)| call_id.is_none() || *id == call_id)
                    .map(|(_, query)| query.clone())
                    .unwrap_or_default();
                let mut tools = Vec::new();
                for tool in item
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    // A namespace's tools are found with it.
                    let inner = tool.get("tools").and_then(Value::as_array);
                    for tool in inner.map_or_else(|| std::slice::from_ref(tool), Vec::as_slice) {
                        if let Some(name) = tool.get("name").and_then(Value::as_str) {
                            tools.push(name.to_owned());
                        }
                    }
                }
                turn.searches.push(ToolSearch { query, tools });
            }
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if part.get("type").and_then(Value::as_str) == Some("output_text")
                        && let Some(text) = part.get("text").and_then(Value::as_str)
                    {
                        turn.push_text(text);
                    }
                }
            }
            Some("function_call") => {
                let name = required_str(item, "name", "function_call.name")?;
                let id = required_str(item, "call_id", "function_call.call_id")?;
                turn.push_call(Some(id), name, string_args(item.get("arguments")))?;
            }
            _ => {}
        }
    }
    turn.message = output;
    Ok(turn)
}

pub(crate) fn read_anthropic(mut response: Value) -> Result<ModelTurn, WireError> {
    let content = match response.get_mut("content").map(Value::take) {
        Some(Value::Array(content)) => content,
        _ => return Err(WireError::Missing("content")),
    };
    let mut turn = ModelTurn::new(Vec::new(), response.get("stop_reason"));
    turn.usage = response.get("usage").and_then(Usage::anthropic);
    turn.identify(&response, "id", "model");
    for block in &content {
        let [kind, text, name, id, input] = members(block, ["type", "text", "name", "id", "input"]);
        match kind.and_then(Value::as_str) {
            Some("tool_search_tool_result") => {
                let asked = block.get("tool_use_id").and_then(Value::as_str);
                // The query is the input of the `server_tool_use` it answers.
                let input = content.iter().find_map(|other| {
                    (other.get("type").and_then(Value::as_str) == Some("server_tool_use")
                        && other.get("id").and_then(Value::as_str) == asked)
                        .then(|| other.get("input"))
                        .flatten()
                });
                let tools = block
                    .pointer("/content/tool_references")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|reference| reference.get("tool_name")?.as_str())
                    .map(str::to_owned)
                    .collect();
                turn.searches.push(ToolSearch {
                    query: ToolSearch::query_of(input),
                    tools,
                });
            }
            Some("text") => {
                if let Some(text) = text.and_then(Value::as_str) {
                    turn.push_text(text);
                }
            }
            Some("tool_use") => {
                let name = required(name, "tool_use.name")?;
                let id = required(id, "tool_use.id")?;
                turn.push_call(Some(id), name, value_args(input))?;
            }
            _ => {}
        }
    }
    turn.message.push(object([
        ("role", "assistant".into()),
        ("content", content.into()),
    ]));
    Ok(turn)
}

pub(crate) fn read_gemini(mut response: Value) -> Result<ModelTurn, WireError> {
    let candidate = response
        .get_mut("candidates")
        .and_then(|candidates| candidates.get_mut(0))
        .ok_or(WireError::Missing("candidates[0]"))?;
    let content = candidate
        .get_mut("content")
        .filter(|content| content.is_object())
        .map(Value::take)
        .ok_or(WireError::Missing("candidates[0].content"))?;
    let mut turn = ModelTurn::new(Vec::new(), candidate.get("finishReason"));
    turn.usage = response.get("usageMetadata").and_then(Usage::gemini);
    turn.identify(&response, "responseId", "modelVersion");
    for part in content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // Thoughts are the model's own; they go back in `message`, not into the text.
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            turn.push_text(text);
        }
        if let Some(call) = part.get("functionCall") {
            let name = required_str(call, "name", "functionCall.name")?;
            let id = call.get("id").and_then(Value::as_str);
            turn.push_call(id, name, value_args(call.get("args")))?;
        }
    }
    turn.message.push(content);
    turn.settle_generated_ids();
    Ok(turn)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn searches(turn: &ModelTurn) -> Vec<(&str, Vec<&str>)> {
        turn.searches
            .iter()
            .map(|search| {
                let tools = search.tools.iter().map(String::as_str).collect();
                (search.query.as_str(), tools)
            })
            .collect()
    }

    #[test]
    fn a_responses_search_s_output_is_paired_with_its_call_and_a_namespace_gives_its_tools() {
        let turn = read_openai_responses(json!({"output": [
            {"type": "tool_search_call", "call_id": "a", "arguments": {"query": "mail"}},
            {"type": "tool_search_call", "call_id": "b", "arguments": {"goal": "files"}},
            {"type": "tool_search_output", "call_id": "a", "tools": [
                {"type": "function", "name": "send_mail"},
                {"type": "namespace", "name": "crm", "tools": [
                    {"type": "function", "name": "crm_lookup"},
                    {"type": "function", "name": "crm_merge"}
                ]}
            ]},
            {"type": "tool_search_output", "call_id": "b", "tools": []}
        ]}))
        .unwrap();
        assert_eq!(
            searches(&turn),
            [
                ("mail", vec!["send_mail", "crm_lookup", "crm_merge"]),
                (r#"{"goal":"files"}"#, vec![])
            ]
        );
        assert!(turn.calls.is_empty());
    }

    #[test]
    fn an_anthropic_search_s_query_is_its_server_tool_use_s_input() {
        let turn = read_anthropic(json!({"content": [
            {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_regex",
             "input": {"pattern": "weather|forecast"}},
            {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": "forecast"}]}},
            {"type": "tool_search_tool_result", "tool_use_id": "s2", "content": {
                "type": "tool_search_tool_result_error", "error_code": "unavailable"}},
            {"type": "tool_use", "id": "t1", "name": "forecast", "input": {"city": "Oslo"}}
        ]}))
        .unwrap();
        assert_eq!(
            searches(&turn),
            [("weather|forecast", vec!["forecast"]), ("", vec![])]
        );
        assert_eq!(turn.calls.len(), 1);
    }
}

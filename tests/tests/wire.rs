//! Each provider's tool calls in and results out, held to the providers' official Python SDKs:
//! the responses fed to the parser are built with each SDK's own response types
//! (`tests/wire/sdk.py responses`), and every message produced for the next request — the
//! model's turn kept unchanged and the results — validates against the SDK's request types
//! (`sdk.py validate`).

use serde_json::{Value, json};
use tool_runtime::{Agent, Ctx, Exec, Session, ToolOutput, tool};
use tool_todo::TodoWrite;
use tool_wire::{ModelTurn, Provider, WireError};

/// Tells the time.
#[tool]
fn clock() -> String {
    "12:00".into()
}

/// One provider's turns, read, run and answered.
struct Played {
    turns: Vec<(ModelTurn, Vec<ToolOutput>, Vec<Value>)>,
}

fn play(provider: Provider, bodies: &[Value]) -> Played {
    let mut ctx = Ctx::new();
    ctx.plugin::<TodoWrite>()
        .unwrap()
        .plugin::<Clock>()
        .unwrap();
    let exec = Exec::for_agent(Agent::new("wire", Session::in_memory()));
    let turns = bodies
        .iter()
        .map(|body| {
            let turn = provider.read_response(&body.to_string()).unwrap();
            let outputs = turn.run(&ctx.tools, &exec);
            assert_eq!(outputs.len(), turn.calls.len());
            let results = provider.results(&turn, &outputs);
            (turn, outputs, results)
        })
        .collect();
    Played { turns }
}

const UPDATED: &str = "Updated todo list: 1 pending, 1 in progress, 0 completed";

#[test]
fn every_providers_calls_pair_with_their_results_and_validate_against_its_sdk() {
    let responses: Value = serde_json::from_str(&tests::sdk::run("responses", None)).unwrap();
    let mut produced = serde_json::Map::new();
    for provider in Provider::ALL {
        let bodies = responses[provider.name()].as_array().unwrap();
        let played = play(provider, bodies);
        check(provider, &played);
        let turns: Vec<Value> = played
            .turns
            .iter()
            .map(|(turn, _, results)| json!({"message": turn.message, "results": results}))
            .collect();
        produced.insert(provider.name().into(), turns.into());
    }
    let report = tests::sdk::run("validate", Some(&Value::Object(produced)));
    assert!(report.contains("messages valid"), "{report}");
}

fn check(provider: Provider, played: &Played) {
    let [
        (first, first_out, first_results),
        (second, second_out, second_results),
    ] = played.turns.as_slice()
    else {
        panic!("two turns per provider");
    };
    // The first turn writes the list, whoever the provider.
    assert_eq!(first.calls[0].name, "todo_write");
    assert_eq!(first_out[0].text, UPDATED);
    match provider {
        Provider::OpenAiChat => {
            assert_eq!(first.text, "Planning.");
            assert_eq!(
                first_results,
                &[json!({"role": "tool", "tool_call_id": "call_a", "content": UPDATED})]
            );
            // `""` is no arguments; bad JSON, an unknown tool and a reused id are results the
            // model reads; one result per call, paired by id, in call order.
            assert_eq!(second.calls[0].args, "{}");
            assert_eq!(second_out[0].text, "12:00");
            assert!(
                second_out[1]
                    .text
                    .starts_with("Error: invalid arguments: malformed JSON"),
                "{}",
                second_out[1].text
            );
            assert!(
                second_out[2]
                    .text
                    .starts_with(r#"Error: unknown tool "nope""#)
            );
            assert_eq!(
                second_out[3].text,
                r#"Error: the call id "call_b" was used by an earlier call in the same turn; this call was not run"#
            );
            let ids: Vec<&Value> = second_results.iter().map(|r| &r["tool_call_id"]).collect();
            assert_eq!(ids, ["call_b", "call_c", "call_d", "call_b"]);
            assert_eq!(second.stop_reason.as_deref(), Some("tool_calls"));
        }
        Provider::OpenAiResponses => {
            // The reasoning item goes back unchanged, with the calls.
            assert_eq!(first.message[0]["type"], "reasoning");
            assert_eq!(first.message[0]["encrypted_content"], "opaque-reasoning");
            assert_eq!(
                first_results,
                &[json!({"type": "function_call_output", "call_id": "call_a", "output": UPDATED})]
            );
            assert_eq!(second.calls[0].args, "{}");
            assert_eq!(second_results[1]["call_id"], "call_c");
            assert!(
                second_results[1]["output"]
                    .as_str()
                    .unwrap()
                    .starts_with("Error: invalid arguments: malformed JSON")
            );
        }
        Provider::Anthropic => {
            assert_eq!(first.text, "On it.");
            // The thinking block and its signature go back unchanged.
            assert_eq!(first.message[0]["content"][0]["signature"], "sig-123");
            assert_eq!(first.message[0]["role"], "assistant");
            // One user message of results; `is_error` only on failures.
            assert_eq!(second_results.len(), 1);
            let blocks = second_results[0]["content"].as_array().unwrap();
            assert_eq!(blocks.len(), 3);
            assert_eq!(
                blocks[0],
                json!({"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00"})
            );
            assert_eq!(blocks[1]["tool_use_id"], "toolu_c");
            assert_eq!(blocks[1]["is_error"], true);
            assert_eq!(
                blocks[1]["content"],
                r#"Error: invalid arguments: todos: expected an array, got "x""#
            );
            assert_eq!(blocks[2]["is_error"], true);
        }
        Provider::Gemini => {
            // Thoughts are not the answer's text; calls without ids get stable ones, and
            // their responses go back without ids, in call order.
            assert_eq!(first.text, "Here goes.");
            let ids: Vec<&str> = first.calls.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(ids, ["gemini-call-0", "gemini-call-1"]);
            let parts = first_results[0]["parts"].as_array().unwrap();
            assert_eq!(
                parts[0],
                json!({"functionResponse": {"name": "todo_write", "response": {"output": UPDATED}}})
            );
            assert_eq!(parts[1]["functionResponse"]["name"], "clock");
            // The thought signatures go back unchanged.
            assert_eq!(
                first.message[0]["parts"][2]["thoughtSignature"],
                "c2lnLWNhbGw="
            );
            // Ids the model gave are echoed; a failure is `error`.
            let parts = second_results[0]["parts"].as_array().unwrap();
            assert_eq!(parts[0]["functionResponse"]["id"], "fc_1");
            assert_eq!(
                parts[1]["functionResponse"]["response"]["error"],
                "Error: invalid arguments: todos: expected an array, got 3"
            );
        }
        _ => unreachable!(),
    }
}

#[test]
fn a_response_that_is_not_the_providers_shape_is_a_host_error() {
    for provider in Provider::ALL {
        assert!(matches!(
            provider.read_response("not json"),
            Err(WireError::NotJson(_))
        ));
        let error = provider.read_response("{}").unwrap_err();
        assert!(
            error.to_string().starts_with("the response has no "),
            "{error}"
        );
    }
    assert_eq!(
        Provider::from_name("openai-responses"),
        Some(Provider::OpenAiResponses)
    );
    assert_eq!(Provider::from_name("bard"), None);
}

#[test]
fn a_host_that_ran_fewer_calls_still_answers_every_one() {
    let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "a", "type": "function", "function": {"name": "clock", "arguments": "{}"}},
                       {"id": "b", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]},
        "finish_reason": "tool_calls"}]});
    let turn = Provider::OpenAiChat
        .read_response(&body.to_string())
        .unwrap();
    let results = Provider::OpenAiChat.results(&turn, &[ToolOutput::success("12:00")]);
    assert_eq!(results.len(), 2);
    assert_eq!(results[1]["content"], "Error: the call was not run");
}

#[test]
fn a_gemini_call_without_an_id_never_takes_one_the_model_gave() {
    // The model's own ids look like generated ones, before and after the call without one.
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "gemini-call-1", "name": "clock", "args": {}}},
        {"functionCall": {"name": "clock", "args": {}}},
        {"functionCall": {"name": "clock", "args": {}}},
        {"functionCall": {"id": "gemini-call-2", "name": "clock", "args": {}}}
    ]}, "finishReason": "STOP"}]});
    let turn = Provider::Gemini.read_response(&body.to_string()).unwrap();
    let ids: Vec<&str> = turn.calls.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "gemini-call-1",
            "gemini-call-1-1",
            "gemini-call-2-1",
            "gemini-call-2"
        ]
    );
    let mut ctx = Ctx::new();
    ctx.plugin::<Clock>().unwrap();
    let outputs = turn.run(&ctx.tools, &Exec::new());
    assert!(outputs.iter().all(|output| !output.is_error), "{outputs:?}");
}

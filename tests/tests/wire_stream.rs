//! Each provider's streamed responses, held to the providers' official Python SDKs: the
//! streams are built with each SDK's own stream event (or chunk) types, each with the
//! equivalent non-streamed response (`tests/wire/sdk.py streams`). Read through the SSE framing
//! (`tool_agent::sse`) and [`StreamReader`], a stream gives what `read_response` gives for its
//! response, however its bytes are split across reads, and the turn it keeps validates against
//! the SDK's request types (`sdk.py validate`). Hostile streams are errors, never panics.

use std::io::{self, Read};
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};
use tool_agent::sse::{self, SseError};
use tool_runtime::{Ctx, Exec, ToolOutput, tool};
use tool_wire::{ModelTurn, Provider, StreamReader, WireCall, WireError};

/// Tells the time.
#[tool]
fn clock() -> String {
    "12:00".into()
}

/// One streamed response and its non-streamed equivalent.
struct Case {
    provider: Provider,
    name: String,
    sse: String,
    response: Value,
    /// What `read_response` gives for `response`.
    expected: ModelTurn,
}

impl Case {
    fn label(&self) -> String {
        format!("{} / {}", self.provider, self.name)
    }
}

/// `sdk.py streams`, read once for every test of this file.
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let streams: Value = serde_json::from_str(&tests::sdk::run("streams", None)).unwrap();
        let mut cases = Vec::new();
        for provider in Provider::ALL {
            for case in streams[provider.name()].as_array().unwrap() {
                let response = case["response"].clone();
                cases.push(Case {
                    provider,
                    name: case["name"].as_str().unwrap().to_owned(),
                    sse: case["sse"].as_str().unwrap().to_owned(),
                    expected: provider.read_response(&response.to_string()).unwrap(),
                    response,
                });
            }
        }
        assert!(cases.len() >= 12, "{} cases", cases.len());
        cases
    })
}

/// Why a stream gave no turn.
#[derive(Debug)]
#[expect(dead_code, reason = "read through Debug, in the failures' messages")]
enum Failure {
    Sse(SseError),
    Wire(WireError),
}

/// A streamed turn, with the text shown as it came and whether the stream said it was done.
#[derive(Debug)]
struct Streamed {
    turn: ModelTurn,
    shown: String,
    done: bool,
}

/// Reads a streamed body as a host does: the SSE framing over `body`'s reads, each event
/// pushed as it comes.
fn read_stream(provider: Provider, body: impl Read) -> Result<Streamed, Failure> {
    let mut reader = provider.stream_reader();
    let mut shown = String::new();
    for event in sse::events(body) {
        let event = event.map_err(Failure::Sse)?;
        if let Some(text) = reader
            .push(&event.event, &event.data)
            .map_err(Failure::Wire)?
        {
            shown.push_str(&text);
        }
    }
    let done = reader.is_done();
    let turn = reader.finish().map_err(Failure::Wire)?;
    Ok(Streamed { turn, shown, done })
}

/// The events of a whole body, as (name, data).
fn events_of(body: &str) -> Vec<(String, String)> {
    sse::events(body.as_bytes())
        .map(|event| {
            let event = event.unwrap();
            (event.event, event.data)
        })
        .collect()
}

/// Pushes `events` and finishes.
fn feed<'e>(
    provider: Provider,
    events: impl IntoIterator<Item = (&'e str, &'e str)>,
) -> Result<ModelTurn, WireError> {
    let mut reader = provider.stream_reader();
    for (event, data) in events {
        reader.push(event, data)?;
    }
    reader.finish()
}

/// A body whose reads return these chunks, one per read.
struct Chunked {
    chunks: Vec<Vec<u8>>,
    next: usize,
    offset: usize,
}

impl Chunked {
    fn new(bytes: &[u8], cuts: &[usize]) -> Self {
        let mut bounds: Vec<usize> = cuts.iter().map(|&cut| cut.min(bytes.len())).collect();
        bounds.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for end in bounds.into_iter().chain([bytes.len()]) {
            // An empty read would be the end of the body.
            if end > start {
                chunks.push(bytes[start..end].to_vec());
                start = end;
            }
        }
        Chunked {
            chunks,
            next: 0,
            offset: 0,
        }
    }

    fn bytewise(bytes: &[u8]) -> Self {
        Chunked::new(bytes, &(1..bytes.len()).collect::<Vec<_>>())
    }
}

impl Read for Chunked {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let Some(chunk) = self.chunks.get(self.next) else {
            return Ok(0);
        };
        let count = buffer.len().min(chunk.len() - self.offset);
        buffer[..count].copy_from_slice(&chunk[self.offset..self.offset + count]);
        self.offset += count;
        if self.offset == chunk.len() {
            self.next += 1;
            self.offset = 0;
        }
        Ok(count)
    }
}

fn same_turn(case: &Case, streamed: &Streamed, how: &str) {
    let label = case.label();
    assert_eq!(streamed.turn.calls, case.expected.calls, "{label}: {how}");
    assert_eq!(streamed.turn.text, case.expected.text, "{label}: {how}");
    assert_eq!(
        streamed.turn.stop_reason, case.expected.stop_reason,
        "{label}: {how}"
    );
    assert_eq!(streamed.shown, streamed.turn.text, "{label}: {how}");
}

#[test]
fn every_stream_reads_as_its_non_streamed_response_and_validates_against_its_sdk() {
    let mut produced = serde_json::Map::new();
    for case in cases() {
        let label = case.label();
        let streamed = read_stream(case.provider, case.sse.as_bytes())
            .unwrap_or_else(|failure| panic!("{label}: {failure:?}"));
        same_turn(case, &streamed, "whole");
        assert!(!streamed.turn.calls.is_empty() || case.name == "text only");
        // Gemini's stream ends with its body.
        assert_eq!(streamed.done, case.provider != Provider::Gemini, "{label}");
        match case.provider {
            // The kept message is what the provider sent, rebuilt: Chat's carries the same
            // calls (its `content` is null where the response left it out).
            Provider::OpenAiChat => {
                let calls = &case.response["choices"][0]["message"]["tool_calls"];
                let kept = &streamed.turn.message[0];
                assert_eq!(kept["role"], "assistant", "{label}");
                if calls.as_array().is_some_and(|calls| !calls.is_empty()) {
                    assert_eq!(&kept["tool_calls"], calls, "{label}");
                }
            }
            _ => assert_eq!(streamed.turn.message, case.expected.message, "{label}"),
        }
        let outputs: Vec<ToolOutput> = streamed
            .turn
            .calls
            .iter()
            .map(|call| ToolOutput::success(format!("ran {}", call.name)))
            .collect();
        let results = case.provider.results(&streamed.turn, &outputs);
        produced
            .entry(case.provider.name())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!({"message": streamed.turn.message, "results": results}));
    }
    let report = tests::sdk::run("validate", Some(&Value::Object(produced)));
    assert!(report.contains("messages valid"), "{report}");
}

fn call(id: &str, name: &str, args: &str) -> (String, String, String) {
    (id.into(), name.into(), args.into())
}

fn calls_of(turn: &ModelTurn) -> Vec<(String, String, String)> {
    turn.calls
        .iter()
        .map(|WireCall { id, name, args, .. }| (id.clone(), name.clone(), args.clone()))
        .collect()
}

#[test]
fn the_cases_say_what_each_provider_streams() {
    let find = |provider: Provider, name: &str| {
        let case = cases()
            .iter()
            .find(|case| case.provider == provider && case.name == name)
            .unwrap();
        read_stream(provider, case.sse.as_bytes()).unwrap().turn
    };
    // Every call at index 0, each with its own id: two calls, the second continued by index.
    let turn = find(Provider::OpenAiChat, "every call at index 0");
    assert_eq!(
        calls_of(&turn),
        [
            call("call_e", "clock", "{}"),
            call("call_f", "todo_write", r#"{"todos": []}"#)
        ]
    );
    // Arguments never sent past `""` are none; the kept message keeps them as sent.
    let turn = find(Provider::OpenAiChat, "no arguments");
    assert_eq!(turn.calls[0].args, "{}");
    assert_eq!(
        turn.message[0]["tool_calls"][0]["function"]["arguments"],
        ""
    );
    assert_eq!(turn.message[0]["content"], Value::Null);
    let turn = find(Provider::OpenAiResponses, "no arguments");
    assert_eq!(turn.calls[0].args, "{}");
    // Anthropic: `partial_json` cut mid-key and mid-escape spells the input; the thinking
    // block keeps its signature.
    let turn = find(Provider::Anthropic, "thinking, text and todo_write");
    assert!(
        turn.calls[0].args.contains("Vérifier ✓"),
        "{}",
        turn.calls[0].args
    );
    assert_eq!(turn.message[0]["content"][0]["signature"], "sig-123");
    assert_eq!(turn.text, "On it. Vérifier ✓");
    assert_eq!(
        find(Provider::Anthropic, "no arguments").calls[0].args,
        "{}"
    );
    // Gemini: ids generated as for a response, thoughts merged and not text, signed parts
    // kept as they came, the empty closing text dropped.
    let turn = find(Provider::Gemini, "calls without ids, thought signatures");
    let ids: Vec<&str> = turn.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["gemini-call-0", "gemini-call-1"]);
    assert_eq!(
        turn.message[0]["parts"][0],
        json!({"text": "Planning.", "thought": true})
    );
    assert_eq!(
        turn.message[0]["parts"][2]["thoughtSignature"],
        "c2lnLWNhbGw="
    );
    let results = Provider::Gemini.results(&turn, &[ToolOutput::success("ok")]);
    assert_eq!(
        results[0]["parts"][0],
        json!({"functionResponse": {"name": "todo_write", "response": {"output": "ok"}}})
    );
    let turn = find(Provider::Gemini, "two parallel calls with ids");
    assert_eq!(turn.message[0]["parts"].as_array().unwrap().len(), 4);
    assert_eq!(turn.calls[1].id, "fc_2");
}

#[test]
fn every_split_of_the_bytes_and_one_byte_per_read_read_the_same() {
    for case in cases() {
        let bytes = case.sse.as_bytes();
        for k in 0..=bytes.len() {
            let streamed = read_stream(case.provider, Chunked::new(bytes, &[k]))
                .unwrap_or_else(|failure| panic!("{}: split at {k}: {failure:?}", case.label()));
            same_turn(case, &streamed, &format!("split at {k}"));
        }
        let streamed = read_stream(case.provider, Chunked::bytewise(bytes)).unwrap();
        same_turn(case, &streamed, "one byte per read");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_chunking_reads_the_same(
        pick in any::<prop::sample::Index>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let case = pick.get(cases());
        let bytes = case.sse.as_bytes();
        let cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        let streamed = read_stream(case.provider, Chunked::new(bytes, &cuts)).unwrap();
        same_turn(case, &streamed, &format!("cut at {cuts:?}"));
    }

    /// One event's data corrupted (cut short, or one value anywhere replaced by another type or
    /// a huge number): an error or a turn, never a panic.
    #[test]
    fn corrupted_events_never_panic(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        path in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        replacement in prop::sample::select(vec![
            json!(null), json!(-1), json!(u64::MAX), json!(1e300), json!("x"), json!([]),
            json!({}), json!(true), json!([{"index": u64::MAX}]), json!({"type": "error"}),
        ]),
        truncate in any::<bool>(),
    ) {
        let case = pick.get(cases());
        let mut events = events_of(&case.sse);
        let event = at.get_mut(&mut events);
        if truncate {
            let boundaries: Vec<usize> =
                (0..=event.1.len()).filter(|&i| event.1.is_char_boundary(i)).collect();
            event.1.truncate(*cut.get(&boundaries));
        } else if let Ok(mut data) = serde_json::from_str::<Value>(&event.1) {
            let mut pointers = Vec::new();
            pointers_of(&data, String::new(), &mut pointers);
            let pointer = path.get(&pointers);
            if let Some(target) = data.pointer_mut(pointer) {
                *target = replacement;
            }
            event.1 = data.to_string();
        }
        let _ = feed(case.provider, events.iter().map(|(e, d)| (e.as_str(), d.as_str())));
    }
}

/// Text of any characters, the ones JSON escapes (quotes, backslashes, control characters) and
/// those beyond ASCII often among them.
fn any_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                '"', '\\', '/', '\n', '\t', '\u{0}', '\u{1f}', '\u{7f}'
            ]),
            prop::sample::select(vec!['é', '漢', '🦀', '\u{2028}']),
            any::<char>(),
            prop::char::range('a', 'z'),
        ],
        0..24,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// `text` cut at these places (each moved down to a character's start), in order.
fn pieces_of(text: &str, cuts: &[prop::sample::Index]) -> Vec<String> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = cut.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .collect();
    bounds.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for end in bounds.into_iter().chain([text.len()]) {
        pieces.push(text[start..end].to_owned());
        start = end;
    }
    pieces
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// An Anthropic stream as the API writes its events (compact, members in its order: the
    /// shape the reader reads by hand), its text and a call's input cut anywhere, with any
    /// characters in them, reads as the same response not streamed.
    #[test]
    fn an_anthropic_stream_as_the_api_writes_it_reads_as_its_response(
        said in any_text(),
        contents in prop::collection::vec(any_text(), 0..4),
        spaced in any::<bool>(),
        text_cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        input_cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let input = json!({"todos": contents.iter()
            .map(|content| json!({"content": content, "status": "pending", "n": 7}))
            .collect::<Vec<_>>()});
        // The API's pieces carry spaces after colons and commas; serde_json's have none.
        let input_text = if spaced {
            serde_json::to_string_pretty(&input).unwrap()
        } else {
            input.to_string()
        };
        let mut events = vec![json!({"type": "message_start", "message": {"id": "msg_1",
            "type": "message", "role": "assistant", "content": [], "model": "claude",
            "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}})];
        events.push(json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}));
        for piece in pieces_of(&said, &text_cuts) {
            events.push(json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": 0}));
        events.push(json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "todo_write", "input": {}}}));
        for piece in pieces_of(&input_text, &input_cuts) {
            events.push(json!({"type": "content_block_delta", "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        events.push(json!({"type": "content_block_stop", "index": 1}));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 20}}));
        events.push(json!({"type": "message_stop"}));
        let events: Vec<(String, String)> = events
            .iter()
            .map(|data| (data["type"].as_str().unwrap().to_owned(), data.to_string()))
            .collect();
        let streamed = feed(Provider::Anthropic, events.iter().map(|(e, d)| (e.as_str(), d.as_str())))
            .unwrap();

        let response = json!({"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude", "content": [
                {"type": "text", "text": said},
                {"type": "tool_use", "id": "toolu_1", "name": "todo_write", "input": input},
            ], "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 20}});
        let expected = Provider::Anthropic.read_response(&response.to_string()).unwrap();
        prop_assert_eq!(&streamed.calls, &expected.calls);
        prop_assert_eq!(&streamed.text, &said);
        prop_assert_eq!(&streamed.message[0]["content"], &response["content"]);
    }
}

/// Every JSON pointer in `value`, itself included.
fn pointers_of(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                pointers_of(member, format!("{at}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers_of(item, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn a_stream_cut_short_is_an_error_or_the_same_turn() {
    for case in cases() {
        let label = case.label();
        let events = events_of(&case.sse);
        for end in 0..events.len() {
            let prefix = events[..end].iter().map(|(e, d)| (e.as_str(), d.as_str()));
            let read = feed(case.provider, prefix);
            // Only OpenAI Chat's chunk with the `finish_reason` completes the turn before its
            // last event (`[DONE]`).
            let complete = case.provider == Provider::OpenAiChat && end == events.len() - 1;
            match read {
                Ok(turn) => {
                    assert!(complete, "{label}: {end} events read as a turn");
                    assert_eq!(turn.calls, case.expected.calls, "{label}");
                }
                Err(error) => {
                    assert!(!complete, "{label}: {error}");
                    assert!(
                        matches!(error, WireError::Truncated(_)),
                        "{label}: {end} events: {error}"
                    );
                }
            }
        }
        // Cut anywhere in its bytes: an error, or (its last event whole) the same calls.
        let bytes = case.sse.as_bytes();
        for k in 0..bytes.len() {
            if let Ok(streamed) = read_stream(case.provider, &bytes[..k]) {
                assert_eq!(
                    streamed.turn.calls, case.expected.calls,
                    "{label}: cut at {k}"
                );
            }
        }
    }
}

fn provider_error(read: Result<ModelTurn, WireError>) -> String {
    match read {
        Err(WireError::Provider(message)) => message,
        other => panic!("not a provider error: {other:?}"),
    }
}

#[test]
fn an_error_the_provider_reports_is_an_error_with_its_message() {
    let anthropic_start = r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c"}}"#;
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let mut reader = Provider::Anthropic.stream_reader();
    reader.push("message_start", anthropic_start).unwrap();
    let error = reader.push("error", overloaded).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the provider reported an error: overloaded_error: Overloaded"
    );
    // Every later call says it again.
    assert!(
        reader
            .push("message_stop", r#"{"type":"message_stop"}"#)
            .is_err()
    );
    assert_eq!(
        provider_error(reader.finish()),
        "overloaded_error: Overloaded"
    );
    // An error event whose data is not JSON: its data is the message.
    assert_eq!(
        provider_error(feed(Provider::Anthropic, [("error", "upstream timed out")])),
        "upstream timed out"
    );
    assert_eq!(
        provider_error(feed(
            Provider::OpenAiChat,
            [(
                "message",
                r#"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#
            )]
        )),
        "server_error: The server had an error"
    );
    assert_eq!(
        provider_error(feed(
            Provider::OpenAiResponses,
            [(
                "error",
                r#"{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null,"sequence_number":3}"#
            )]
        )),
        "rate_limit_exceeded: Slow down"
    );
    assert_eq!(
        provider_error(feed(
            Provider::OpenAiResponses,
            [(
                "response.failed",
                r#"{"type":"response.failed","response":{"status":"failed","output":[],"error":{"code":"server_error","message":"Failed"}}}"#
            )]
        )),
        "server_error: Failed"
    );
    assert_eq!(
        provider_error(feed(
            Provider::Gemini,
            [(
                "message",
                r#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}"#
            )]
        )),
        "RESOURCE_EXHAUSTED: Resource exhausted"
    );
    assert_eq!(
        provider_error(feed(
            Provider::Gemini,
            [(
                "message",
                r#"{"promptFeedback":{"blockReason":"SAFETY"},"modelVersion":"g"}"#
            )]
        )),
        "the prompt was blocked: SAFETY"
    );
}

#[test]
fn an_incomplete_responses_stream_still_gives_its_turn() {
    let case = cases()
        .iter()
        .find(|case| case.provider == Provider::OpenAiResponses)
        .unwrap();
    let mut response = case.response.clone();
    response["status"] = "incomplete".into();
    response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    let data = json!({"type": "response.incomplete", "sequence_number": 1, "response": response});
    let mut reader = Provider::OpenAiResponses.stream_reader();
    reader
        .push("response.incomplete", &data.to_string())
        .unwrap();
    assert!(reader.is_done());
    let turn = reader.finish().unwrap();
    assert_eq!(turn.stop_reason.as_deref(), Some("incomplete"));
    assert_eq!(turn.calls, case.expected.calls);
}

#[test]
fn junk_is_an_error_never_a_panic() {
    for provider in Provider::ALL {
        let mut reader = provider.stream_reader();
        assert!(matches!(
            reader.push("message", "not json"),
            Err(WireError::NotJson(_))
        ));
        assert!(matches!(
            reader.push("message", "[1, 2]"),
            Err(WireError::Missing(_))
        ));
        // A keep-alive carries nothing.
        assert_eq!(reader.push("message", "").unwrap(), None);
        assert!(!reader.is_done());
        let error = reader.finish().unwrap_err();
        assert!(
            matches!(error, WireError::Truncated(_)),
            "{provider}: {error}"
        );
        // Junk bytes through the framing too.
        assert!(read_stream(provider, &b"data: \xff\xfe\n\n"[..]).is_err());
        assert!(read_stream(provider, &b"\0\0garbage\n\n"[..]).is_err());
        assert!(read_stream(provider, &b""[..]).is_err());
    }
    assert_eq!(
        feed(Provider::Anthropic, []).unwrap_err().to_string(),
        "the stream ended before it was complete: it has no message_stop"
    );
    assert_eq!(
        feed(Provider::OpenAiChat, [("message", "[DONE]")])
            .unwrap()
            .calls,
        []
    );
    assert_eq!(
        feed(Provider::OpenAiChat, [("message", r#"{"choices":"x"}"#)])
            .unwrap_err()
            .to_string(),
        "the response has no choices"
    );
    // OpenAI Chat: wrong types are errors; a huge index allocates nothing.
    let chunk = |tool_calls: Value| {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]}).to_string()
    };
    for bad in [
        json!([{"index": -1, "id": "a"}]),
        json!([{"index": "0", "id": "a"}]),
        json!([{"index": 0, "id": 7}]),
        json!([{"index": 0, "function": {"name": ["clock"]}}]),
        json!(["x"]),
    ] {
        let mut reader = Provider::OpenAiChat.stream_reader();
        assert!(
            reader.push("message", &chunk(bad.clone())).is_err(),
            "{bad}"
        );
    }
    let huge = chunk(json!([
        {"index": u64::MAX, "id": "a", "function": {"name": "clock", "arguments": "{}"}}
    ]));
    let turn = feed(
        Provider::OpenAiChat,
        [("message", huge.as_str()), ("message", "[DONE]")],
    )
    .unwrap();
    assert_eq!(calls_of(&turn), [call("a", "clock", "{}")]);
    // A call without an id is the same host error as in a response.
    let no_id = chunk(json!([{"index": 0, "function": {"name": "clock"}}]));
    assert!(matches!(
        feed(
            Provider::OpenAiChat,
            [("message", no_id.as_str()), ("message", "[DONE]")]
        ),
        Err(WireError::Missing("tool_calls[].id"))
    ));
    // Anthropic: events out of order.
    let delta =
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#;
    assert!(matches!(
        feed(Provider::Anthropic, [("content_block_delta", delta)]),
        Err(WireError::OutOfOrder(_))
    ));
    let start = r#"{"type":"message_start","message":{"role":"assistant","content":[]}}"#;
    let far = r#"{"type":"content_block_delta","index":4294967296,"delta":{"type":"text_delta","text":"x"}}"#;
    assert!(matches!(
        feed(
            Provider::Anthropic,
            [("message_start", start), ("content_block_delta", far)]
        ),
        Err(WireError::OutOfOrder(_))
    ));
    assert!(matches!(
        feed(
            Provider::Anthropic,
            [("message_start", start), ("message_start", start)]
        ),
        Err(WireError::OutOfOrder(_))
    ));
}

#[test]
fn openai_chat_as_the_api_sends_it_with_nulls() {
    let chunks = [
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":null,"tool_calls":null},"logprobs":null,"finish_reason":null}],"usage":null}"#,
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"clock","arguments":""}}]},"finish_reason":null}]}"#,
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":"{}"}}]},"finish_reason":null}]}"#,
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        // Usage comes last, with no choices.
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}"#,
    ];
    // Without `[DONE]`: the `finish_reason` is enough.
    let turn = feed(Provider::OpenAiChat, chunks.map(|chunk| ("message", chunk))).unwrap();
    assert_eq!(calls_of(&turn), [call("call_1", "clock", "{}")]);
    assert_eq!(turn.stop_reason.as_deref(), Some("tool_calls"));
    // Without either: cut short.
    assert!(matches!(
        feed(
            Provider::OpenAiChat,
            chunks[..3].iter().map(|chunk| ("message", *chunk))
        ),
        Err(WireError::Truncated(_))
    ));
}

#[test]
fn anthropic_input_that_is_not_json_is_answered_to_the_model() {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c"}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"clock","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":1}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    let turn = feed(Provider::Anthropic, events).unwrap();
    assert_eq!(turn.calls[0].args, r#"{"a": "#);
    // The message sent back keeps an input the API accepts.
    assert_eq!(turn.message[0]["content"][0]["input"], json!({}));
    assert_eq!(turn.stop_reason.as_deref(), Some("max_tokens"));
    let mut ctx = Ctx::new();
    ctx.plugin::<Clock>().unwrap();
    let outputs = turn.run(&ctx.tools, &Exec::new());
    assert!(
        outputs[0]
            .text
            .starts_with("Error: invalid arguments: malformed JSON"),
        "{}",
        outputs[0].text
    );
}

#[test]
fn a_reader_is_debug() {
    let reader: StreamReader = Provider::Gemini.stream_reader();
    assert!(format!("{reader:?}").contains("Gemini"));
}

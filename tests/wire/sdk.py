"""The providers' official Python SDKs as the reference for the wire format.

`sdk.py responses` prints, as JSON, model responses built with each SDK's own response types
(then serialized as the SDK serializes them): the bodies tests/tests/wire.rs feeds the parser.
`sdk.py streams` prints, per provider, streamed responses: each case's `sse` is the body the
provider sends (server-sent events whose data are built with the SDK's own stream event or chunk
types), and `response` the equivalent non-streamed response (tests/tests/wire_stream.rs).
`sdk.py validate` reads from stdin what the project produced for them (the model's turn kept for
the next request, and the result messages) and validates each with the SDK's own request types;
it exits non-zero on the first that does not validate.
"""

import json
import sys

from pydantic import TypeAdapter

from anthropic.types import Message, MessageParam, RawMessageStreamEvent
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam
from openai.types.responses import Response, ResponseInputItemParam, ResponseStreamEvent

TODOS = {"todos": [{"content": "Read the spec", "status": "in_progress"},
                   {"content": "Write the parser", "status": "pending"}]}
BAD = '{"todos": [{"content": "x", "status": "done"}]'  # not even JSON: no closing brace


def dump(model):
    return model.model_dump(mode="json", exclude_none=True, by_alias=True)


def openai_chat(calls, content=None, finish_reason="tool_calls"):
    return dump(ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764720000,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": {
            "role": "assistant", "content": content,
            "tool_calls": [{"id": id_, "type": "function",
                            "function": {"name": name, "arguments": args}}
                           for id_, name, args in calls]}}],
    }))


def openai_responses(calls, text=None):
    output = [{"type": "reasoning", "id": "rs_1", "summary": [],
               "encrypted_content": "opaque-reasoning"}]
    if text is not None:
        output.append({"type": "message", "id": "msg_1", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    output += [{"type": "function_call", "id": f"fc_{i}", "call_id": id_, "name": name,
                "arguments": args, "status": "completed"}
               for i, (id_, name, args) in enumerate(calls)]
    return dump(Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1764720000, "model": "gpt-test",
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "status": "completed",
    }))


def anthropic(calls, text="On it."):
    content = [{"type": "thinking", "thinking": "The list first.", "signature": "sig-123"},
               {"type": "text", "text": text}]
    if text is None:
        content.pop()
    content += [{"type": "tool_use", "id": id_, "name": name, "input": args}
                for id_, name, args in calls]
    return dump(Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }))


def gemini_call(id_, name, args, signature=None):
    call = {"name": name}
    if args is not None:
        call["args"] = args
    if id_ is not None:
        call["id"] = id_
    part = {"function_call": call}
    if signature is not None:
        part["thought_signature"] = signature
    return part


def gemini_chunk(parts, finish_reason=None):
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish_reason is not None:
        candidate["finish_reason"] = finish_reason
    return dump(genai.GenerateContentResponse.model_validate({
        "candidates": [candidate], "model_version": "gemini-test",
    }))


def gemini(calls):
    parts = [{"text": "Planning.", "thought": True, "thought_signature": b"sig-thought"},
             {"text": "Here goes."}]
    parts += [gemini_call(id_, name, args, b"sig-call" if i == 0 else None)
              for i, (id_, name, args) in enumerate(calls)]
    return gemini_chunk(parts, "STOP")


def responses():
    return {
        "openai": [
            openai_chat([("call_a", "todo_write", json.dumps(TODOS))], content="Planning."),
            # Parallel calls: no arguments at all (""), arguments that are not JSON, an
            # unknown tool, and an id used twice.
            openai_chat([("call_b", "clock", ""), ("call_c", "todo_write", BAD),
                         ("call_d", "nope", "{}"), ("call_b", "clock", "{}")]),
        ],
        "openai-responses": [
            openai_responses([("call_a", "todo_write", json.dumps(TODOS))]),
            openai_responses([("call_b", "clock", ""), ("call_c", "todo_write", BAD)]),
        ],
        "anthropic": [
            anthropic([("toolu_a", "todo_write", TODOS)]),
            anthropic([("toolu_b", "clock", {}), ("toolu_c", "todo_write", {"todos": "x"}),
                       ("toolu_d", "nope", {})], text=""),
        ],
        "gemini": [
            gemini([(None, "todo_write", TODOS), (None, "clock", {})]),
            gemini([("fc_1", "clock", {}), ("fc_2", "todo_write", {"todos": 3})]),
        ],
    }


# Streamed responses.

# Non-ASCII, so the streams carry multi-byte UTF-8 that a read can split.
TODOS_UTF8 = {"todos": [{"content": "Vérifier ✓", "status": "in_progress"},
                        {"content": "Write the parser", "status": "pending"}]}


def text(value, ascii_only=False):
    return json.dumps(value, ensure_ascii=ascii_only)


def cut(text_, *at):
    """`text_` cut at the positions `at`."""
    bounds = [0, *at, len(text_)]
    return [text_[a:b] for a, b in zip(bounds, bounds[1:])]


def pieces(text_, count):
    step = max(1, -(-len(text_) // count))
    return [text_[i:i + step] for i in range(0, len(text_), step)] or [""]


def sse_data(payloads, end="\n\n"):
    return "".join(f"data: {text(payload)}{end}" for payload in payloads)


def sse_events(payloads):
    return "".join(f"event: {payload['type']}\ndata: {text(payload)}\n\n" for payload in payloads)


def chat_stream(deltas):
    """OpenAI Chat chunks, one per delta (`(delta, finish_reason)`), then `[DONE]`."""
    chunks = [dump(ChatCompletionChunk.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764720000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })) for delta, finish in deltas]
    return sse_data(chunks) + "data: [DONE]\n\n"


def chat_call(index, id_=None, name=None, arguments=None):
    call = {"index": index, "function": {}}
    if id_ is not None:
        call["id"] = id_
        call["type"] = "function"
    if name is not None:
        call["function"]["name"] = name
    if arguments is not None:
        call["function"]["arguments"] = arguments
    return call


def chat_streams():
    todos = text(TODOS_UTF8)
    first = [({"role": "assistant", "content": ""}, None), ({"content": "Plan"}, None),
             ({"content": "ning."}, None),
             ({"tool_calls": [chat_call(0, "call_a", "todo_write", "")]}, None)]
    first += [({"tool_calls": [chat_call(0, arguments=piece)]}, None) for piece in pieces(todos, 5)]
    first.append(({}, "tool_calls"))
    # Two calls, their arguments in pieces interleaved by index (and both in one chunk).
    a, b = pieces(todos, 4), cut('{"a": 1}', 3, 6)
    parallel = [({"role": "assistant"}, None),
                ({"tool_calls": [chat_call(0, "call_b", "todo_write", a[0]),
                                 chat_call(1, "call_c", "clock", "")]}, None)]
    parallel += [({"tool_calls": [chat_call(1, arguments=b[0])]}, None),
                 ({"tool_calls": [chat_call(0, arguments=a[1])]}, None),
                 ({"tool_calls": [chat_call(1, arguments=b[1]), chat_call(0, arguments=a[2])]}, None),
                 ({"tool_calls": [chat_call(0, arguments=a[3])]}, None),
                 ({"tool_calls": [chat_call(1, arguments=b[2])]}, None),
                 ({}, "tool_calls")]
    # A server that sends every call at index 0, each with its own id.
    index_zero = [({"role": "assistant", "content": "Two."}, None),
                  ({"tool_calls": [chat_call(0, "call_e", "clock", "{}")]}, None),
                  ({"tool_calls": [chat_call(0, "call_f", "todo_write", '{"todos": ')]}, None),
                  ({"tool_calls": [chat_call(0, arguments="[]}")]}, None),
                  ({}, "tool_calls")]
    return [
        {"name": "todo_write with text", "sse": chat_stream(first),
         "response": openai_chat([("call_a", "todo_write", todos)], content="Planning.")},
        {"name": "two parallel calls", "sse": chat_stream(parallel),
         "response": openai_chat([("call_b", "todo_write", todos),
                                  ("call_c", "clock", '{"a": 1}')])},
        {"name": "no arguments",
         "sse": chat_stream([({"role": "assistant", "tool_calls": [
             chat_call(0, "call_d", "clock", "")]}, None), ({}, "tool_calls")]),
         "response": openai_chat([("call_d", "clock", "")])},
        {"name": "every call at index 0", "sse": chat_stream(index_zero),
         "response": openai_chat([("call_e", "clock", "{}"),
                                  ("call_f", "todo_write", '{"todos": []}')], content="Two.")},
        {"name": "text only",
         "sse": chat_stream([({"role": "assistant", "content": "Vér"}, None),
                             ({"content": "ifier ✓"}, None), ({}, "stop")]),
         "response": openai_chat([], content="Vérifier ✓", finish_reason="stop")},
    ]


def responses_stream(response):
    """The events OpenAI Responses streams for `response` (an SDK-built response, dumped)."""
    shell = {key: value for key, value in response.items() if key != "output"}
    events = [{"type": "response.created",
               "response": {**shell, "output": [], "status": "in_progress"}},
              {"type": "response.in_progress",
               "response": {**shell, "output": [], "status": "in_progress"}}]
    for i, item in enumerate(response["output"]):
        at = {"output_index": i}
        if item["type"] == "message":
            events.append({"type": "response.output_item.added", **at,
                           "item": {**item, "content": [], "status": "in_progress"}})
            for c, part in enumerate(item["content"]):
                part_at = {**at, "item_id": item["id"], "content_index": c}
                events.append({"type": "response.content_part.added", **part_at,
                               "part": {**part, "text": ""}})
                events += [{"type": "response.output_text.delta", **part_at, "delta": piece,
                            "logprobs": []} for piece in pieces(part["text"], 3)]
                events += [{"type": "response.output_text.done", **part_at,
                            "text": part["text"], "logprobs": []},
                           {"type": "response.content_part.done", **part_at, "part": part}]
        elif item["type"] == "function_call":
            events.append({"type": "response.output_item.added", **at,
                           "item": {**item, "arguments": "", "status": "in_progress"}})
            events += [{"type": "response.function_call_arguments.delta", **at,
                        "item_id": item["id"], "delta": piece}
                       for piece in pieces(item["arguments"], 3) if piece]
            events.append({"type": "response.function_call_arguments.done", **at,
                           "item_id": item["id"], "arguments": item["arguments"]})
        else:
            events.append({"type": "response.output_item.added", **at, "item": item})
        events.append({"type": "response.output_item.done", **at, "item": item})
    events.append({"type": "response.completed", "response": response})
    adapter = TypeAdapter(ResponseStreamEvent)
    return sse_events(dump(adapter.validate_python({**event, "sequence_number": n}))
                      for n, event in enumerate(events))


def responses_streams():
    todos = text(TODOS_UTF8)
    cases = [
        ("todo_write with text", openai_responses([("call_a", "todo_write", todos)],
                                                  text="Planning. Vérifier ✓")),
        ("two parallel calls", openai_responses([("call_b", "todo_write", todos),
                                                 ("call_c", "clock", "{}")])),
        ("no arguments", openai_responses([("call_d", "clock", "")])),
    ]
    return [{"name": name, "sse": responses_stream(response), "response": response}
            for name, response in cases]


def anthropic_stream(message, json_pieces):
    """The events Anthropic streams for `message` (an SDK-built message, dumped); each
    tool_use block's input (`server_tool_use`'s too) comes as the `input_json_delta` pieces
    `json_pieces[i]`; any other block (a `tool_search_tool_result`) whole at its start."""
    start = {**message, "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}
    start.pop("stop_reason", None)
    events = [{"type": "message_start", "message": start}]
    calls = iter(json_pieces)
    for index, block in enumerate(message["content"]):
        at = {"index": index}
        if block["type"] == "thinking":
            events.append({"type": "content_block_start", **at,
                           "content_block": {**block, "thinking": "", "signature": ""}})
            events += [{"type": "content_block_delta", **at,
                        "delta": {"type": "thinking_delta", "thinking": piece}}
                       for piece in pieces(block["thinking"], 2)]
            events.append({"type": "content_block_delta", **at,
                           "delta": {"type": "signature_delta", "signature": block["signature"]}})
        elif block["type"] == "text":
            events.append({"type": "content_block_start", **at,
                           "content_block": {**block, "text": ""}})
            events += [{"type": "content_block_delta", **at,
                        "delta": {"type": "text_delta", "text": piece}}
                       for piece in pieces(block["text"], 3) if piece]
        elif not block["type"].endswith("tool_use"):
            events.append({"type": "content_block_start", **at, "content_block": block})
        else:
            events.append({"type": "content_block_start", **at,
                           "content_block": {**block, "input": {}}})
            events += [{"type": "content_block_delta", **at,
                        "delta": {"type": "input_json_delta", "partial_json": piece}}
                       for piece in next(calls)]
        events.append({"type": "content_block_stop", **at})
    events += [{"type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 20}},
               {"type": "message_stop"}]
    adapter = TypeAdapter(RawMessageStreamEvent)
    payloads = [dump(adapter.validate_python(event)) for event in events]
    # Anthropic sends pings between events; no SDK type models them.
    return sse_events(payloads[:1] + [{"type": "ping"}] + payloads[1:])


def anthropic_streams():
    # Cut mid-key, mid-escape (`\u00` | `e9`), mid-literal; the escapes spell "Vérifier ✓".
    escaped = text(TODOS_UTF8, ascii_only=True)
    mid_escape = escaped.index("\\u00e9") + 4
    first = cut(escaped, 4, mid_escape, escaped.index("progress") + 3)
    raw = text(TODOS_UTF8)
    second = cut(raw, raw.index("✓"), raw.index("✓") + 1, len(raw) - 2)
    return [
        {"name": "thinking, text and todo_write",
         "sse": anthropic_stream(anthropic([("toolu_a", "todo_write", TODOS_UTF8)],
                                           text="On it. Vérifier ✓"), [first]),
         "response": anthropic([("toolu_a", "todo_write", TODOS_UTF8)], text="On it. Vérifier ✓")},
        {"name": "two parallel calls",
         "sse": anthropic_stream(anthropic([("toolu_b", "todo_write", TODOS_UTF8),
                                            ("toolu_c", "clock", {"a": 1})], text=None),
                                 [second, cut('{"a": 1}', 1, 5)]),
         "response": anthropic([("toolu_b", "todo_write", TODOS_UTF8),
                                ("toolu_c", "clock", {"a": 1})], text=None)},
        {"name": "no arguments",
         "sse": anthropic_stream(anthropic([("toolu_d", "clock", {})], text=""), [[""]]),
         "response": anthropic([("toolu_d", "clock", {})], text="")},
    ]


def gemini_stream(chunks):
    return sse_data([gemini_chunk(parts, finish) for parts, finish in chunks], end="\r\n\r\n")


def gemini_streams():
    thought = {"text": "Planning.", "thought": True}
    first = [([{"text": "Plan", "thought": True}], None), ([{"text": "ning.", "thought": True}], None),
             ([{"text": "Here "}], None), ([{"text": "goes."}], None),
             ([gemini_call(None, "todo_write", TODOS_UTF8, b"sig-call")], None),
             ([gemini_call(None, "clock", {})], "STOP")]
    # A text part with a thought signature between plain ones: kept apart, as it came.
    signed = [([{"text": "Vér", "thought_signature": b"sig-text"}], None),
              ([{"text": "ifier"}, {"text": " ✓"}], None),
              ([gemini_call("fc_1", "clock", {}), gemini_call("fc_2", "todo_write", TODOS_UTF8)],
               None),
              ([{"text": ""}], "STOP")]
    return [
        {"name": "calls without ids, thought signatures", "sse": gemini_stream(first),
         "response": gemini_chunk([thought, {"text": "Here goes."},
                                   gemini_call(None, "todo_write", TODOS_UTF8, b"sig-call"),
                                   gemini_call(None, "clock", {})], "STOP")},
        {"name": "two parallel calls with ids", "sse": gemini_stream(signed),
         "response": gemini_chunk([{"text": "Vér", "thought_signature": b"sig-text"},
                                   {"text": "ifier ✓"}, gemini_call("fc_1", "clock", {}),
                                   gemini_call("fc_2", "todo_write", TODOS_UTF8)], "STOP")},
        {"name": "no arguments",
         "sse": gemini_stream([([{"text": "Time?"}], None),
                               ([gemini_call(None, "clock", None)], "STOP")]),
         "response": gemini_chunk([{"text": "Time?"}, gemini_call(None, "clock", None)], "STOP")},
    ]


def streams():
    return {"openai": chat_streams(), "openai-responses": responses_streams(),
            "anthropic": anthropic_streams(), "gemini": gemini_streams()}


def force(value):
    """Walks a validated value: pydantic validates `Iterable` members lazily, as they are
    iterated, so every one is iterated here."""
    if isinstance(value, dict):
        for member in value.values():
            force(member)
    elif isinstance(value, (str, bytes)):
        pass
    elif isinstance(value, (list, tuple)) or hasattr(value, "__next__"):
        for item in value:
            force(item)


def typed(param_type):
    adapter = TypeAdapter(param_type)
    return lambda message: force(adapter.validate_python(message))


ADAPTERS = {
    "openai": typed(ChatCompletionMessageParam),
    "openai-responses": typed(ResponseInputItemParam),
    "anthropic": typed(MessageParam),
    "gemini": genai.Content.model_validate,
}


def validate(produced):
    count = 0
    for provider, turns in produced.items():
        check = ADAPTERS[provider]
        for turn in turns:
            for message in turn["message"] + turn["results"]:
                try:
                    check(message)
                except Exception as error:  # noqa: BLE001 - any refusal is a failure
                    sys.exit(f"{provider}: {json.dumps(message)[:300]}: {error}")
                count += 1
    print(f"sdk validate: {count} messages valid")


if __name__ == "__main__":
    if sys.argv[1:] == ["responses"]:
        print(json.dumps(responses()))
    elif sys.argv[1:] == ["streams"]:
        print(json.dumps(streams()))
    elif sys.argv[1:] == ["validate"]:
        validate(json.load(sys.stdin))
    else:
        sys.exit("usage: sdk.py responses | streams | validate")

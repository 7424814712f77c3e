"""The providers' official Python SDKs as the reference for the wire format.

`sdk.py responses` prints, as JSON, model responses built with each SDK's own response types
(then serialized as the SDK serializes them): the bodies tests/tests/wire.rs feeds the parser.
`sdk.py validate` reads from stdin what the project produced for them (the model's turn kept for
the next request, and the result messages) and validates each with the SDK's own request types;
it exits non-zero on the first that does not validate.
"""

import json
import sys

from pydantic import TypeAdapter

from anthropic.types import Message, MessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.responses import Response, ResponseInputItemParam

TODOS = {"todos": [{"content": "Read the spec", "status": "in_progress"},
                   {"content": "Write the parser", "status": "pending"}]}
BAD = '{"todos": [{"content": "x", "status": "done"}]'  # not even JSON: no closing brace


def dump(model):
    return model.model_dump(mode="json", exclude_none=True, by_alias=True)


def openai_chat(calls, content=None):
    return dump(ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764720000,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": content,
            "tool_calls": [{"id": id_, "type": "function",
                            "function": {"name": name, "arguments": args}}
                           for id_, name, args in calls]}}],
    }))


def openai_responses(calls):
    output = [{"type": "reasoning", "id": "rs_1", "summary": [],
               "encrypted_content": "opaque-reasoning"}]
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
    content += [{"type": "tool_use", "id": id_, "name": name, "input": args}
                for id_, name, args in calls]
    return dump(Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20},
    }))


def gemini(calls):
    parts = [{"text": "Planning.", "thought": True, "thought_signature": b"sig-thought"},
             {"text": "Here goes."}]
    for i, (id_, name, args) in enumerate(calls):
        call = {"name": name, "args": args}
        if id_ is not None:
            call["id"] = id_
        part = {"function_call": call}
        if i == 0:
            part["thought_signature"] = b"sig-call"
        parts.append(part)
    return dump(genai.GenerateContentResponse.model_validate({
        "candidates": [{"content": {"role": "model", "parts": parts},
                        "finish_reason": "STOP", "index": 0}],
    }))


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
    elif sys.argv[1:] == ["validate"]:
        validate(json.load(sys.stdin))
    else:
        sys.exit("usage: sdk.py responses | validate")

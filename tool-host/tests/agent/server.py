"""A local stand-in for each provider's API, answering with responses built by the providers'
official Python SDKs (tests/wire/sdk.py), streamed or not, for `toolhost agent` to talk to.

    python3 server.py RECORD_DIR

Prints `PORT <n>` once it listens on 127.0.0.1, and exits when its standard input closes.
A request to `/s/<scenario>/<provider>/<mode>/...` (the agent's --base-url is
`http://127.0.0.1:<n>/s/<scenario>/<provider>/<mode>`, plus `/v1` for OpenAI's) gets the
scenario's next reply; every request is validated with the SDK's own request types and recorded,
with what did not validate, in RECORD_DIR/<scenario>-<provider>-<mode>.json.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "wire"))

import sdk  # noqa: E402
from anthropic.types import Message  # noqa: E402
from anthropic.types.message_create_params import (  # noqa: E402
    MessageCreateParamsNonStreaming, MessageCreateParamsStreaming)
from google.genai import types as genai  # noqa: E402
from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: E402
from openai.types.responses import Response  # noqa: E402
from openai.types.chat.completion_create_params import (  # noqa: E402
    CompletionCreateParamsNonStreaming, CompletionCreateParamsStreaming)
from openai.types.responses.response_create_params import (  # noqa: E402
    ResponseCreateParamsNonStreaming, ResponseCreateParamsStreaming)

LIST_A = {"todos": [{"content": "Read the spec", "status": "in_progress"},
                    {"content": "Write the parser", "status": "pending"}]}
LIST_B = {"todos": [{"content": "Read the spec", "status": "completed"},
                    {"content": "Write the parser", "status": "in_progress"},
                    {"content": "Test it \"twice\"\nthen ship", "status": "pending"}]}
LIST_C = {"todos": [{"content": "Read the spec", "status": "completed"},
                    {"content": "Write the parser", "status": "completed"},
                    {"content": "Test it", "status": "in_progress"}]}
BAD = {"todos": [{"content": "Read the spec", "status": "done"}]}
PADDING = "Thinking it through. " * 1000  # about 5000 tokens


# Each provider's turn: `calls` are (id, name, args) with args a dict, or None for "no
# arguments" (OpenAI's "", Anthropic's {}, Gemini's missing args).

def chat_turn(calls, text):
    return sdk.openai_chat([(id_, name, "" if args is None else json.dumps(args))
                            for id_, name, args in calls], content=text)


def chat_final(text):
    return sdk.dump(ChatCompletion.model_validate({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 1764720000,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}]}))


def responses_turn(calls, text):
    return sdk.openai_responses([(id_, name, "" if args is None else json.dumps(args))
                                 for id_, name, args in calls], text=text)


def anthropic_turn(calls, text):
    return sdk.anthropic([(id_, name, {} if args is None else args)
                          for id_, name, args in calls], text=text)


def anthropic_final(text):
    return sdk.dump(Message.model_validate({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 2}}))


def gemini_turn(calls, text):
    parts = [{"text": "Planning.", "thought": True, "thought_signature": b"sig-thought"}]
    if text:
        parts.append({"text": text})
    parts += [sdk.gemini_call(id_, name, args, b"sig-call" if i == 0 else None)
              for i, (id_, name, args) in enumerate(calls)]
    return sdk.gemini_chunk(parts, "STOP")


# The provider's own tool search: its search of `query` found `found` (names), then `calls`.

FORECAST = {"type": "object", "properties": {"city": {"type": "string"},
                                             "days": {"type": "integer", "default": 3}},
            "required": ["city"]}


def anthropic_searched(query, found, calls):
    content = [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                "input": {"query": query}},
               {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
                "content": {"type": "tool_search_tool_search_result",
                            "tool_references": [{"type": "tool_reference", "tool_name": name}
                                                for name in found]}}]
    content += [{"type": "tool_use", "id": id_, "name": name, "input": args}
                for id_, name, args in calls]
    return sdk.dump(Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 20}}))


def responses_searched(query, found, calls):
    output = [{"type": "tool_search_call", "id": "tsc_1", "execution": "server",
               "status": "completed", "arguments": {"query": query}},
              {"type": "tool_search_output", "id": "tso_1", "execution": "server",
               "status": "completed",
               "tools": [{"type": "function", "name": name, "parameters": FORECAST,
                          "strict": False, "defer_loading": True} for name in found]}]
    output += [{"type": "function_call", "id": f"fc_{i}", "call_id": id_, "name": name,
                "arguments": json.dumps(args), "status": "completed"}
               for i, (id_, name, args) in enumerate(calls)]
    return sdk.dump(Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1764720000, "model": "gpt-test",
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "status": "completed"}))


SEARCHED = {"anthropic": anthropic_searched, "openai-responses": responses_searched}

TURNS = {
    "openai": (chat_turn, chat_final),
    "openai-responses": (responses_turn, lambda text: sdk.openai_responses([], text=text)),
    "anthropic": (anthropic_turn, anthropic_final),
    "gemini": (gemini_turn, lambda text: sdk.gemini_chunk([{"text": text}], "STOP")),
}


def ids(provider, *names):
    """Call ids as the provider makes them; Gemini's calls come without."""
    if provider == "gemini":
        return [None] * len(names)
    prefix = {"openai": "call_", "openai-responses": "call_", "anthropic": "toolu_"}[provider]
    return [prefix + name for name in names]


def scenario(name, provider):
    """The replies of a scenario: ("json", body) or ("status", code, headers, body)."""
    turn, final = TURNS[provider]

    def calls(*pairs):
        return list(zip(ids(provider, *[f"{name}{i}" for i in range(len(pairs))]),
                        [p[0] for p in pairs], [p[1] for p in pairs]))

    if name.startswith("forever"):
        # A model that never stops calling tools: this turn, again and again.
        return [("json", turn(calls(("todo_write", LIST_A)), None))]
    if name in ("todo", "usage"):
        return [("json", turn(calls(("todo_write", LIST_A)), "Planning.")),
                ("json", final("Done."))]
    if name == "parallel":
        pair = calls(("todo_write", LIST_A), ("todo_write", LIST_B))
        if provider == "gemini":  # Gemini may give ids too: kept and echoed
            pair = [("fc_1", *pair[0][1:]), ("fc_2", *pair[1][1:])]
        return [("json", turn(pair, None)), ("json", final("Both done."))]
    if name == "bad_args":
        return [("json", turn(calls(("todo_write", BAD)), "Planning.")),
                ("json", turn(calls(("todo_write", LIST_A)), "Fixed.")),
                ("json", final("Done."))]
    if name == "empty_args":
        return [("json", turn(calls(("todo_write", None)), None)),
                ("json", final("Noted."))]
    if name == "rate_limit":
        busy = {"error": {"type": "rate_limit_error", "message": "Slow down"}}
        return [("status", 429, {"retry-after": "1"}, busy), ("json", final("Done."))]
    if name == "busy":
        busy = {"error": {"type": "overloaded_error", "message": "Overloaded"}}
        return [("status", 529, {"retry-after": "0"}, busy)] * 10
    if name == "compaction":
        return [("json", turn(calls(("todo_write", LIST_A)), PADDING)),
                ("json", turn(calls(("todo_write", LIST_B)), PADDING)),
                ("json", turn(calls(("todo_write", LIST_C)), "Nearly there.")),
                ("json", final("Done."))]
    # Tools of another MCP server (tests/agent/mcp_server.py), offered with the prefix `py_`.
    if name in ("mcp_bad", "mcp_bad_http"):
        return [("json", turn(calls(("py_plan", BAD)), "Planning.")),
                ("json", turn(calls(("py_plan", LIST_A)), "Fixed.")),
                ("json", final("Done."))]
    if name == "mcp_content":
        return [("json", turn(calls(("py_add", {"a": 2, "b": 3.0}), ("py_chart", {}),
                                    ("py_fail", {"reason": "no disk"})), None)),
                ("json", final("Done."))]
    if name in ("mcp_changed", "mcp_changed_http"):
        return [("json", turn(calls(("py_enable_extra", {})), None)),
                ("json", turn(calls(("py_extra", {"word": "hi"})), None)),
                ("json", final("Done."))]
    if name == "mcp_dead":
        return [("json", turn(calls(("py_die", {})), None)),
                ("json", turn(calls(("py_plan", LIST_A)), None)),
                ("json", turn(calls(("todo_write", LIST_A)), None)),
                ("json", final("Done."))]
    if name in ("approve", "approve_inline", "approve_resume"):
        return [("json", turn(calls(("py_count", {"by": 1}), ("py_wipe", {"target": "tmp/a"}),
                                    ("todo_write", LIST_A)), None)),
                ("json", final("Done."))]
    if name == "preview":
        return [("json", turn(calls(("py_big", {"lines": 500_000})), None)),
                ("json", turn(calls(("read_result", {"seq": 4, "offset": 4_999_990})), None)),
                ("json", final("Read."))]
    if name == "plan_mode":
        return [("json", turn(calls(("py_plan", LIST_A), ("todo_write", LIST_A)), None)),
                ("json", final("Planned."))]
    if name == "mcp_slow":
        return [("json", turn(calls(("py_slow", {"seconds": 30})), None)),
                ("json", turn(calls(("py_add", {"a": 1, "b": 1})), None)),
                ("json", final("Done."))]
    # 200 deferred tools of three MCP servers (tests/agent/many_tools.py): a search, a call of
    # one not loaded, then a call of the one the search found.
    if name == "deferred":
        return [("json", turn(calls(("search_tools", {"query": "weather forecast for a city"}),
                                    ("docs_create_page", {"id": "1"})), None)),
                ("json", turn(calls(("ops_weather_forecast", {"city": "Paris"})), None)),
                ("json", final("Sunny."))]
    if name == "deferred_native":
        searched = SEARCHED[provider]("weather forecast", ["ops_weather_forecast"],
                                      calls(("ops_weather_forecast", {"city": "Paris"})))
        return [("json", searched), ("json", final("Sunny."))]
    if name == "deferred_hostile":
        # Searches the search tool refuses, one that finds nothing, and a call of a tool no
        # server has.
        return [("json", turn(calls(("search_tools", {"query": ""}),
                                    ("search_tools", {"query": "weather", "limit": 11}),
                                    ("search_tools", {"limit": 2}),
                                    ("search_tools", {"query": "weather", "extra": True}),
                                    ("search_tools", {"query": "zebra xylophone"}),
                                    ("nowhere_tool", {})), None)),
                ("json", final("Nothing."))]
    if name == "deferred_native_ghost":
        # The provider's search names a tool this host does not have beside one it has, and
        # the model calls the one it does not have.
        searched = SEARCHED[provider]("weather", ["ghost_tool", "ops_weather_forecast"],
                                      calls(("ghost_tool", {})))
        return [("json", searched), ("json", final("Gone."))]
    if name == "deferred_again":
        return [("json", final("Still sunny."))]
    # todo_write here, and todo_write of another `toolhost mcp` offered with the prefix `remote_`.
    if name in ("traced", "traced_http"):
        return [("json", turn(calls(("todo_write", LIST_A), ("remote_todo_write", LIST_B)),
                              "Planning.")),
                ("json", final("Done."))]
    if name in ("resume", "other_provider"):
        return [("json", final("First.")), ("json", final("Second."))]
    raise KeyError(name)


# Streams: the same response as each provider streams it, events built with the SDK's types.

# Each reply carries a usage block, its counts from the reply's place in the scenario (`k`,
# from 0): in the one shape toolhost reads them into, input 1000 + k (7 of them cached) and
# output 50 + k (3 of them reasoning; Anthropic reports none). The agent tests sum them.

def usage_of(k):
    return 1000 + k, 50 + k


def with_usage(provider, body, k):
    """`body`, an SDK-built response, with the usage block its provider sends."""
    inp, out = usage_of(k)
    body = dict(body)
    if provider == "openai":
        body["usage"] = {"prompt_tokens": inp, "completion_tokens": out,
                         "total_tokens": inp + out,
                         "prompt_tokens_details": {"cached_tokens": 7},
                         "completion_tokens_details": {"reasoning_tokens": 3}}
        return sdk.dump(ChatCompletion.model_validate(body))
    if provider == "openai-responses":
        body["usage"] = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out,
                         "input_tokens_details": {"cached_tokens": 7, "cache_write_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 3}}
        return sdk.dump(Response.model_validate(body))
    if provider == "anthropic":
        # Anthropic's input_tokens leaves out the tokens read from the cache.
        body["usage"] = {"input_tokens": inp - 7, "output_tokens": out,
                         "cache_read_input_tokens": 7, "cache_creation_input_tokens": 0}
        return sdk.dump(Message.model_validate(body))
    # Gemini's candidatesTokenCount leaves out the thoughts.
    body["usageMetadata"] = {"promptTokenCount": inp, "candidatesTokenCount": out - 3,
                             "thoughtsTokenCount": 3, "cachedContentTokenCount": 7,
                             "totalTokenCount": inp + out}
    return sdk.dump(genai.GenerateContentResponse.model_validate(body))


def chat_stream(response):
    message = response["choices"][0]["message"]
    deltas = [({"role": "assistant", "content": ""}, None)]
    deltas += [({"content": piece}, None) for piece in sdk.pieces(message.get("content") or "", 3)
               if piece]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        deltas.append(({"tool_calls": [sdk.chat_call(index, call["id"], function["name"], "")]},
                       None))
        deltas += [({"tool_calls": [sdk.chat_call(index, arguments=piece)]}, None)
                   for piece in sdk.pieces(function["arguments"], 3) if piece]
    deltas.append(({}, response["choices"][0]["finish_reason"]))
    stream = sdk.chat_stream(deltas)
    if "usage" in response:
        # A last chunk with no choices and the usage, as OpenAI sends when the request says
        # `stream_options: {"include_usage": true}`.
        chunk = sdk.dump(ChatCompletionChunk.model_validate({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1764720000,
            "model": "gpt-test", "choices": [], "usage": response["usage"]}))
        done = "data: [DONE]\n\n"
        stream = stream[:-len(done)] + sdk.sse_data([chunk]) + done
    return stream


def anthropic_stream(message):
    inputs = [sdk.pieces(json.dumps(block["input"]), 3)
              for block in message["content"] if block["type"].endswith("tool_use")]
    stream = sdk.anthropic_stream(message, inputs)
    usage = message.get("usage")
    if not usage:
        return stream
    # The counts as Anthropic streams them: the input's in message_start, the output's (so
    # far) in message_delta.
    events = []
    for block in stream.split("\n\n"):
        if not block:
            continue
        name, data = block.split("\n", 1)
        payload = json.loads(data[len("data: "):])
        if payload["type"] == "message_start":
            payload["message"]["usage"] = {**usage, "output_tokens": 1}
        elif payload["type"] == "message_delta":
            payload["usage"] = {"output_tokens": usage["output_tokens"]}
        events.append(f"{name}\ndata: {json.dumps(payload)}\n\n")
    return "".join(events)


def gemini_stream(response):
    """One chunk per part, the last with the finish reason; each chunk validated from its JSON
    (so the base64 of thought signatures reads back as the same bytes)."""
    candidate = response["candidates"][0]
    parts = candidate["content"]["parts"]
    chunks = []
    for i, part in enumerate(parts):
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
                 "modelVersion": "gemini-test"}
        if i == len(parts) - 1:
            chunk["candidates"][0]["finishReason"] = candidate["finishReason"]
            if "usageMetadata" in response:
                chunk["usageMetadata"] = response["usageMetadata"]
        chunks.append(sdk.dump(genai.GenerateContentResponse.model_validate_json(
            json.dumps(chunk))))
    return sdk.sse_data(chunks, end="\r\n\r\n")


STREAMS = {"openai": chat_stream, "openai-responses": sdk.responses_stream,
           "anthropic": anthropic_stream, "gemini": gemini_stream}


def typed_request(non_streaming, streaming):
    plain, streamed = sdk.typed(non_streaming), sdk.typed(streaming)
    return lambda body: (streamed if body.get("stream") else plain)(body)


def gemini_request(body):
    unknown = set(body) - {"contents", "tools", "systemInstruction", "generationConfig",
                           "toolConfig"}
    if unknown:
        raise ValueError(f"unknown members {sorted(unknown)}")
    for content in body["contents"]:
        genai.Content.model_validate(content)
    for tool in body.get("tools", []):
        genai.Tool.model_validate(tool)


REQUESTS = {
    "openai": typed_request(CompletionCreateParamsNonStreaming, CompletionCreateParamsStreaming),
    "openai-responses": typed_request(ResponseCreateParamsNonStreaming,
                                      ResponseCreateParamsStreaming),
    "anthropic": typed_request(MessageCreateParamsNonStreaming, MessageCreateParamsStreaming),
    "gemini": gemini_request,
}

LOCK = threading.Lock()
SEEN = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        parts = self.path.split("/")
        if len(parts) < 6 or parts[1] != "s":
            self.send_error(404)
            return
        name, provider, mode = parts[2], parts[3], parts[4]
        key = f"{name}-{provider}-{mode}"
        body_bytes = self.rfile.read(int(self.headers.get("content-length", 0)))
        errors = []
        try:
            body = json.loads(body_bytes)
            REQUESTS[provider](body)
        except Exception as error:  # noqa: BLE001 - every refusal is recorded
            body = body_bytes.decode("utf-8", "replace")
            errors.append(str(error)[:2000])
        headers = {name_: self.headers.get(name_) for name_ in
                   ("authorization", "x-api-key", "x-goog-api-key", "anthropic-version",
                    "accept", "content-type") if self.headers.get(name_) is not None}
        with LOCK:
            seen = SEEN.setdefault(key, [])
            replies = scenario(name, provider)
            reply = replies[min(len(seen), len(replies) - 1)]
            if reply[0] == "json":
                reply = ("json", with_usage(provider, reply[1], len(seen)))
            seen.append({"path": "/" + "/".join(parts[5:]), "headers": headers, "body": body,
                         "errors": errors})
            with open(os.path.join(sys.argv[1], key + ".json"), "w") as record:
                json.dump(seen, record)
        if reply[0] == "status":
            _, status, extra, payload = reply
            self.send(status, "application/json", json.dumps(payload).encode(), extra)
        elif (isinstance(body, dict) and body.get("stream") is True) or "alt=sse" in self.path:
            self.send(200, "text/event-stream", STREAMS[provider](reply[1]).encode())
        else:
            self.send(200, "application/json", json.dumps(reply[1]).encode())

    def send(self, status, content_type, payload, extra=None):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        for header, value in (extra or {}).items():
            self.send_header(header, value)
        self.end_headers()
        self.wfile.write(payload)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()  # until the test process goes away


if __name__ == "__main__":
    main()

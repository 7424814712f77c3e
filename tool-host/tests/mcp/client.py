"""toolhost mcp, driven by the official Python MCP SDK's client.

Run by tool-host/tests/mcp_python.rs with TOOLHOST set to the binary and SPEC_DESCRIPTION_FILE
to the verbatim description; exits non-zero on the first mismatch.
"""

import asyncio
import json
import os
import sys
import tempfile

from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TOOLHOST = os.environ["TOOLHOST"]
with open(os.environ["SPEC_DESCRIPTION_FILE"], "rb") as f:
    DESCRIPTION = f.read().decode("utf-8")


def todos(*items):
    return {"todos": [{"content": c, "status": s} for c, s in items]}


# (arguments, expected text, expected isError), texts byte for byte from the spec.
CASES = [
    (todos(("Plan", "completed"), ("Build", "in_progress"), ("Ship", "pending")),
     "Updated todo list: 1 pending, 1 in progress, 1 completed", False),
    (todos(("a", "pending"), ("  ", "pending")),
     "Error: invalid todo: `content` must be a non-empty string", True),
    (todos(("x", "pending"), ("y", "pending"), ("y", "pending"), ("x", "pending")),
     'Error: invalid todos: duplicate content "y"', True),
    (todos(("say \"hi\"", "pending"), (" say \"hi\"", "pending")),
     'Error: invalid todos: duplicate content "say \\"hi\\""', True),
    (todos(("a", "in_progress"), ("b", "in_progress")),
     "Error: invalid todos: at most one task may be in_progress, got 2", True),
    ({"todos": [{"content": "a", "status": "done"}]},
     'Error: invalid arguments: todos[0].status: expected one of "pending", "in_progress", '
     '"completed", got "done"', True),
    ({"todos": [{"content": "a"}]}, 'Error: invalid arguments: todos[0]: missing field "status"', True),
    ({}, 'Error: invalid arguments: missing field "todos"', True),
    ({"todos": [], "session": "other"},
     'Error: invalid arguments: unknown field "session", expected "todos"', True),
    ({"todos": "x" * 70000},
     "Error: invalid arguments: 70012 bytes is more than the limit of 65536 bytes", True),
    (todos(), "Updated todo list: 0 pending, 0 in progress, 0 completed", False),
]


def text_of(result):
    assert len(result.content) == 1, result
    assert result.content[0].type == "text", result
    return result.content[0].text


async def connect_and_run(session_dir, writes):
    params = StdioServerParameters(
        command=TOOLHOST,
        args=["mcp", "--session-dir", session_dir, "--max-args-bytes", "65536"],
    )
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await writes(session)


async def check_protocol(session):
    listed = await session.list_tools()
    assert [t.name for t in listed.tools] == ["todo_write"], listed
    tool = listed.tools[0]
    assert tool.description == DESCRIPTION, "description differs from the spec"
    # What the tool declares of itself: a title and behaviour hints, nothing undeclared.
    assert tool.title == "Todo list", tool
    hints = tool.annotations
    assert (hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint) == \
        (False, True, False), hints
    assert hints.read_only_hint is None, hints
    schema = tool.input_schema
    assert schema["type"] == "object" and schema["required"] == ["todos"], schema
    assert schema["properties"]["todos"]["description"] == \
        "The COMPLETE task list, replacing any previous list."
    items = schema["properties"]["todos"]["items"]
    assert items["properties"]["content"]["description"] == \
        "What the task is \u2014 a short imperative line."
    assert items["properties"]["status"]["enum"] == ["pending", "in_progress", "completed"]

    for args, text, is_error in CASES:
        result = await session.call_tool("todo_write", args)
        got = text_of(result)
        assert got == text, f"{args!r:.80}: {got!r} != {text!r}"
        assert bool(result.is_error) == is_error, f"{args!r:.80}: isError {result.is_error}"

    result = await session.call_tool("todo_writ", {})
    assert result.is_error and text_of(result) == \
        'Error: unknown tool "todo_writ"; available tools: todo_write', result

    # Calls in flight together are all answered (the server runs them one at a time).
    results = await asyncio.gather(*(
        session.call_tool("todo_write", todos((f"step {i} \U0001F680", "pending")))
        for i in range(20)))
    for result in results:
        assert not result.is_error and text_of(result) == \
            "Updated todo list: 1 pending, 0 in progress, 0 completed", result

    # The server is still serving, and the last accepted list is ours.
    result = await session.call_tool("todo_write", todos(("mine", "in_progress")))
    assert text_of(result) == "Updated todo list: 0 pending, 1 in progress, 0 completed"


async def write_one(content):
    async def writes(session):
        result = await session.call_tool("todo_write", todos((content, "pending")))
        assert not result.is_error, result
    return writes


def current_lists(session_dir):
    lists = {}
    for name in sorted(os.listdir(session_dir)):
        with open(os.path.join(session_dir, name), encoding="utf-8") as f:
            events = [json.loads(line) for line in f.read().splitlines()[1:]]
        writes = [e for e in events if e["kind"] == "todo/write"]
        lists[name] = writes[-1]["data"]["todos"] if writes else None
    return lists


async def main():
    with tempfile.TemporaryDirectory() as session_dir:
        await connect_and_run(session_dir, check_protocol)
        lists = current_lists(session_dir)
        assert list(lists.values()) == [[{"content": "mine", "status": "in_progress"}]], lists

    # Two connections are two sessions: neither sees the other's list.
    with tempfile.TemporaryDirectory() as session_dir:
        await connect_and_run(session_dir, await write_one("first client"))
        await connect_and_run(session_dir, await write_one("second client"))
        lists = sorted(l[0]["content"] for l in current_lists(session_dir).values())
        assert lists == ["first client", "second client"], lists

    # Over Streamable HTTP, in both eras: the client's default (server/discover, then stateless
    # 2026-07-28 requests naming their agent session) and an initialize-era session.
    with tempfile.TemporaryDirectory() as session_dir:
        server = await asyncio.create_subprocess_exec(
            TOOLHOST, "mcp", "--http", "127.0.0.1:0", "--session-dir", session_dir,
            "--max-args-bytes", "65536", stderr=asyncio.subprocess.PIPE)
        try:
            line = (await asyncio.wait_for(server.stderr.readline(), 30)).decode()
            url = line.split("serving ")[1].split()[0]
            headers = {"Agent-Session": "over-http"}
            transport = streamable_http_client(
                url, http_client=create_mcp_http_client(headers=headers))
            async with Client(transport) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                await check_protocol(client.session)
            async with Client(streamable_http_client(url), mode="legacy") as client:
                assert client.protocol_version == "2025-11-25", client.protocol_version
                await check_protocol(client.session)
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)
        assert server.returncode == 0, server.returncode
        lists = current_lists(session_dir)
        assert len(lists) == 2 and "over-http.jsonl" in lists, lists
        assert all(l == [{"content": "mine", "status": "in_progress"}] for l in lists.values()), lists
    print("python mcp client: all checks passed")


asyncio.run(main())

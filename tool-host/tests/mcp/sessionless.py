"""The official Python MCP SDK's client with its defaults (2026-07-28, stateless, no header of
this project's) calling todo_write over Streamable HTTP at the URL given as the argument.

Run by tool-host/tests/mcp_sessionless.rs and mcp_http_replicas.rs. Prints, as its last line, a
JSON object from each session handle the server gave to the list that session must hold, for
the caller to check in the store; exits non-zero on the first mismatch.
"""

import asyncio
import json
import re
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

URL = sys.argv[1]
HANDLE = re.compile(r"m-[0-9a-f]{32}")


def todos(*items):
    return {"todos": [{"content": c, "status": s} for c, s in items]}


def text_of(result):
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


def handle_of(result):
    meta = result.meta or {}
    handle = meta.get("agentSession")
    assert isinstance(handle, str) and HANDLE.fullmatch(handle), result
    return handle


async def main():
    expected = {}
    async with Client(streamable_http_client(URL)) as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version

        # A call naming no session is served, in a session the server begins.
        first = await client.call_tool("todo_write", todos(("alpha", "pending")))
        assert not first.is_error, first
        assert text_of(first) == "Updated todo list: 1 pending, 0 in progress, 0 completed"
        a = handle_of(first)

        # Another call naming none: another session.
        second = await client.call_tool("todo_write", todos(("beta", "in_progress")))
        assert not second.is_error, second
        b = handle_of(second)
        assert a != b, (a, b)
        expected[b] = [{"content": "beta", "status": "in_progress"}]

        # The handle sent back continues the first session; no new one is begun.
        again = await client.call_tool(
            "todo_write", todos(("alpha", "completed"), ("gamma", "in_progress")),
            meta={"agentSession": a})
        assert not again.is_error, again
        assert text_of(again) == "Updated todo list: 0 pending, 1 in progress, 1 completed"
        assert "agentSession" not in (again.meta or {}), again
        expected[a] = [{"content": "alpha", "status": "completed"},
                       {"content": "gamma", "status": "in_progress"}]

        # A refused list begins a session too (its handle is in the answer), holding no list.
        refused = await client.call_tool(
            "todo_write", todos(("x", "in_progress"), ("y", "in_progress")))
        assert refused.is_error, refused
        assert text_of(refused) == \
            "Error: invalid todos: at most one task may be in_progress, got 2", refused
        expected[handle_of(refused)] = None

        # A tool that does not exist: the unknown-tool answer, with no session begun.
        try:
            unknown = await client.call_tool("no_such_tool", {})
        except MCPError as error:
            assert "no_such_tool" in str(error), error
        else:
            assert unknown.is_error and "no_such_tool" in text_of(unknown), unknown
            assert "agentSession" not in (unknown.meta or {}), unknown

    # Many default clients at once: every one gets a session of its own, holding its own list.
    async def one(i):
        async with Client(streamable_http_client(URL)) as client:
            result = await client.call_tool("todo_write", todos((f"caller {i}", "pending")))
            assert not result.is_error, result
            return handle_of(result), i

    handles = await asyncio.gather(*(one(i) for i in range(16)))
    assert len({handle for handle, _ in handles} | set(expected)) == len(handles) + len(expected)
    for handle, i in handles:
        expected[handle] = [{"content": f"caller {i}", "status": "pending"}]
    print(json.dumps(expected))


if __name__ == "__main__":
    asyncio.run(main())

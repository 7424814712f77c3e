"""author-cuts mcp, driven by the official Python MCP SDK's client: parameters with defaults
(left out or null), tools that return nothing, and a tool that panics, whose panic reaches the
model as an error and standard error as one line. Run by tests/cuts.rs with AUTHOR_CUTS set to
the binary; exits non-zero on the first mismatch."""

import asyncio
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

AUTHOR_CUTS = os.environ["AUTHOR_CUTS"]


def text_of(result):
    assert len(result.content) == 1, result
    assert result.content[0].type == "text", result
    return result.content[0].text


async def check(session):
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert sorted(listed) == ["explode", "forget", "page", "reset", "tag"], listed
    properties = listed["page"].input_schema["properties"]
    assert properties["size"]["default"] == 10, properties
    assert properties["exact"]["default"] is False, properties
    assert listed["page"].input_schema.get("required") is None, listed["page"].input_schema

    for arguments in ({}, {"size": None, "exact": None}):
        result = await session.call_tool("page", arguments)
        assert not result.is_error and text_of(result) == "size 10, exact false", result
    result = await session.call_tool("page", {"size": 3, "exact": True})
    assert text_of(result) == "size 3, exact true", result

    result = await session.call_tool("reset", {})
    assert not result.is_error and text_of(result) == "Done.", result
    result = await session.call_tool("forget", {"key": "k"})
    assert not result.is_error and text_of(result) == "Done.", result
    result = await session.call_tool("forget", {"key": ""})
    assert result.is_error and text_of(result) == "Error: name a key", result

    result = await session.call_tool("explode", {})
    assert result.is_error, result
    assert text_of(result).startswith("Error: explode panicked: the tool broke"), result
    # The server goes on.
    result = await session.call_tool("reset", {})
    assert text_of(result) == "Done.", result


async def main():
    with tempfile.TemporaryDirectory() as session_dir:
        errlog_path = os.path.join(session_dir, "stderr")
        params = StdioServerParameters(
            command=AUTHOR_CUTS, args=["mcp", "--session-dir", session_dir],
            env={k: v for k, v in os.environ.items() if k != "RUST_BACKTRACE"})
        with open(errlog_path, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await check(session)
        with open(errlog_path) as errlog:
            lines = [line for line in errlog.read().splitlines()
                     if not line.startswith("author-cuts mcp: session ")]
        # The panic, on one line: where and what, neutralized; no note, no backtrace.
        assert len(lines) == 1, lines
        assert lines[0].startswith("author-cuts: panicked at "), lines
        assert lines[0].endswith(": the tool broke\\nbadly"), lines
    print("author cuts mcp: all checks passed")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception:  # noqa: BLE001 - the test reports whatever failed
        import traceback
        traceback.print_exc()
        sys.exit(1)

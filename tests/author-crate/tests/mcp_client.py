"""author-host mcp (the author's tools behind toolhost's command line), driven by the official
Python MCP SDK's client: output schemas, structured content, annotations and titles, progress
notifications, cancellation and deadlines, over stdio and over Streamable HTTP in both protocol
eras (2026-07-28, stateless, which the client picks by default; and an `initialize`-era
session). Run by tests/mcp.rs with AUTHOR_HOST set to the binary; exits non-zero on the first
mismatch."""

import asyncio
import base64
import json
import os
import sys
import tempfile

from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

AUTHOR_HOST = os.environ["AUTHOR_HOST"]
LOCAL_USER = os.environ.get("USER") or os.environ.get("LOGNAME") or "local"


def text_of(result):
    assert len(result.content) == 1, result
    assert result.content[0].type == "text", result
    return result.content[0].text


async def check(session):
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert sorted(listed) == \
        ["bump", "chart", "nap", "outlook", "survey", "tally", "weather", "whoami"], listed

    # Who calls: where no token is checked, the local user.
    result = await session.call_tool("whoami", {})
    assert text_of(result) == f"{LOCAL_USER} of local", result

    # What a tool declares of itself, and nothing undeclared.
    weather = listed["weather"]
    assert weather.title == "Weather", weather
    hints = weather.annotations
    assert (hints.read_only_hint, hints.idempotent_hint, hints.open_world_hint) == \
        (True, True, False), hints
    assert hints.destructive_hint is None, hints
    assert listed["nap"].title is None and listed["nap"].annotations is None, listed["nap"]

    # Output schemas: an object's as it is, a list's wrapped as `result`.
    schema = weather.output_schema
    assert schema["type"] == "object", schema
    assert list(schema["properties"]) == ["city", "temp_c", "sky"], schema
    assert schema["properties"]["sky"]["enum"] == ["clear", "cloudy"], schema
    outlook = listed["outlook"].output_schema
    assert outlook["required"] == ["result"] and \
        outlook["properties"]["result"]["type"] == "array", outlook
    assert listed["nap"].output_schema is None

    # Structured results, which the client validates against the output schemas it listed.
    result = await session.call_tool("weather", {"city": "Oslo"})
    assert not result.is_error, result
    assert result.structured_content == {"city": "Oslo", "temp_c": 21.5, "sky": "clear"}, result
    assert json.loads(text_of(result)) == result.structured_content
    result = await session.call_tool("outlook", {"days": 3})
    assert result.structured_content == {"result": [20.0, 20.5, 21.0]}, result
    assert text_of(result) == "[20.0,20.5,21.0]"
    # An error is text alone.
    result = await session.call_tool("weather", {"city": ""})
    assert result.is_error and text_of(result) == "Error: name a city", result
    assert result.structured_content is None, result

    # Images: MCP image parts after the text, which names them.
    result = await session.call_tool("chart", {"values": [3, 1, 2]})
    assert not result.is_error, result
    assert [part.type for part in result.content] == ["text", "image"], result
    assert result.content[0].text == "3 bars:\n[image: image/x-bars, 3 bytes]", result
    image = result.content[1]
    assert image.mime_type == "image/x-bars", image
    assert base64.b64decode(image.data) == bytes([3, 1, 2]), image

    # Progress: every report, in order, before the result.
    heard = []

    async def on_progress(progress, total, message):
        heard.append((progress, total, message))

    result = await session.call_tool(
        "survey", {"sites": 3, "ms": 10}, progress_callback=on_progress)
    assert text_of(result) == "surveyed 3 sites", result
    assert heard == [(1.0, 3.0, "surveyed site 1"), (2.0, 3.0, "surveyed site 2"),
                     (3.0, 3.0, "surveyed site 3")], heard

    # Cancellation: the client gives up on a long survey and says so
    # (`notifications/cancelled`). Calls run in arrival order, so the next call answering at
    # once shows the survey was stopped, not left to run its 10 minutes.
    try:
        result = await session.call_tool(
            "survey", {"sites": 10000, "ms": 50}, read_timeout_seconds=0.5)
        raise AssertionError(f"the survey was not cut short: {result}")
    except AssertionError:
        raise
    except Exception:
        pass
    result = await session.call_tool("nap", {"ms": 1}, read_timeout_seconds=20)
    assert text_of(result) == "slept 1 ms", result

    # Blocking calls in flight together are all answered.
    results = await asyncio.gather(*(
        session.call_tool("tally", {"ms": 10}) for _ in range(5)))
    assert [text_of(r) for r in results] == ["blocked 10 ms"] * 5, results


async def check_deadlines(session):
    """The host's default deadline, for tools that declare none: a blocking call past it answers
    that it timed out; a tool's own deadline (nap's 20 s) still wins."""
    result = await session.call_tool("tally", {"ms": 3000})
    assert result.is_error and \
        text_of(result) == "Error: tally timed out after 200 ms", result
    result = await session.call_tool("nap", {"ms": 400})
    assert text_of(result) == "slept 400 ms", result


async def over_stdio(session_dir, args, checks):
    params = StdioServerParameters(
        command=AUTHOR_HOST, args=["mcp", "--session-dir", session_dir, *args])
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for check_one in checks:
                    await check_one(session)


async def serve_http(session_dir, *args):
    """author-host mcp --http on a free port; the URL it prints, and the process."""
    server = await asyncio.create_subprocess_exec(
        AUTHOR_HOST, "mcp", "--http", "127.0.0.1:0", "--session-dir", session_dir,
        *(args or ("--tool-timeout", "200ms")), stderr=asyncio.subprocess.PIPE)
    line = (await asyncio.wait_for(server.stderr.readline(), 30)).decode()
    assert "serving http://" in line, line
    return line.split("serving ")[1].split()[0], server


async def check_drain(grace, ms, expected):
    """SIGTERM while a call runs: it finishes within the grace period, or is cancelled after it,
    and is answered either way; the server exits 0."""
    with tempfile.TemporaryDirectory() as session_dir:
        url, server = await serve_http(session_dir, "--shutdown-grace", grace)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "nap", "arguments": {"ms": ms},
                           "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                     "io.modelcontextprotocol/clientCapabilities": {}}}}
        headers = {"Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                   "Mcp-Name": "nap", "Agent-Session": "drained"}
        async with create_mcp_http_client() as http:
            call = asyncio.create_task(http.post(url, json=body, headers=headers))
            await asyncio.sleep(0.5)
            server.terminate()
            response = await asyncio.wait_for(call, 30)
        await asyncio.wait_for(server.wait(), 30)
        assert server.returncode == 0, server.returncode
        data = [line[5:].strip() for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()]
        answer = json.loads(data[-1]) if data else response.json()
        assert answer["id"] == 1, answer
        assert answer["result"]["content"][0]["text"] == expected, answer


async def check_principals():
    """With tokens checked, a tool sees its caller (a context parameter) and may refuse by it;
    a caller whose token lacks a tool's scope is not shown the tool."""
    with tempfile.TemporaryDirectory() as session_dir:
        tokens = os.path.join(session_dir, "tokens")
        with open(tokens, "w", encoding="utf-8") as f:
            f.write("token-a alice whoami:read\ntoken-m mallory whoami:read\ntoken-b bob\n")
        os.chmod(tokens, 0o600)
        url, server = await serve_http(session_dir, "--auth-tokens", tokens)
        try:
            seen = {}
            for token in ("token-a", "token-m", "token-b"):
                headers = {"Agent-Session": "who", "Authorization": f"Bearer {token}"}
                transport = streamable_http_client(
                    url, http_client=create_mcp_http_client(headers=headers))
                async with Client(transport) as client:
                    names = [tool.name for tool in (await client.list_tools()).tools]
                    if "whoami" in names:
                        result = await client.call_tool("whoami", {})
                        seen[token] = (text_of(result), bool(result.is_error))
                    else:
                        seen[token] = None
            assert seen == {"token-a": ("alice of static", False),
                            "token-m": ("Error: mallory may not ask", True),
                            "token-b": None}, seen
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)


async def main():
    with tempfile.TemporaryDirectory() as session_dir:
        await over_stdio(session_dir, [], [check])
        await over_stdio(session_dir, ["--tool-timeout", "200ms"], [check_deadlines])

    with tempfile.TemporaryDirectory() as session_dir:
        url, server = await serve_http(session_dir)
        try:
            # The client's default: server/discover, then stateless 2026-07-28 requests, each
            # naming its agent session with the Agent-Session header.
            headers = {"Agent-Session": "stateless-1"}
            transport = streamable_http_client(
                url, http_client=create_mcp_http_client(headers=headers))
            async with Client(transport) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                await check(client.session)
                await check_deadlines(client.session)
            # An initialize-era session: its Mcp-Session-Id is the agent session's id.
            transport = streamable_http_client(url)
            async with Client(transport, mode="legacy") as client:
                assert client.protocol_version == "2025-11-25", client.protocol_version
                await check(client.session)
                await check_deadlines(client.session)
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)
        assert server.returncode == 0, server.returncode
        # One file per agent session: the stateless one by its name, the other by its
        # Mcp-Session-Id, which records the client's initialize and, at DELETE, its end.
        names = sorted(os.listdir(session_dir))
        assert len(names) == 2 and "stateless-1.jsonl" in names, names
        [legacy] = [name for name in names if name != "stateless-1.jsonl"]
        with open(os.path.join(session_dir, legacy), encoding="utf-8") as f:
            events = [json.loads(line) for line in f.read().splitlines()[1:]]
        assert [e["kind"] for e in events] == ["mcp/session", "mcp/ended"], events
        params = events[0]["data"]["initialize_params"]
        assert params["protocolVersion"] == "2025-11-25", params
    # The client's default with no header at all: a tool that takes no agent session runs
    # without one: no handle in its answer, no session begun in the store.
    with tempfile.TemporaryDirectory() as session_dir:
        url, server = await serve_http(session_dir)
        try:
            async with Client(streamable_http_client(url)) as client:
                assert client.protocol_version == "2026-07-28", client.protocol_version
                result = await client.call_tool("weather", {"city": "Oslo"})
                assert not result.is_error, result
                assert result.structured_content == \
                    {"city": "Oslo", "temp_c": 21.5, "sky": "clear"}, result
                assert "agentSession" not in (result.meta or {}), result
                result = await client.call_tool("weather", {"city": ""})
                assert result.is_error and text_of(result) == "Error: name a city", result
        finally:
            server.terminate()
            await asyncio.wait_for(server.wait(), 30)
        assert server.returncode == 0, server.returncode
        assert os.listdir(session_dir) == [], os.listdir(session_dir)
    await check_principals()
    await check_drain("10s", 1500, "slept 1500 ms")
    await check_drain("200ms", 5000, "Error: nap was cancelled")
    print("author host mcp: all checks passed")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # noqa: BLE001 - the test reports whatever failed
        import traceback
        traceback.print_exc()
        sys.exit(1)

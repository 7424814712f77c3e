"""One todo_write call from the official Python MCP SDK's client, with W3C trace context in its
`_meta`, as an instrumented MCP client sends it.

Usage: client.py stdio TRACEPARENT TOOLHOST ARGS…   (the server: TOOLHOST ARGS… on stdio)
       client.py http TRACEPARENT URL                (a `toolhost mcp --http` endpoint)

Prints the call's text.
"""

import asyncio
import os
import sys

from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ARGS = {"todos": [{"content": "Trace me", "status": "in_progress"}]}


async def main():
    mode, traceparent = sys.argv[1], sys.argv[2]
    meta = {"traceparent": traceparent, "tracestate": "vendor=opaque"}
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("todo_write", ARGS, meta=meta)
    else:
        async with Client(streamable_http_client(sys.argv[3]), mode="legacy") as client:
            result = await client.call_tool("todo_write", ARGS, meta=meta)
    assert not result.is_error, result
    print(result.content[0].text)


asyncio.run(main())

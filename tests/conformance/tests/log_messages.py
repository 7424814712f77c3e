"""conformance-host mcp on stdio, driven by the official Python MCP SDK's client: what a tool
logs arrives as notifications/message while it runs, named by the tool, and logging/setLevel
keeps what is less severe from the client. Run by tests/logging.rs (not named logging.py, which would hide the standard library's) with CONFORMANCE_HOST set."""

import asyncio
import os

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    heard = []

    async def logged(params):
        heard.append((params.level, params.logger, params.data))

    params = StdioServerParameters(command=os.environ["CONFORMANCE_HOST"], args=["mcp"])
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write, logging_callback=logged) as session:
                init = await session.initialize()
                assert init.capabilities.logging is not None, init
                result = await session.call_tool("test_tool_with_logging", {})
                assert result.content[0].text == "Tool with logging executed successfully"
                assert heard == [
                    ("info", "test_tool_with_logging", "Tool execution started"),
                    ("info", "test_tool_with_logging", "Tool processing data"),
                    ("info", "test_tool_with_logging", "Tool execution completed"),
                ], heard
                heard.clear()
                await session.set_logging_level("warning")
                result = await session.call_tool("test_tool_with_logging", {})
                assert not result.is_error, result
                assert heard == [], heard
                await session.set_logging_level("debug")
                await session.call_tool("test_tool_with_logging", {})
                assert len(heard) == 3, heard
    print("logging: all checks passed")


asyncio.run(main())

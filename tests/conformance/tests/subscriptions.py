"""conformance-host mcp on stdio, driven by the official Python MCP SDK's client: a client
subscribed to a resource hears notifications/resources/updated when the host says it changed
(the touch_watched_resource tool does), and stops hearing them once it unsubscribes; a
subscription to a URI the host does not serve is refused. Run by tests/subscriptions.rs with
CONFORMANCE_HOST set."""

import asyncio
import os

from mcp import ClientSession, MCPError, StdioServerParameters, types
from mcp.client.stdio import stdio_client

WATCHED = "test://watched-resource"


async def main():
    heard = []

    async def handle(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))

    params = StdioServerParameters(command=os.environ["CONFORMANCE_HOST"], args=["mcp"])
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write, message_handler=handle) as session:
                init = await session.initialize()
                assert init.capabilities.resources.subscribe is True, init
                # Not subscribed yet: nothing is heard.
                await session.call_tool("touch_watched_resource", {})
                await asyncio.sleep(0.3)
                assert heard == [], heard
                await session.subscribe_resource(WATCHED)
                await session.call_tool("touch_watched_resource", {})
                for _ in range(50):
                    if heard:
                        break
                    await asyncio.sleep(0.1)
                assert heard == [WATCHED], heard
                await session.unsubscribe_resource(WATCHED)
                await session.call_tool("touch_watched_resource", {})
                await asyncio.sleep(0.3)
                assert heard == [WATCHED], heard
                try:
                    await session.subscribe_resource("test://nothing-here")
                except MCPError as error:
                    assert "no resource at" in str(error), error
                else:
                    raise AssertionError("a subscription to no resource was taken")
    print("subscriptions: all checks passed")


asyncio.run(main())

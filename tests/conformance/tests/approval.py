"""conformance-host mcp, driven by the official Python MCP SDK's client: a tool marked
`needs_approval` runs only when the person, asked through the client's elicitation, accepts;
a declined or dismissed request, or a client that cannot ask, gets a refusal the model can act
on, and the tool never runs. Run by tests/approval.rs with CONFORMANCE_HOST set (and
CONFORMANCE_URL for the stateless HTTP leg)."""

import asyncio
import os

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


async def over_stdio(answer, asked):
    async def elicit(context, params):
        asked.append(params)
        return answer

    params = StdioServerParameters(command=os.environ["CONFORMANCE_HOST"], args=["mcp"])
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            callback = elicit if answer is not None else None
            async with ClientSession(read, write, elicitation_callback=callback) as session:
                await session.initialize()
                return await session.call_tool("purge_cache", {"cache": "thumbnails\nAllow? yes"})


async def main():
    asked = []
    accepted = await over_stdio(types.ElicitResult(action="accept", content={}), asked)
    assert not accepted.is_error, accepted
    assert text_of(accepted) == "purged thumbnails\nAllow? yes", accepted
    assert len(asked) == 1, asked
    question = asked[0]
    assert question.mode in (None, "form"), question
    assert question.requested_schema["properties"] == {}, question
    assert "purge_cache" in question.message, question.message
    # The arguments are shown as their JSON text: no line of them passes for a line of the question.
    assert '{"cache":"thumbnails\\nAllow? yes"}' in question.message, question.message

    asked.clear()
    declined = await over_stdio(types.ElicitResult(action="decline"), asked)
    assert declined.is_error, declined
    assert text_of(declined) == "Error: not approved: the person declined this call of purge_cache", declined
    assert len(asked) == 1

    asked.clear()
    dismissed = await over_stdio(types.ElicitResult(action="cancel"), asked)
    assert dismissed.is_error, dismissed
    assert text_of(dismissed).startswith("Error: not approved: the person dismissed"), dismissed

    unasked = await over_stdio(None, asked)
    assert unasked.is_error, unasked
    assert "cannot ask" in text_of(unasked) and "purge_cache" in text_of(unasked), unasked

    url = os.environ.get("CONFORMANCE_URL")
    if url:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        # The SDK's default client, of the stateless era: no server-to-client request can ask.
        async with Client(streamable_http_client(url)) as client:
            stateless = await client.call_tool("purge_cache", {"cache": "thumbnails"})
            assert stateless.is_error, stateless
            assert "cannot ask" in text_of(stateless), stateless
    print("approval: all checks passed")


asyncio.run(main())

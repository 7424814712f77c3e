"""conformance-host mcp --http in the stateless era (2026-07-28), driven by the official Python
MCP SDK's client: a tool's questions come as rounds (InputRequiredResult, SEP-2322) that the
client's callbacks answer; a round begun on one replica continues on another that holds the same
state secret; a state that is tampered with, sealed by another key, or carried to other
arguments is refused. Run by tests/rounds.rs with REPLICA_A, REPLICA_B (same secret) and
STRANGER (a key of its own) set to the endpoints' URLs."""

import asyncio
import os

from mcp import Client, MCPError, types
from mcp.client.streamable_http import streamable_http_client

A = os.environ["REPLICA_A"]
B = os.environ["REPLICA_B"]
STRANGER = os.environ["STRANGER"]


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


def accept(**content):
    return types.ElicitResult(action="accept", content=content)


async def answered_by_callbacks():
    asked = []

    async def elicit(context, params):
        asked.append(("person", params.message))
        if "color" in params.message:
            return accept(color="blue")
        return accept(name="Alice")

    async def sample(context, params):
        asked.append(("model", params.messages[0].content.text, params.max_tokens))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Hi there."),
            model="test-model",
            stop_reason="endTurn",
        )

    async def roots(context):
        asked.append(("roots",))
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="Work")])

    client = Client(
        streamable_http_client(A),
        elicitation_callback=elicit,
        sampling_callback=sample,
        list_roots_callback=roots,
    )
    async with client:
        # Three questions asked at once come in one round.
        result = await client.call_tool("test_input_required_result_multiple_inputs", {})
        assert not result.is_error, result
        assert text_of(result) == "Hello, Alice! Hi there. Roots: file:///work (Work)", result
        assert sorted(asked) == [
            ("model", "Generate a greeting", 50),
            ("person", "What is your name?"),
            ("roots",),
        ], asked

        # Questions asked one after another come in a round each, every answer kept.
        asked.clear()
        result = await client.call_tool("test_input_required_result_multi_round", {})
        assert text_of(result) == "Hello, Alice! Your favorite color is blue.", result
        assert asked == [
            ("person", "Step 1: What is your name?"),
            ("person", "Step 2: What is your favorite color?"),
        ], asked

        # A needs_approval tool asks the person in a round, and runs on their acceptance.
        asked.clear()
        result = await client.call_tool("purge_cache", {"cache": "thumbnails"})
        assert not result.is_error, result
        assert text_of(result) == "purged thumbnails", result
        assert len(asked) == 1 and "purge_cache" in asked[0][1], asked


async def declined_approval():
    async def decline(context, params):
        return types.ElicitResult(action="decline")

    async with Client(streamable_http_client(A), elicitation_callback=decline) as client:
        result = await client.call_tool("purge_cache", {"cache": "thumbnails"})
        assert result.is_error, result
        assert text_of(result) == "Error: not approved: the person declined this call of purge_cache"


async def rejected(client, name, arguments, responses, state):
    try:
        await client.session.call_tool(
            name, arguments, input_responses=responses, request_state=state, allow_input_required=True
        )
    except MCPError as error:
        assert error.error.code == -32602, error
        assert "requestState" in error.error.message, error
        return
    raise AssertionError(f"{name}: a bad requestState was taken")


async def unused(context, params):
    raise AssertionError("the rounds are driven by hand")


def client_of(url):
    # Declares that it can show forms; the rounds below are driven by hand.
    return Client(streamable_http_client(url), elicitation_callback=unused)


async def across_replicas():
    name = "test_input_required_result_multi_round"
    async with client_of(A) as on_a, client_of(B) as on_b:
        first = await on_a.session.call_tool(name, {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
        assert list(first.input_requests) == ["step1"], first
        # The second leg lands on the other replica, which opens the state the first sealed.
        second = await on_b.session.call_tool(
            name,
            {},
            input_responses={"step1": accept(name="Bob")},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(second, types.InputRequiredResult), second
        assert list(second.input_requests) == ["step2"], second
        assert second.request_state != first.request_state
        third = await on_a.session.call_tool(
            name,
            {},
            input_responses={"step2": accept(color="green")},
            request_state=second.request_state,
            allow_input_required=True,
        )
        assert text_of(third) == "Hello, Bob! Your favorite color is green.", third

        # An answer that does not fit the form is not taken: the question is asked again.
        again = await on_a.session.call_tool(
            "test_input_required_result_elicitation",
            {},
            input_responses={"user_name": accept(name=5)},
            allow_input_required=True,
        )
        assert isinstance(again, types.InputRequiredResult), again
        assert list(again.input_requests) == ["user_name"], again

        # Tampered with: refused.
        await rejected(on_b, name, {}, {"step2": accept(color="red")}, second.request_state[:-2] + "AA")
        # Carried to other arguments: refused.
        approval = await on_a.session.call_tool("purge_cache", {"cache": "a"}, allow_input_required=True)
        assert isinstance(approval, types.InputRequiredResult), approval
        (key,) = approval.input_requests
        await rejected(on_a, "purge_cache", {"cache": "b"}, {key: accept()}, approval.request_state)
        # Carried to another tool: refused.
        await rejected(on_a, "test_input_required_result_elicitation", {}, {}, first.request_state)

    # A server with another key cannot open it.
    async with client_of(STRANGER) as stranger:
        await rejected(stranger, name, {}, {"step2": accept(color="red")}, second.request_state)


async def main():
    await answered_by_callbacks()
    await declined_approval()
    await across_replicas()
    print("rounds: all checks passed")


asyncio.run(main())

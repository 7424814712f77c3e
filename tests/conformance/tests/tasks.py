"""Tasks (the tasks extension, SEP-2663) across two replicas of conformance-host mcp --http on
one PostgreSQL store, spoken as a stateless (2026-07-28) client speaks it, with the standard library's HTTP client: a task
begun on replica A is seen, answered and cancelled through replica B, and the one running it
goes on or stops accordingly; another caller never reaches it. Run by tests/tasks.rs with
REPLICA_A and REPLICA_B set to the endpoints' URLs; alice-token and bob-token are two callers."""

import itertools
import json
import os
import sys
import time
import urllib.error
import urllib.request

A = os.environ["REPLICA_A"]
B = os.environ["REPLICA_B"]
TASKS = "io.modelcontextprotocol/tasks"
ids = itertools.count(1)


def rpc(url, method, params, token="alice-token", tasks=True):
    caps = {"elicitation": {"form": {}}}
    if tasks:
        caps["extensions"] = {TASKS: {}}
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks.py", "version": "1"},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        "Accept": "application/json, text/event-stream",
    }
    name = params.get("name") or params.get("taskId")
    if name is not None:
        headers["Mcp-Name"] = name
    headers["Content-Type"] = "application/json"
    body = {"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            kind, text = response.headers.get("Content-Type", ""), response.read().decode()
    except urllib.error.HTTPError as refused:
        kind, text = refused.headers.get("Content-Type", ""), refused.read().decode()
    if kind.startswith("text/event-stream"):
        # The answer is the stream's message that carries the request's id.
        lines = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        messages = [json.loads(line) for line in lines if line.strip()]
        message = next(m for m in messages if m.get("id") == body["id"])
    else:
        message = json.loads(text)
    return message.get("result"), message.get("error")


def ok(url, method, params, **kwargs):
    result, error = rpc(url, method, params, **kwargs)
    assert error is None, f"{method} {params}: {error}"
    return result


def until(url, task, done, seconds=15):
    deadline = time.monotonic() + seconds
    while True:
        got = ok(url, "tasks/get", {"taskId": task})
        if done(got) or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def text_of(result):
    return "".join(part.get("text", "") for part in result["content"])


def main():
    # Begun on A, cancelled through B: both see it cancelled, and it stays so.
    begun = ok(A, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 2}})
    assert begun["resultType"] == "task", begun
    task = begun["taskId"]
    seen = ok(B, "tasks/get", {"taskId": task})
    assert seen["status"] == "working", seen
    ack = ok(B, "tasks/cancel", {"taskId": task})
    assert ack == {"resultType": "complete"}, ack
    time.sleep(3)
    for url in (A, B):
        got = ok(url, "tasks/get", {"taskId": task})
        assert got["status"] == "cancelled", got
        assert "result" not in got, got

    # A question asked on A, answered through B: the call on A goes on to its end.
    begun = ok(A, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "x.txt"}})
    task = begun["taskId"]
    asked = until(B, task, lambda got: got["status"] == "input_required")
    assert asked["status"] == "input_required", asked
    assert list(asked["inputRequests"]) == ["confirm"], asked
    assert asked["inputRequests"]["confirm"]["method"] == "elicitation/create", asked
    ack = ok(B, "tasks/update", {
        "taskId": task,
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}},
    })
    assert ack == {"resultType": "complete"}, ack
    done = until(A, task, lambda got: got["status"] == "completed")
    assert done["status"] == "completed", done
    assert text_of(done["result"]) == "Deleted x.txt", done

    # An answer that does not fit the form is no answer: the question stays.
    begun = ok(A, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "y.txt"}})
    task = begun["taskId"]
    until(A, task, lambda got: got["status"] == "input_required")
    ok(B, "tasks/update", {
        "taskId": task,
        "inputResponses": {
            "confirm": {"action": "accept", "content": {"confirm": "yes"}},
            "nothing-asked": {"action": "accept", "content": {}},
        },
    })
    time.sleep(1)
    got = ok(A, "tasks/get", {"taskId": task})
    assert got["status"] == "working", got
    ok(B, "tasks/cancel", {"taskId": task})
    got = ok(A, "tasks/get", {"taskId": task})
    assert got["status"] == "cancelled", got

    # Another caller finds nothing of alice's task: the same error as an unknown id.
    for method, params in [
        ("tasks/get", {"taskId": task}),
        ("tasks/cancel", {"taskId": task}),
        ("tasks/update", {"taskId": task, "inputResponses": {}}),
    ]:
        result, error = rpc(B, method, params, token="bob-token")
        assert result is None and error["code"] == -32602, (method, result, error)
    for bad in ["task-00000000000000000000000000000000", "../../etc/passwd", "task-zz", ""]:
        result, error = rpc(A, "tasks/get", {"taskId": bad})
        assert result is None and error["code"] == -32602, (bad, result, error)

    # A client that does not speak the extension: no task methods, and calls wait.
    result, error = rpc(A, "tasks/get", {"taskId": task}, tasks=False)
    assert error["code"] == -32021, error
    result = ok(A, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}, tasks=False)
    assert result.get("resultType", "complete") == "complete" and "taskId" not in result, result
    assert text_of(result) == "Computed for 0s", result
    result, error = rpc(A, "tools/call", {"name": "failing_job", "arguments": {}}, tasks=False)
    assert error["code"] == -32021, error

    print("tasks: all checks passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"tasks: {error}", file=sys.stderr)
        raise

"""The memory of an MCP Streamable HTTP server holding many sessions and connections: one
`todo_write` call for each of SESSIONS agent sessions (stateless era, one kept-alive
connection), then CONNECTIONS more connections that each make one call and stay open, idle.
Prints the server's resident set (VmRSS, from /proc) before, after the sessions and after the
connections, in KiB, as one line: `RSS <start> <sessions> <connections>`.

    python benches/mcp_http_memory.py PORT PID SESSIONS CONNECTIONS
"""

import http.client
import json
import sys

PORT, PID, SESSIONS, CONNECTIONS = (int(arg) for arg in sys.argv[1:5])

BODY = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {
        "name": "todo_write",
        "arguments": {"todos": [
            {"content": "Plan", "status": "completed"},
            {"content": "Build", "status": "in_progress"},
            {"content": "Ship", "status": "pending"},
        ]},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}},
    },
})


def rss():
    with open(f"/proc/{PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


def call(connection, session):
    connection.request("POST", "/mcp", BODY, {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "todo_write",
        "Agent-Session": session,
    })
    response = connection.getresponse()
    answer = response.read()
    if response.status != 200 or b"Updated todo list" not in answer:
        raise SystemExit(f"call failed: {response.status} {answer[:200]!r}")


start = rss()
one = http.client.HTTPConnection("127.0.0.1", PORT)
for n in range(SESSIONS):
    call(one, f"idle-{n}")
sessions = rss()
held = []
for n in range(CONNECTIONS):
    connection = http.client.HTTPConnection("127.0.0.1", PORT)
    call(connection, f"idle-{n % SESSIONS}")
    held.append(connection)
print(f"RSS {start} {sessions} {rss()}")

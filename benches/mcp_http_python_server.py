"""The pinned Python MCP SDK's own Streamable HTTP server serving todo_write as toolhost does:
the same arguments, the same rules, the same answer, and the accepted list appended to the
agent session's JSON Lines file and fdatasync'ed before the answer (toolhost's default
durability). The session is the Agent-Session header, as toolhost's stateless era names it.

    python benches/mcp_http_python_server.py PORT SESSION_DIR
"""

import json
import os
import sys
from typing import Literal

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

PORT = int(sys.argv[1])
SESSION_DIR = sys.argv[2]


class Todo(BaseModel):
    content: str
    status: Literal["pending", "in_progress", "completed"]


# Warnings only: no access line per request, as toolhost writes none.
server = MCPServer("python-todo", log_level="WARNING")


@server.tool()
def todo_write(todos: list[Todo], ctx: Context) -> str:
    """Record and update a structured task list for the current work."""
    seen = set()
    for todo in todos:
        if not todo.content.strip():
            return "Error: invalid todo: `content` must be a non-empty string"
        key = todo.content.strip()
        if key in seen:
            return f"Error: invalid todos: duplicate content {json.dumps(key)}"
        seen.add(key)
    active = sum(todo.status == "in_progress" for todo in todos)
    if active > 1:
        return f"Error: invalid todos: at most one task may be in_progress, got {active}"
    request = ctx.request_context.request
    session = request.headers.get("agent-session", "default") if request else "default"
    line = json.dumps({"kind": "todo/write",
                       "data": {"todos": [todo.model_dump() for todo in todos]}})
    path = os.path.join(SESSION_DIR, os.path.basename(session) + ".jsonl")
    with open(path, "a", encoding="utf-8") as log:
        log.write(line + "\n")
        log.flush()
        os.fdatasync(log.fileno())
    counts = [sum(todo.status == s for todo in todos)
              for s in ("pending", "in_progress", "completed")]
    return "Updated todo list: {} pending, {} in progress, {} completed".format(*counts)


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=PORT, stateless_http=True,
               json_response=True)

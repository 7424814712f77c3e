"""An MCP server built on the pinned Python MCP SDK (its MCPServer), whose tools `toolhost agent
--mcp` is tested against. Every tools/call that reaches it is appended to LOG (one JSON line: the
tool and its arguments as received, before the SDK validates them), so a test can tell a call
that never left toolhost from one the server refused.

    python mcp_server.py stdio LOG
    python mcp_server.py http LOG [TOKEN]   # prints "PORT <n>"; with TOKEN, a bearer is required
    python mcp_server.py redirect           # prints "PORT <redirector> <target>": the first
                                            # answers 307 to the second, which records what
                                            # reaches it on standard error
"""

import asyncio
import base64
import json
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from mcp.server.mcpserver.utilities.types import Image

MODE = sys.argv[1]
LOG = sys.argv[2] if len(sys.argv) > 2 else os.devnull

# A 1×1 PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


class Logged(MCPServer):
    async def call_tool(self, name, arguments, context=None):
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
        return await super().call_tool(name, arguments, context)


server = Logged("python-tools", log_level="WARNING")


class Todo(BaseModel):
    content: Annotated[str, Field(min_length=1)]
    status: Literal["pending", "in_progress", "completed"]


@server.tool()
def plan(todos: list[Todo], note: str | None = None) -> str:
    """Records a plan: its tasks, each pending, in progress or completed."""
    return f"planned {len(todos)}"


@server.tool(structured_output=True)
def add(a: int, b: Annotated[int, Field(ge=0, le=100)]) -> int:
    """Adds two integers, the second from 0 to 100."""
    return a + b


@server.tool()
def chart() -> Image:
    """Draws a chart."""
    return Image(data=PIXEL, format="png")


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def count(by: int) -> str:
    """Adds to a counter kept beside the log, and answers its value (destructive: it writes)."""
    path = LOG + ".count"
    value = (int(open(path).read()) if os.path.exists(path) else 0) + by
    with open(path, "w") as counter:
        counter.write(str(value))
    return str(value)


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def wipe(target: Annotated[str, Field(pattern="^tmp/")]) -> str:
    """Wipes a path under tmp/ (destructive)."""
    return f"wiped {target}"


@server.tool()
def big(lines: int) -> str:
    """Answers `lines` numbered lines of ten bytes each."""
    return "".join(f"{i:09d}\n" for i in range(lines))


@server.tool()
def fail(reason: str) -> str:
    """Fails with the reason given."""
    raise ValueError(reason)


@server.tool()
def conditional(kind: str) -> str:
    """A tool whose schema says more than JSON Schema's core: an if/then."""
    return kind


conditional_tool = server._tool_manager._tools["conditional"]
conditional_tool.parameters = {
    "type": "object",
    "properties": {"kind": {"type": "string"}},
    "required": ["kind"],
    "if": {"properties": {"kind": {"const": "a"}}},
    "then": {"required": ["kind"]},
}


@server.tool()
async def slow(seconds: float) -> str:
    """Sleeps, then answers."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:  # the client cancelled the call
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": "slow", "arguments": {"cancelled": True}}) + "\n")
        raise
    return "woke"


@server.tool()
def die() -> str:
    """Exits the server at once, in the middle of the call."""
    os._exit(1)


def extra(word: str) -> str:
    """Echoes a word (offered once `enable_extra` has run)."""
    return f"extra {word}"


@server.tool()
async def enable_extra(ctx: Context) -> str:
    """Adds the tool `extra` and tells the client its tools changed."""
    server.add_tool(extra)
    # On the call's own stream (over HTTP too), so it arrives before the call's answer.
    from mcp import types
    await ctx.session.send_notification(types.ToolListChangedNotification(),
                                        related_request_id=ctx.request_id)
    return "enabled"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_http():
    import uvicorn
    from starlette.responses import JSONResponse

    token = sys.argv[3] if len(sys.argv) > 3 else None
    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if token and scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await JSONResponse({"error": "invalid_token"}, status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    port = free_port()
    print(f"PORT {port}", flush=True)
    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


def serve_redirect():
    class Target(BaseHTTPRequestHandler):
        def do_POST(self):
            print(json.dumps({"path": self.path, "authorization": self.headers.get("authorization")}),
                  file=sys.stderr, flush=True)
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args):
            pass

    target = ThreadingHTTPServer(("127.0.0.1", 0), Target)

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self):
            self.send_response(307)
            self.send_header("location", f"http://127.0.0.1:{target.server_address[1]}/mcp")
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, *args):
            pass

    redirect = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    for running in (target, redirect):
        threading.Thread(target=running.serve_forever, daemon=True).start()
    print(f"PORT {redirect.server_address[1]} {target.server_address[1]}", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    if MODE == "stdio":
        server.run("stdio")
    elif MODE == "http":
        serve_http()
    elif MODE == "redirect":
        serve_redirect()
    else:
        raise SystemExit(f"unknown mode {MODE}")

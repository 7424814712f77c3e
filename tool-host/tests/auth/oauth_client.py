"""The official Python MCP client's OAuth support against `toolhost mcp --http URL`: it is
refused (401), finds the authorization server from the protected-resource metadata the answer
names, registers, authorizes with PKCE (the user's consent is the server's at once; this
script follows the redirect as a browser would), takes the token, and calls todo_write. Prints
"oauth client: all checks passed".

    python oauth_client.py URL
"""

import asyncio
import sys
from urllib.parse import parse_qs, urlparse

import httpx2

from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

URL = sys.argv[1]


class Memory:
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


async def main():
    redirected = {}

    async def redirect_handler(authorization_url):
        # The browser: the authorization server consents and redirects to the callback.
        async with httpx2.AsyncClient() as browser:
            answer = await browser.get(authorization_url, follow_redirects=False)
        assert answer.status_code in (302, 303, 307), answer
        query = parse_qs(urlparse(answer.headers["location"]).query)
        redirected.update({key: values[0] for key, values in query.items()})

    async def callback_handler():
        return AuthorizationCodeResult(code=redirected["code"], state=redirected.get("state"),
                                       iss=redirected.get("iss"))

    storage = Memory()
    auth = OAuthClientProvider(
        server_url=URL,
        client_metadata=OAuthClientMetadata(
            client_name="toolhost test", redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            scope="todos:write"),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)
    transport = streamable_http_client(
        URL, http_client=create_mcp_http_client(headers={"Agent-Session": "oauth"}, auth=auth))
    async with Client(transport) as client:
        result = await client.call_tool(
            "todo_write", {"todos": [{"content": "Ship", "status": "in_progress"}]})
        text = result.content[0].text
        assert not result.is_error and \
            text == "Updated todo list: 0 pending, 1 in progress, 0 completed", result
    assert storage.tokens is not None and storage.client is not None
    assert "code" in redirected
    print("oauth client: all checks passed")


asyncio.run(main())

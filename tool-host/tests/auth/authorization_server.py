"""An OAuth 2.1 authorization server made of the official Python MCP SDK's own pieces
(`mcp.server.auth.routes.create_auth_routes`: metadata, dynamic client registration,
authorize with PKCE, token), whose provider consents at once for the user "alice" and issues
RS256 JWT access tokens (PyJWT) for the resource the client names (RFC 8707), with its JWKS at
/jwks. Binds 127.0.0.1 on a free port, prints it, and serves until killed.
"""

import json
import secrets
import socket
import sys
import time

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcp.server.auth.provider import AuthorizationCode, AuthorizationParams, construct_redirect_uri
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions
from mcp.shared.auth import OAuthToken

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
PORT = sock.getsockname()[1]
# The issuer as the SDK writes it in its metadata (a root URL with its slash): tokens say the same.
ISSUER = str(AnyHttpUrl(f"http://127.0.0.1:{PORT}"))


class Provider:
    def __init__(self):
        self.clients = {}
        self.codes = {}

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams):
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["todos:write"], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource, subject="alice")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        now = int(time.time())
        claims = {"iss": ISSUER, "sub": authorization_code.subject, "aud": authorization_code.resource,
                  "scope": " ".join(authorization_code.scopes), "iat": now, "exp": now + 300,
                  "client_id": client.client_id}
        token = jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": "as-1"})
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=300,
                          scope=" ".join(authorization_code.scopes))

    async def load_refresh_token(self, client, refresh_token):
        return None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        raise NotImplementedError

    async def load_access_token(self, token):
        return None

    async def revoke_token(self, token):
        pass


async def jwks(request):  # noqa: ARG001 - a route takes the request
    key = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key()))
    key.update({"kid": "as-1", "alg": "RS256", "use": "sig"})
    return JSONResponse({"keys": [key]})


routes = create_auth_routes(
    Provider(), AnyHttpUrl(ISSUER),
    client_registration_options=ClientRegistrationOptions(
        enabled=True, valid_scopes=["todos:write"], default_scopes=["todos:write"]))
app = Starlette(routes=[*routes, Route("/jwks", jwks)])
print(PORT, flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])

"""A token issuer for tool-host/tests/mcp_http_auth.rs: RFC 8414 metadata naming a JWKS, the
JWKS, and tokens minted with PyJWT (and the cryptography package's keys), good ones and each
kind of bad one. Binds 127.0.0.1 on a free port and prints it; serves until killed.

    GET /.well-known/oauth-authorization-server
    GET /jwks                      the published keys (k1; k2 too once /rotate was asked)
    GET /rotate                    publishes k2
    GET /token?case=CASE&aud=AUD   a token; CASE is one of CASES below
"""

import base64
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

KEYS = {
    "k1": rsa.generate_private_key(public_exponent=65537, key_size=2048),
    "k2": rsa.generate_private_key(public_exponent=65537, key_size=2048),
    "e1": ec.generate_private_key(ec.SECP256R1()),
    # Never published.
    "zz": rsa.generate_private_key(public_exponent=65537, key_size=2048),
}
PUBLISHED = ["k1", "e1"]
ALGS = {"k1": "RS256", "k2": "RS256", "e1": "ES256", "zz": "RS256"}


def jwk_of(kid):
    key = KEYS[kid].public_key()
    algo = jwt.algorithms.RSAAlgorithm if kid != "e1" else jwt.algorithms.ECAlgorithm
    jwk = json.loads(algo.to_jwk(key))
    jwk.update({"kid": kid, "alg": ALGS[kid], "use": "sig"})
    return jwk


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(case, issuer, audience):
    now = int(time.time())
    claims = {"iss": issuer, "aud": audience, "sub": "alice", "iat": now, "exp": now + 300,
              "scope": "todos:write"}
    kid = "k1"
    if case == "expired":
        claims["exp"] = now - 600
    elif case == "skewed":
        # Expired 20 s ago: within the allowed clock skew.
        claims["exp"] = now - 20
    elif case == "not_yet":
        claims["nbf"] = now + 600
    elif case == "other_audience":
        claims["aud"] = "https://elsewhere.example/mcp"
    elif case == "other_issuer":
        claims["iss"] = "https://impostor.example"
    elif case == "no_subject":
        del claims["sub"]
    elif case == "unknown_kid":
        kid = "zz"
    elif case == "rotated":
        kid = "k2"
    elif case == "ec":
        kid = "e1"
    elif case == "big":
        claims["padding"] = "x" * 20000
    elif case == "none":
        header = b64(json.dumps({"alg": "none", "typ": "JWT", "kid": "k1"}).encode())
        return f"{header}.{b64(json.dumps(claims).encode())}."
    elif case == "hmac_with_public_key":
        # The RSA public key's PEM used as an HMAC secret: the confusion attack.
        pem = KEYS["k1"].public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "k1"}).encode())
        payload = b64(json.dumps(claims).encode())
        import hashlib
        import hmac
        signature = hmac.new(pem, f"{header}.{payload}".encode(), hashlib.sha256).digest()
        return f"{header}.{payload}.{b64(signature)}"
    elif case == "forged":
        token = jwt.encode(claims, KEYS["k1"], algorithm="RS256", headers={"kid": "k1"})
        header, payload, signature = token.split(".")
        claims["sub"] = "mallory"
        return f"{header}.{b64(json.dumps(claims).encode())}.{signature}"
    elif case != "good":
        raise ValueError(case)
    return jwt.encode(claims, KEYS[kid], algorithm=ALGS[kid], headers={"kid": kid})


class Issuer(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, body, status=200):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        issuer = f"http://127.0.0.1:{self.server.server_port}"
        if url.path == "/.well-known/oauth-authorization-server":
            self.send_json({"issuer": issuer, "jwks_uri": f"{issuer}/jwks",
                            "authorization_endpoint": f"{issuer}/authorize",
                            "token_endpoint": f"{issuer}/token",
                            "response_types_supported": ["code"]})
        elif url.path == "/jwks":
            self.server.jwks_fetches += 1
            self.send_json({"keys": [jwk_of(kid) for kid in PUBLISHED]})
        elif url.path == "/rotate":
            if "k2" not in PUBLISHED:
                PUBLISHED.append("k2")
            self.send_json({"published": PUBLISHED})
        elif url.path == "/fetches":
            self.send_json({"fetches": self.server.jwks_fetches})
        elif url.path == "/token":
            query = parse_qs(url.query)
            self.send_json(mint(query["case"][0], issuer, query["aud"][0]))
        else:
            self.send_json({"error": "not found"}, 404)


server = ThreadingHTTPServer(("127.0.0.1", 0), Issuer)
server.jwks_fetches = 0
print(server.server_port, flush=True)
server.serve_forever()

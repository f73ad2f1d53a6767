"""Streamable-HTTP protection: the bearer-token check and DNS-rebinding settings for loopback binds."""

from __future__ import annotations

import hmac
import json
from typing import Any

from acptools_server.config import ServerConfig, is_loopback_host
from mcp.server.transport_security import TransportSecuritySettings


class BearerTokenMiddleware:
    """Pure ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    Lifespan events pass through untouched.  Comparison is constant-time.
    """

    def __init__(self, app: Any, token: str) -> None:
        if not token:
            raise ValueError("token must be non-empty")
        self.app = app
        self._expected = token.encode("ascii")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        supplied: bytes | None = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                supplied = value
                break
        if supplied is not None:
            scheme, _, credentials = supplied.strip().partition(b" ")
            if scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._expected):
                await self.app(scope, receive, send)
                return
        if scope["type"] == "websocket":  # pragma: no cover - no websocket routes today
            await send({"type": "websocket.close", "code": 1008})
            return
        await _unauthorized(send, supplied is None)


async def _unauthorized(send: Any, missing: bool) -> None:
    if missing:
        challenge = b'Bearer realm="acptools"'
        message = "missing bearer token: send 'Authorization: Bearer <token>'"
    else:
        challenge = b'Bearer realm="acptools", error="invalid_token"'
        message = "invalid bearer token"
    body = json.dumps({"error": "unauthorized", "message": message}).encode()
    await send({
        "type": "http.response.start",
        "status": 401,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", challenge),
        ],
    })
    await send({"type": "http.response.body", "body": body})


def transport_security(config: ServerConfig) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for loopback binds (the SDK only auto-enables it for three exact names):
    the Host must name this machine, and a browser's Origin must be this server itself (its own
    host:port), so a page served from another local port cannot call the tools. With --port 0 the port
    is not known in advance, and no browser origin is allowed."""
    if not is_loopback_host(config.host):
        return None  # reachable from elsewhere anyway; the bearer token is the protection
    host = config.host.strip("[]")
    host_pattern = f"[{host}]" if ":" in host else host
    hosts = sorted({"127.0.0.1", "localhost", "[::1]", host_pattern})
    port = str(config.port) if config.port else "*"
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:{port}" for h in hosts],
        allowed_origins=[f"http://{h}:{config.port}" for h in hosts] if config.port else [],
    )

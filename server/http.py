"""Streamable HTTP: the bearer-token check, DNS-rebinding settings for loopback binds, a dropped
connection cancelling its calls, and an answer to a request whose id no request may have."""

from __future__ import annotations

import hmac
import json
from typing import Any

import anyio
from acptools_server.config import ServerConfig, is_loopback_host
from acptools_server.request_ids import INVALID_REQUEST, odd_request
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
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", challenge),
            ],
        }
    )
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


class CancelOnDisconnect:
    """Pure ASGI middleware: a client that drops its connection before its answer is sent cancels the
    requests of that POST, as if it had sent ``notifications/cancelled`` for each (the SDK keeps a call
    running when its client goes away, holding a search slot for its whole budget). The cancellation is
    posted to the app itself, on the same session, so it takes the protocol's own path."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body: list[bytes] = []
        state = {"answered": False, "cancelled": False}

        async def watched_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.request":
                body.append(message.get("body", b""))
            elif message["type"] == "http.disconnect" and not state["answered"] and not state["cancelled"]:
                state["cancelled"] = True
                await self._cancel(scope, b"".join(body))
            return message

        async def watched_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                state["answered"] = True
            await send(message)

        await self.app(scope, watched_receive, watched_send)

    async def _cancel(self, scope: dict[str, Any], body: bytes) -> None:
        for request_id in request_ids(body):
            note = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": request_id, "reason": "the client disconnected"},
                }
            ).encode()
            with anyio.move_on_after(CANCEL_WAIT):
                await self.app(dict(scope), _body_then_disconnect(note), _discard)


CANCEL_WAIT = 5.0  # seconds the cancellation of a dropped request may take to be handed over


def request_ids(body: bytes) -> list[str | int]:
    """The ids of the requests in a JSON-RPC POST body (one message or a batch)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return []
    messages = data if isinstance(data, list) else [data]
    return [
        m["id"]
        for m in messages
        if isinstance(m, dict)
        and "method" in m
        and isinstance(m.get("id"), (str, int))
        and not isinstance(m.get("id"), bool)
    ]


def _body_then_disconnect(body: bytes) -> Any:
    sent = [False]

    async def receive() -> dict[str, Any]:
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _discard(_message: dict[str, Any]) -> None:
    return None


class RejectOddIds:
    """Pure ASGI middleware: a POSTed request whose id is neither a string nor an integer (an object, an
    array, null, a fraction, true) gets the error stdio gives it, with HTTP 400 as the SDK answers other
    bad messages; the SDK would read it as a notification, answer 202 and never reply. Bodies over
    ``max_bytes`` are handed on unread, for the SDK to refuse."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        read, size, whole = [], 0, False
        while not whole and size <= self.max_bytes:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            whole = not message.get("more_body", False)
        problem = odd_request(b"".join(m.get("body", b"") for m in read).decode("utf-8", "replace")) if whole else None
        if problem is None:
            await self.app(scope, _replayed(read, receive), send)
            return
        await _invalid_request(scope, send, problem)


def _replayed(read: list[dict[str, Any]], receive: Any) -> Any:
    """A receive that gives the messages already read, then the rest from `receive`."""

    async def replay() -> dict[str, Any]:
        return read.pop(0) if read else await receive()

    return replay


async def _invalid_request(scope: dict[str, Any], send: Any, message: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name, value) for name, value in scope.get("headers", ()) if name == b"mcp-session-id"]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})

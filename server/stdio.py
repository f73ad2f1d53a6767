"""Serving over stdio so that every request gets an answer: the SDK drops a line it cannot read (for
example JSON holding a lone surrogate such as ``\\ud800``, which is not Unicode) without a reply, so
the client waits forever. Here such a line gets a JSON-RPC error with the request's id when the line
still shows one (the HTTP transport answers 400 to the same body)."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import ErrorData, JSONRPCError
from pydantic import ValidationError

SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _unreadable(exc: ValidationError) -> JSONRPCError:
    """The error reply to a line the SDK could not read."""
    raw = next((e.get("input") for e in exc.errors()), None)
    message: Any = raw
    if isinstance(raw, str):
        try:
            message = json.loads(raw)  # Python's reader keeps lone surrogates, so the id is still there
        except ValueError:
            message = None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    if message is None:
        error = ErrorData(code=PARSE_ERROR, message="the line is not valid JSON")
    elif isinstance(raw, str) and SURROGATE_ESCAPE.search(raw):
        error = ErrorData(code=INVALID_REQUEST, message="the request holds a lone surrogate escape (such as \\ud800), "
                          "which is not Unicode text; send every string as valid UTF-8")
    else:
        error = ErrorData(code=INVALID_REQUEST, message="the request is not a valid JSON-RPC message")
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


async def serve_stdio(server: Any) -> None:
    """Run ``server`` (an MCPServer's low-level server) over stdin/stdout, answering unreadable lines."""
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, ValidationError):
                        await write_stream.send(SessionMessage(_unreadable(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            await server.run(receive, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()

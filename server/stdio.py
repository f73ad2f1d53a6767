"""Serving over stdio so that every request gets an answer: the SDK drops a line it cannot read (for
example JSON holding a lone surrogate such as ``\\ud800``, which is not Unicode, JSON nested deeper than
any parser goes, or a request whose id is an object or a number no integer holds) without a reply, so
the client waits forever. Here such a line gets a JSON-RPC error with the request's id when the line
still shows a valid one and a null id otherwise (JSON-RPC 2.0, section 5); a notification (a method and
no id) gets no reply, as the spec says, only a log line. Nothing a line holds stops the reader (the HTTP
transport answers 400 to the same body). A line longer than the HTTP body limit is answered with an
error without being read as JSON, as HTTP refuses such a body. When stdin ends, the requests already read are still answered
before the server exits (the SDK alone would cancel them), so ``... | acptools serve`` gets every
answer."""

from __future__ import annotations

import io
import json
import logging
import os
import re
from typing import Any

import anyio
from acptools_server.request_ids import INVALID_REQUEST, NO_ID, odd_id_message, top_level_fields, valid_id
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from pydantic import ValidationError

log = logging.getLogger("acptools.server")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
PARSE_ERROR = -32700
ODD_ID_HINT = re.compile(r'"id"\s*:\s*(?![\s"]|-?\d+\s*[,}])')  # an id that is no string or plain integer
ODD_ID_MARK = "\x00odd-id\x00"  # prefixed to such a line, so the SDK cannot read it and it comes back here
TOO_LONG_MARK = "\x00too-long\x00"  # stands for a line over the size limit (followed by its size and id)
ID_PREFIX_CHARS = 65_536  # where a too long line's id is looked for (clients write it before the params)


def _raw_line(exc: Exception) -> str | None:
    if isinstance(exc, ValidationError):
        raw = next((e.get("input") for e in exc.errors()), None)
        return raw.removeprefix(ODD_ID_MARK) if isinstance(raw, str) else None
    return None


class CheckedLines:
    """stdin, line by line, with a request whose id is neither a string nor an integer (an object, an
    array, null, a fraction, 1e400, true) made unreadable: the SDK would read it as a notification
    (it drops the id) and never answer it; unreadable, it is answered with an error here."""

    def __init__(self, raw: io.TextIOBase, max_chars: int | None = None) -> None:
        self.raw, self.max_chars = raw, max_chars

    def readline(self) -> str:
        """The next line, marked when its id is neither a string nor a plain integer (the SDK cannot
        read a marked line, so its error comes back here to be answered). A line over `max_chars` is
        not handed on at all (reading it as JSON would take many times its size): a short marked line
        with its size and id stands for it."""
        line = self.raw.readline()
        if self.max_chars is not None and len(line) > self.max_chars:
            request_id = top_level_fields(line[:ID_PREFIX_CHARS]).get("id")
            return (
                TOO_LONG_MARK
                + json.dumps(
                    {"chars": len(line), "limit": self.max_chars, "id": request_id if valid_id(request_id) else None}
                )
                + "\n"
            )
        if ODD_ID_HINT.search(line):
            request_id = top_level_fields(line).get("id", NO_ID)
            if request_id is not NO_ID and not valid_id(request_id):
                return ODD_ID_MARK + line
        return line

    def close(self) -> None:
        """Close the underlying stream."""
        self.raw.close()


def claim_stdin(max_chars: int | None = None) -> CheckedLines:
    """The process's stdin for the transport alone (fd 0 then reads the null device, so no child
    process can take a request from the wire), as checked lines of at most `max_chars`."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return CheckedLines(
        io.TextIOWrapper(os.fdopen(private, "rb", closefd=False), encoding="utf-8", errors="replace"), max_chars
    )


def _readable(raw: str | None) -> bool | None:
    """Whether the line is JSON at all (None: JSON nested too deeply to read)."""
    if raw is None:
        return False
    try:
        json.loads(raw)
    except ValueError:
        return False
    except RecursionError:
        return None
    return True


def unreadable(exc: Exception) -> JSONRPCError | None:
    """The error reply to a line the SDK could not read (None: a notification, which gets no reply)."""
    raw = _raw_line(exc)
    if raw is not None and raw.startswith(TOO_LONG_MARK):
        size = json.loads(raw.removeprefix(TOO_LONG_MARK))
        return JSONRPCError(
            jsonrpc="2.0",
            id=size["id"],
            error=ErrorData(
                code=INVALID_REQUEST,
                message=(
                    f"the request is {size['chars']} characters, more than the server reads ({size['limit']}); send "
                    "less (a state lists only its true fluent atoms), or start the server with a larger --max-pddl-bytes"
                ),
            ),
        )
    readable = _readable(raw)
    if readable is False:  # a parse error: its id cannot be known (JSON-RPC 2.0, section 5)
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="the line is not valid JSON")
        )
    fields = top_level_fields(raw)
    request_id = fields.get("id", NO_ID)
    if request_id is NO_ID and isinstance(fields.get("method"), str):
        log.warning("dropped an unreadable notification (%s): %.200s", type(exc).__name__, raw)
        return None
    if readable is None:
        message = "the request is nested too deeply to read; send arguments nested at most a few hundred levels"
    elif SURROGATE_ESCAPE.search(raw):
        message = (
            "the request holds a lone surrogate escape (such as \\ud800), which is not Unicode text; send "
            "every string as valid UTF-8"
        )
    elif request_id is not NO_ID and not valid_id(request_id):
        message = odd_id_message(request_id)
    else:
        message = "the request is not a valid JSON-RPC message"
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id if valid_id(request_id) else None,
        error=ErrorData(code=INVALID_REQUEST, message=message),
    )


def _reply_to(exc: Exception) -> JSONRPCError | None:
    """``unreadable``, and a plain error reply should even reading the line for its id fail."""
    try:
        return unreadable(exc)
    except Exception:  # noqa: BLE001 - the reader must go on whatever the line holds
        log.exception("could not read an unreadable line for its id")
        return JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=ErrorData(code=INVALID_REQUEST, message="the request is not a valid JSON-RPC message"),
        )


class Pending:
    """The requests read but not yet answered: once stdin ends, the server stops only when none is left
    (a request the client cancels needs no answer)."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.ended = False
        self.settled = anyio.Event()

    def read(self, message: Any) -> None:
        """Note a request read, or forget one the client cancels."""
        if isinstance(message, JSONRPCRequest):
            self.ids.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self.answered((message.params or {}).get("requestId"))

    def answered(self, request_id: Any) -> None:
        """Note an answer sent."""
        self.ids.discard(request_id)
        self._check()

    def end(self) -> None:
        """Note the end of stdin."""
        self.ended = True
        self._check()

    def _check(self) -> None:
        if self.ended and not self.ids:
            self.settled.set()


async def serve_stdio(server: Any, drain_seconds: float = 600.0, max_chars: int | None = None) -> None:
    """Run ``server`` (an MCPServer's low-level server) over stdin/stdout, answering unreadable lines and
    lines over ``max_chars``; at the end of stdin, wait up to ``drain_seconds`` for the answers to the
    requests already read."""
    async with stdio_server(stdin=anyio.wrap_file(claim_stdin(max_chars))) as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[Any](0)
        out_send, out_receive = anyio.create_memory_object_stream[Any](0)
        pending = Pending()

        async def relay() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        reply = _reply_to(item)
                        if reply is not None:
                            await write_stream.send(SessionMessage(reply))
                    else:
                        pending.read(item.message)
                        await send.send(item)
                pending.end()
                with anyio.move_on_after(drain_seconds):
                    await pending.settled.wait()

        async def answer() -> None:
            async with write_stream, out_receive:
                async for item in out_receive:
                    if isinstance(item.message, (JSONRPCResponse, JSONRPCError)):
                        pending.answered(item.message.id)
                    await write_stream.send(item)

        async with anyio.create_task_group() as writing:
            writing.start_soon(answer)
            async with anyio.create_task_group() as reading:
                reading.start_soon(relay)
                await server.run(receive, out_send, server.create_initialization_options())
                reading.cancel_scope.cancel()

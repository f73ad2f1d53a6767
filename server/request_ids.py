"""Request ids as JSON-RPC 2.0 and MCP allow them: a string or an integer (MCP rules out null; a fraction,
an object, an array or true is no id). The SDK reads a request with any other id as a notification and
never answers it; both transports answer it with an error instead (stdio.py, http.py)."""

from __future__ import annotations

import json
import re
from typing import Any

JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
STRUCTURE = re.compile(r'["\[\]{}]')
WHITESPACE = re.compile(r"[ \t\r\n]*")
NO_ID = object()  # the message has no top-level "id" key
UNREAD = object()  # a top-level value too deeply nested to read
INVALID_REQUEST = -32600


def top_level_fields(raw: str) -> dict[str, Any]:
    """The top-level ``id`` and ``method`` of a JSON object, read without parsing anything nested (which
    may be deeper than any parser goes). A value that cannot be read is ``UNREAD``."""
    found: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    depth, i = 0, 0
    while (m := STRUCTURE.search(raw, i)) is not None:
        i = m.start()
        if raw[i] != '"':
            depth += 1 if raw[i] in "[{" else -1
            i += 1
            continue
        string = JSON_STRING.match(raw, i)
        if string is None:
            break
        i = string.end()
        key = string.group()[1:-1]
        if depth != 1 or key not in ("id", "method"):
            continue
        j = WHITESPACE.match(raw, i).end()
        if raw[j : j + 1] != ":":
            continue  # a value that happens to read "id", not a key
        try:
            found[key], _ = decoder.raw_decode(raw, WHITESPACE.match(raw, j + 1).end())
        except (ValueError, RecursionError):
            found[key] = UNREAD
    return found


def valid_id(value: Any) -> bool:
    """Whether `value` may be a request's id."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def odd_id_message(request_id: Any) -> str:
    """What is wrong with a request whose id is `request_id` (not a valid one)."""
    got = (
        "a value nested too deeply to read"
        if request_id is UNREAD
        else f"{type(request_id).__name__} {str(request_id)[:40]}"
    )
    return f"the request's id must be a string or an integer (got {got})"


def odd_request(raw: str) -> str | None:
    """Why the JSON-RPC message `raw` is a request with an id no request may have, else None."""
    fields = top_level_fields(raw)
    request_id = fields.get("id", NO_ID)
    if request_id is NO_ID or not isinstance(fields.get("method"), str) or valid_id(request_id):
        return None
    return odd_id_message(request_id)

"""A real local HTTP server that speaks two model APIs' wire formats with scripted replies, so the
official `openai` and `anthropic` SDKs can be driven end to end with no network.

    with ScriptedModel(script) as model:      # script(api, request) -> a reply
        OpenAI(base_url=model.openai_url, api_key="k")       # POST /v1/chat/completions
        Anthropic(base_url=model.url, api_key="k")           # POST /v1/messages

A reply is text, or a list of content blocks such as
{"type": "tool_use", "name": "progress", "input": {...}} (Anthropic tool_use blocks; OpenAI tool_calls),
or a `Status` (an HTTP error response).
The probe acptools sends before a run (one message, PROBE_PROMPT) is answered `probe` ("OK" unless
given: a reply or a Status) without calling the script, and kept in `.probes`, not `.requests`, so
scripts and request counts are about the run itself.
`in_order(replies)` makes a script that
answers each request with the next reply. Token counts are the character counts of the prompt
text and of the reply divided by 4 (rounded up), so tests can predict them. Every request body is
kept in `.requests`, with its API key in `.keys`.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple

from acptools.rollout.policies.model_apis import PROBE_PROMPT

OPENAI, ANTHROPIC = "openai", "anthropic"
ROUTES = {"/chat/completions": OPENAI, "/messages": ANTHROPIC}


class Status(NamedTuple):
    """An error reply: the HTTP status and the error message the API would send."""

    code: int
    message: str


def _error_body(api: str, status: Status) -> dict:
    if api == ANTHROPIC:
        return {"type": "error", "error": {"type": "api_error", "message": status.message}}
    return {"error": {"message": status.message, "type": "api_error", "code": status.code}}


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def request_text(api: str, body: dict) -> str:
    """All text a request sends (system prompt, messages, tool results), for token counts and scripts."""
    system = body.get("system") or ""
    if isinstance(system, list):
        system = " ".join(b.get("text", "") for b in system)
    parts = [system] if system else []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for block in content or []:
            if block.get("type") == "text":
                parts.append(block["text"])
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                parts.append(inner if isinstance(inner, str) else json.dumps(inner))
    return "\n".join(parts)


def in_order(replies):
    """A script answering the n-th request with replies[n] (the last one repeats)."""
    it = itertools.chain(replies, itertools.repeat(replies[-1]))
    lock = threading.Lock()

    def script(api, body):
        with lock:
            return next(it)

    return script


def _openai_message(reply, n: int) -> tuple[dict, str, str]:
    """(message, finish_reason, its text for token counts): text, or content blocks whose tool_use
    blocks become OpenAI tool calls."""
    if isinstance(reply, str):
        return {"role": "assistant", "content": reply}, "stop", reply
    text = "".join(b.get("text", "") for b in reply if b.get("type") == "text")
    calls = [
        {
            "id": f"call_{n}_{k}",
            "type": "function",
            "function": {"name": b["name"], "arguments": json.dumps(b.get("input", {}))},
        }
        for k, b in enumerate(reply)
        if b.get("type") == "tool_use"
    ]
    message = {"role": "assistant", "content": text or None, **({"tool_calls": calls} if calls else {})}
    return message, "tool_calls" if calls else "stop", text + json.dumps(calls)


def _openai_body(body: dict, reply, n: int) -> dict:
    message, finish, text = _openai_message(reply, n)
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": tokens(request_text(OPENAI, body)),
            "completion_tokens": tokens(text),
            "total_tokens": tokens(request_text(OPENAI, body)) + tokens(text),
        },
    }


def _anthropic_body(body: dict, reply, n: int) -> dict:
    blocks = (
        [{"type": "text", "text": reply}]
        if isinstance(reply, str)
        else [{**b, "id": f"toolu_{n}_{k}"} if b.get("type") == "tool_use" else b for k, b in enumerate(reply)]
    )
    text = "".join(b.get("text", "") + json.dumps(b.get("input", "")) for b in blocks)
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": blocks,
        "stop_sequence": None,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
        "usage": {"input_tokens": tokens(request_text(ANTHROPIC, body)), "output_tokens": tokens(text)},
    }


class ScriptedModel:
    """The server, in a thread, on a free loopback port; `latency` seconds before every reply."""

    def __init__(self, script, latency: float = 0.0, probe="OK"):
        self.script, self.latency, self.probe = script, latency, probe
        self.requests: list[tuple[str, dict]] = []
        self.probes: list[tuple[str, dict]] = []
        self.keys: list[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                path = self.path.split("?")[0].rstrip("/")
                api = next((a for suffix, a in ROUTES.items() if path.endswith(suffix)), None)
                if api is None:
                    return self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
                key = self.headers.get("x-api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")
                probe = [m.get("content") for m in body.get("messages", [])] == [PROBE_PROMPT]
                with outer._lock:
                    (outer.probes if probe else outer.requests).append((api, body))
                    if not probe:
                        outer.keys.append(key)
                    n = len(outer.requests) + len(outer.probes)
                time.sleep(outer.latency)
                reply = outer.probe if probe else outer.script(api, body)
                if isinstance(reply, Status):
                    return self._send(reply.code, _error_body(api, reply))
                self._send(200, _openai_body(body, reply, n) if api == OPENAI else _anthropic_body(body, reply, n))

            def _send(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client left (e.g. a run stopped by Ctrl-C)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    def __enter__(self) -> ScriptedModel:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


FERRY_SCRIPT = [
    "(sail l0 l1)",  # a correct action
    "The ferry is at l1 and c1 waits there, so I board it.\nAction: (board c1 l1)\nThen I sail on.",  # prose
    "(sail l1 l9)",  # a hallucinated object
    "(board c0 l0)",  # not applicable now
    "I am not sure what to do next.",  # garbage
    "(sail l1 l0)",  # applicable, a detour
    "(sail l0 l2)",
    "(debark c1 l2)",  # reaches the goal
]

"""The MCP handshake answered at once while the private venv builds, then a relay to the real server.

A client gives a server little time: Claude Code waits 30 s for `initialize` and 5 s for `tools/list`,
while the first start's venv build takes a minute or more. So on a first start the launcher answers what
a client asks on connecting from plugin/handshake.json, the real server's own answers recorded by
scripts/plugin_handshake.py (the tests check the file against the server): `initialize`, `ping` and the
lists of tools, prompts, resources and resource templates. `server/discover` (the stateless protocol's
probe) gets "method not found", so the client speaks the initialize handshake the launcher can replay.

Every other message waits, in order, until the venv is ready; then the launcher starts the real server,
gives it the client's `initialize`, sends it the waiting messages and relays both ways until one side
closes. A list that differs from the recorded one is announced with a list_changed notification. A
request the client cancels while it waits is dropped. If the build or the server's start fails, every
waiting and later request gets an error saying why (with the end of the build log), never a hang.
Standard library only; messages are JSON-RPC, one per line (the MCP stdio transport).
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

HANDSHAKE = Path(__file__).resolve().with_name("handshake.json")
OWN_ID = "acptools-launcher-"  # ids of the launcher's own requests to the server
INTERNAL_ERROR = -32603
LIST_CHANGED = {
    "tools/list": "notifications/tools/list_changed",
    "prompts/list": "notifications/prompts/list_changed",
    "resources/list": "notifications/resources/list_changed",
    "resources/templates/list": "notifications/resources/list_changed",
}
CAPABILITY = {
    "tools/list": "tools",
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resources",
}


def log(message: str) -> None:
    print(f"[acptools launcher] {message}", file=sys.stderr, flush=True)


def snapshot_for(args: list[str]) -> dict | None:
    """The recorded answers for a server started with `args`, or None when they were recorded for other
    arguments (a profile changes the tools and the instructions) or the file is missing."""
    try:
        snapshot = json.loads(HANDSHAKE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return snapshot if snapshot.get("args") == args else None


def is_request(message: object) -> bool:
    return isinstance(message, dict) and "method" in message and "id" in message


class EarlyServer:
    """One client connection through a first start: early answers, held messages, then the relay."""

    def __init__(self, snapshot: dict, command: list[str], out: BinaryIO | None = None):
        self.snapshot, self.command = snapshot, command
        self.out = out or sys.stdout.buffer
        self.lock = threading.Lock()  # guards the state below
        self.out_lock = threading.Lock()  # one writer at a time on the client's stream
        self.held: list[tuple[bytes, object]] = []
        self.served: set[str] = set()  # list methods answered from the snapshot
        self.client_init: dict | None = None
        self.client_ready = threading.Event()
        self.server: subprocess.Popen | None = None
        self.ready = False  # the server is up: every message goes to it
        self.failure: str | None = None  # why the server cannot start: every request's answer
        self.closed = False  # the client closed its stream
        self.calls: dict[str, queue.Queue] = {}  # the launcher's own requests awaiting the server's answer
        self.server_gone = False
        self.ids = itertools.count(1)

    # --- the client side -------------------------------------------------------------------------------

    def serve(self, wait_for_venv: Callable[[], str | None]) -> int:
        """Answer the client until it closes its stream; `wait_for_venv` blocks until the build ends and
        returns None when the venv is ready, else what went wrong. Returns the exit code."""
        threading.Thread(target=self.start_server, args=(wait_for_venv,), daemon=True).start()
        for line in iter(sys.stdin.buffer.readline, b""):
            if line.strip():
                self.from_client(line)
        return self.close()

    def from_client(self, line: bytes) -> None:
        with self.lock:
            server = self.server if self.ready else None
            if server is None:
                try:
                    message = json.loads(line)
                except ValueError as exc:
                    return self.send(
                        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": f"Parse error: {exc}"}}
                    )
                if not self.answer_early(message):
                    self.hold(line, message)
                return
        self.to_server(server, line)

    def answer_early(self, message: object) -> bool:
        """Answer or consume `message` now when the launcher can; False when it must wait for the server."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return False  # a batch, or a reply to a request the server has not sent
        method, request = message["method"], "id" in message
        if method == "server/discover" and request:
            self.error(message["id"], -32601, "Method not found: this server speaks the initialize handshake")
        elif method == "initialize" and request:
            self.reply(message["id"], self.initialize(message.get("params") or {}))
        elif method == "notifications/initialized":
            pass  # the launcher sends its own to the server
        elif method == "ping" and request:
            self.reply(message["id"], {})
        elif method == "notifications/cancelled":
            return self.cancel((message.get("params") or {}).get("requestId"))
        elif self.failure is not None:
            if request:
                self.error(message["id"], INTERNAL_ERROR, self.failure)
        elif method in self.snapshot["lists"] and request:
            self.served.add(method)
            self.reply(message["id"], self.snapshot["lists"][method])
        else:
            return False
        return True

    def initialize(self, params: dict) -> dict:
        """The recorded initialize result at the client's protocol version when the server speaks it."""
        versions = self.snapshot["protocolVersions"]
        asked = params.get("protocolVersion")
        agreed = asked if asked in versions else versions[-1]
        self.client_init = {**params, "protocolVersion": agreed}
        self.client_ready.set()
        result = json.loads(json.dumps(self.snapshot["initialize"]))
        for method in self.snapshot["lists"]:  # the launcher announces a list that turns out different
            result["capabilities"].setdefault(CAPABILITY[method], {})["listChanged"] = True
        return {**result, "protocolVersion": agreed}

    def cancel(self, request_id: object) -> bool:
        """Drop a waiting request the client cancelled: it gets no answer. (A request not waiting was
        answered already.)"""
        self.held = [(line, m) for line, m in self.held if not (is_request(m) and m["id"] == request_id)]
        return True

    def hold(self, line: bytes, message: object) -> None:
        self.held.append((line, message))

    def close(self) -> int:
        """The client closed its stream: close the server's, wait for it and return its exit code. A build
        still running goes on in its own process, for the next start."""
        with self.lock:
            server, self.closed = self.server, True
        if server is None:
            return 0
        try:
            server.stdin.close()
        except OSError:
            pass
        try:
            return server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            return server.wait()

    # --- writing to the client ---------------------------------------------------------------------------

    def send(self, message: dict) -> None:
        self.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def write(self, data: bytes) -> None:
        with self.out_lock:
            try:
                self.out.write(data)
                self.out.flush()
            except OSError:
                pass  # the client left; its stdin's end stops the launcher

    def reply(self, request_id: object, result: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def error(self, request_id: object, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def fail(self, message: str) -> None:
        """Answer every waiting and later request with `message`."""
        with self.lock:
            if self.failure is not None:  # the first cause is the one to report
                return
            log(message)
            self.failure = message
            held, self.held = self.held, []
            for _, waiting in held:
                if is_request(waiting):
                    self.error(waiting["id"], INTERNAL_ERROR, message)

    # --- the server side ---------------------------------------------------------------------------------

    def start_server(self, wait_for_venv: Callable[[], str | None]) -> None:
        """Once the venv is ready and the client has initialized: start the server, replay the handshake,
        announce lists that differ, then send the waiting messages and switch to relaying."""
        problem = wait_for_venv()
        if problem is not None:
            return self.fail(problem)
        self.client_ready.wait()
        server = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        with self.lock:
            if self.closed:  # the client left meanwhile
                server.kill()
                return
            self.server = server
        threading.Thread(target=self.relay_server, args=(server,), daemon=True).start()
        answer = self.call(server, "initialize", self.client_init)
        if answer is None:  # the server exited: relay_server reports it
            return
        if "result" not in answer:
            self.fail(
                f"acptools could not start: its server answered initialize with {answer}; "
                f"its messages are in this server's log"
            )
            server.kill()
            return
        self.check_handshake(answer["result"])
        self.to_server(server, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
        self.announce_changed_lists(server)
        with self.lock:
            for line, _ in self.held:
                self.to_server(server, line)
            self.held, self.ready = [], True
        log("the acptools server is ready")

    def check_handshake(self, live: dict) -> None:
        agreed = self.client_init["protocolVersion"]
        if live.get("protocolVersion") != agreed:
            log(f"the server chose protocol {live.get('protocolVersion')}, the client was told {agreed}")
        recorded = self.snapshot["initialize"]
        if live.get("instructions") != recorded.get("instructions") or live.get("serverInfo") != recorded.get(
            "serverInfo"
        ):
            log("the server's instructions or info differ from plugin/handshake.json: run scripts/plugin_handshake.py")

    def announce_changed_lists(self, server: subprocess.Popen) -> None:
        """Ask the server for each list the client got from the snapshot; announce the ones that differ."""
        changed = set()
        for method in sorted(self.served):
            live = self.call(server, method, {}) or {}
            if live.get("result") != self.snapshot["lists"][method]:
                changed.add(LIST_CHANGED[method])
        for notification in sorted(changed):
            self.send({"jsonrpc": "2.0", "method": notification})

    def call(self, server: subprocess.Popen, method: str, params: dict | None) -> dict | None:
        """The server's answer to the launcher's own request, or None when the server exits first."""
        request_id = f"{OWN_ID}{next(self.ids)}"
        answers: queue.Queue = queue.Queue()
        with self.lock:
            if self.server_gone:
                return None
            self.calls[request_id] = answers
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
        self.to_server(server, json.dumps(message).encode() + b"\n")
        return answers.get()

    def to_server(self, server: subprocess.Popen, line: bytes) -> None:
        try:
            server.stdin.write(line)
            server.stdin.flush()
        except OSError:
            pass  # the server exited: relay_server reports it

    def relay_server(self, server: subprocess.Popen) -> None:
        """Copy the server's messages to the client, keeping the answers to the launcher's own requests."""
        for line in iter(server.stdout.readline, b""):
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            own = isinstance(message, dict) and "method" not in message and str(message.get("id")).startswith(OWN_ID)
            answers = self.calls.pop(message["id"], None) if own else None
            if answers is not None:
                answers.put(message)
            else:
                self.write(line)
        code = server.wait()
        with self.lock:
            self.server_gone = True
            for answers in self.calls.values():
                answers.put(None)
            ready, closed = self.ready, self.closed
        if ready or closed:
            log(f"the acptools server exited with code {code}")
            os._exit(code)
        self.fail(
            f"acptools could not start: its server exited with code {code} during the handshake; "
            f"its messages are in this server's log"
        )

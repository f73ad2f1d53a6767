"""A raw MCP client over a process's stdin/stdout (one JSON-RPC message per line), for tests that must see
exactly what a server or the plugin's launcher sends and when: every message is kept, in order."""

from __future__ import annotations

import json
import queue
import subprocess
import threading

from tests.support.load import slack


class StdioPeer:
    """The process started with `command`; `request` / `notify` send, `answer(id)` waits for a reply."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: str | None = None):
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, bufsize=0
        )
        self.inbox: queue.Queue = queue.Queue()
        self.seen: list[dict] = []  # every message the process sent, in order
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in iter(self.process.stdout.readline, b""):
            self.inbox.put(json.loads(line))
        self.inbox.put(None)

    def _read_stderr(self) -> None:
        self.stderr = self.process.stderr.read()

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, request_id: object, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})

    def answer(self, request_id: object, seconds: float = 60) -> dict:
        """The reply to `request_id` (messages before it are kept in `seen`); fails after `seconds` (scaled
        by the machine's load) or when the process closes its stdout first."""
        while True:
            try:
                message = self.inbox.get(timeout=slack(seconds))
            except queue.Empty:
                raise AssertionError(
                    f"no reply to {request_id!r} within {slack(seconds):.0f} s; seen {self.seen}"
                ) from None
            assert message is not None, f"the process closed its stdout before replying to {request_id!r}"
            self.seen.append(message)
            if message.get("id") == request_id and "method" not in message:
                return message

    def call(self, request_id: object, method: str, params: dict | None = None, seconds: float = 60) -> dict:
        self.request(request_id, method, params)
        return self.answer(request_id, seconds)

    def close(self, seconds: float = 60) -> int:
        """Close stdin, read what is left and return the exit code."""
        self.process.stdin.close()
        code = self.process.wait(timeout=slack(seconds))
        while (message := self.inbox.get(timeout=slack(seconds))) is not None:
            self.seen.append(message)
        return code

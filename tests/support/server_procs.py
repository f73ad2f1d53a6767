"""Real `acptools-server` processes for fault tests: a raw JSON-RPC client over stdio (it can cancel
requests and send bytes no SDK would), a streamable-HTTP server on loopback, generated big tasks, and
what a process left behind (planner processes, work folders, memory).

Every server runs with its own TMPDIR, so the work folders and planners it leaves are told apart from
anything else on the machine. Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.support.load import slack

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = "2025-06-18"


def server_env(tmpdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ACPTOOLS_TOKEN", "ACPTOOLS_LOG_LEVEL", "ACPTOOLS_CACHE")}
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(TMPDIR=str(tmpdir), PYTHONPATH=str(REPO), **extra)
    return env


class StdioServer:
    """`python -m acptools_server` over stdio, spoken to line by line."""

    def __init__(self, tmp: Path, *args: str, **env: str) -> None:
        self.tmpdir = tmp / "tmp"
        self.log_path = tmp / f"server-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acptools_server", "--log-level", "WARNING", *args],
            cwd=REPO,
            env=server_env(self.tmpdir, **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.responses: dict[Any, dict] = {}
        self.lines = 0
        self._cond = threading.Condition()
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "fault-test", "version": "1"}},
            timeout=60,
        )
        self.notify("notifications/initialized")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        for line in self.proc.stdout:
            message = json.loads(line)
            with self._cond:
                self.lines += 1
                if "id" in message:
                    self.responses[message["id"]] = message
                self._cond.notify_all()

    def write(self, raw: bytes) -> None:
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def send(self, method: str, params: dict | None = None) -> int:
        with self._cond:
            self._next += 1
            request_id = self._next
        self.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}).encode())
        return request_id

    def notify(self, method: str, params: dict | None = None) -> None:
        self.write(json.dumps({"jsonrpc": "2.0", "method": method, "params": params or {}}).encode())

    def wait(self, request_id: Any, timeout: float) -> dict:
        """The response to ``request_id``; the timeout (a bound against hangs) grows with the machine's load."""
        timeout = slack(timeout)
        with self._cond:
            if not self._cond.wait_for(lambda: request_id in self.responses, timeout):
                raise AssertionError(f"no response to request {request_id} within {timeout} s")
            return self.responses.pop(request_id)

    def request(self, method: str, params: dict | None = None, timeout: float = 120) -> dict:
        return self.wait(self.send(method, params), timeout)

    def start_call(self, tool: str, **arguments: Any) -> int:
        return self.send("tools/call", {"name": tool, "arguments": arguments})

    def cancel(self, request_id: int) -> None:
        self.notify("notifications/cancelled", {"requestId": request_id, "reason": "test"})

    def call(self, tool: str, timeout: float = 120, **arguments: Any) -> dict:
        """The tools/call result (``isError``, ``content``, ``structuredContent``)."""
        reply = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        assert "result" in reply, reply
        return reply["result"]

    def ok(self, tool: str, timeout: float = 120, **arguments: Any) -> dict:
        result = self.call(tool, timeout, **arguments)
        assert not result.get("isError"), f"{tool}: {result['content'][0]['text']}"
        return result["structuredContent"]

    def err(self, tool: str, timeout: float = 120, **arguments: Any) -> str:
        result = self.call(tool, timeout, **arguments)
        assert result.get("isError"), f"{tool} should have failed: {result.get('structuredContent')}"
        return result["content"][0]["text"]

    def info(self) -> dict:
        return self.ok("server_info", timeout=30)

    def log_text(self) -> str:
        """What the server wrote to stderr so far."""
        return self.log_path.read_text(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(tmp: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """`python -m acptools_server --transport streamable-http` on a free loopback port, once it listens."""
    port = free_port()
    log = open(tmp / "http-server.log", "wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acptools_server",
            "--transport",
            "streamable-http",
            "--port",
            str(port),
            "--log-level",
            "WARNING",
            *args,
        ],
        cwd=REPO,
        env=server_env(tmp / "tmp"),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + slack(60)
    while time.monotonic() < deadline:
        assert proc.poll() is None, (tmp / "http-server.log").read_text()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the HTTP server did not listen within 60 s")


# ---- what a server leaves behind -----------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().decode(errors="replace").rsplit(")", 1)[1].split()
    except OSError:
        return None


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def planners_of(server_pid: int) -> set[int]:
    """Living processes the server started: its descendants, and any process (reparented after the
    server died) whose command line names one of its work folders."""
    marker = f"acptools-{server_pid}-".encode()
    parent: dict[int, int] = {}
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        fields = _stat(pid)
        if fields is None or fields[0] == "Z":
            continue
        parent[pid] = int(fields[1])
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker in f.read():
                    found.add(pid)
        except OSError:
            pass
    for pid in parent:
        p = parent[pid]
        while p > 1:
            if p == server_pid:
                found.add(pid)
                break
            p = parent.get(p, 0)
    return found


def work_folders(tmpdir: Path, server_pid: int) -> list[Path]:
    return sorted(tmpdir.glob(f"acptools-{server_pid}-*"))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb(pid: int) -> float:
    """The most memory the process has held at once (VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has spent."""
    fields = _stat(pid)
    assert fields is not None, f"process {pid} is gone"
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until(check, timeout: float, step: float = 0.1) -> bool:
    """Poll `check` until it holds or `timeout` (seconds on a quiet machine, scaled by the load) passes."""
    end = time.monotonic() + slack(timeout)
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(step)
    return bool(check())


# ---- generated tasks ---------------------------------------------------------------------------------

FERRY_DOMAIN = (REPO / "acptools" / "examples" / "ferry" / "domain.pddl").read_text()


def ferry(cars: int, locations: int, seed: int = 0, plan_length: int | None = None) -> tuple[str, list[str]]:
    """A ferry problem (cars at random locations, each to go elsewhere) and a valid plan for it that
    carries one car at a time and sails out and back after every delivery (so many steps are removable).
    With ``plan_length``, the goal asks only for the cars that plan of that length delivers."""
    rng = random.Random(seed)
    start = [rng.randrange(locations) for _ in range(cars)]
    goal = [(s + 1 + rng.randrange(locations - 1)) % locations for s in start]
    if plan_length is not None:
        delivered = len(_deliveries(start, goal, locations, plan_length))
        problem, _ = ferry(cars, locations, seed)
        plan = _deliveries(start, goal, locations, plan_length)
        plan = [a for step in plan for a in step]
        at = plan[-1].split()[-1].rstrip(")") if plan else "l0"
        other = next(f"l{j}" for j in range(locations) if f"l{j}" != at)
        while len(plan) < plan_length:  # out and back (or one last sail) to reach the length exactly
            plan.append(f"(sail {at} {other})")
            at, other = other, at
        kept = " ".join(f"(at c{i} l{t})" for i, t in enumerate(goal[:delivered]))
        return problem[: problem.index("(:goal")] + f"(:goal (and {kept})))\n", plan
    objects = (
        " ".join(f"c{i}" for i in range(cars)) + " - car " + " ".join(f"l{j}" for j in range(locations)) + " - location"
    )
    init = ["(at-ferry l0)", "(empty-ferry)"] + [
        f"(not-eq l{a} l{b})" for a in range(locations) for b in range(locations) if a != b
    ]
    init += [f"(at c{i} l{s})" for i, s in enumerate(start)]
    goals = " ".join(f"(at c{i} l{t})" for i, t in enumerate(goal))
    problem = (
        f"(define (problem ferry-{cars}-{locations}-{seed}) (:domain ferry) (:objects {objects})\n"
        f" (:init {' '.join(init)})\n (:goal (and {goals})))\n"
    )
    return problem, [a for step in _deliveries(start, goal, locations) for a in step]


def _deliveries(start: list[int], goal: list[int], locations: int, max_length: int | None = None) -> list[list[str]]:
    """The actions that deliver each car in turn (and sail out and back after it), as long as they fit."""
    steps, at, length = [], 0, 0
    for i, (s, t) in enumerate(zip(start, goal)):
        step = [f"(sail l{at} l{s})"] if at != s else []
        other = (t + 1) % locations
        step += [
            f"(board c{i} l{s})",
            f"(sail l{s} l{t})",
            f"(debark c{i} l{t})",
            f"(sail l{t} l{other})",
            f"(sail l{other} l{t})",
        ]
        if max_length is not None and length + len(step) > max_length:
            break
        steps.append(step)
        length += len(step)
        at = t
    return steps


def wide_task(objects: int, params: int = 6, flat: bool = False, name: str = "w") -> tuple[str, str]:
    """A domain of under 300 bytes whose one schema has ``params`` untyped parameters, so ``objects **
    params`` ground actions; its effect is an atom of as many parameters (as many fluent atoms), or,
    with ``flat``, one 0-ary atom."""
    vs = " ".join(f"?v{i}" for i in range(params))
    effect = "(done)" if flat else f"(p {vs})"
    domain = (
        f"(define (domain wide) (:predicates (done) (p {vs})) (:action a :parameters ({vs}) "
        f":precondition (and) :effect {effect}))"
    )
    goal = "(done)" if flat else f"(p {' '.join(['o0'] * params)})"
    problem = (
        f"(define (problem {name}) (:domain wide) (:objects {' '.join(f'o{i}' for i in range(objects))}) "
        f"(:init) (:goal {goal}))"
    )
    return domain, problem


INSPECTOR_PKG = os.environ.get("ACPTOOLS_INSPECTOR_PKG", "@modelcontextprotocol/inspector@0.15.0")


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the server's token and log level, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in ("ACPTOOLS_TOKEN", "ACPTOOLS_LOG_LEVEL")}
    env.update(extra)
    return env


def wait_for_port(proc: subprocess.Popen[bytes], port: int, log: Path, timeout: float = 30.0) -> None:
    timeout = slack(timeout)  # seconds on a quiet machine, scaled by the load
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server did not listen on port {port} within {timeout}s:\n{log.read_text()}")


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

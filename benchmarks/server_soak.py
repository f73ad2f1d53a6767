"""Soak of `acptools-server` under mixed traffic with faults and attacks (issues 10 and 18), on loopback only.

    python benchmarks/server_soak.py [--seconds 180] [--http-clients 3]

One streamable-HTTP server and one stdio server run side by side. HTTP clients send cheap calls
(list_applicable, validate_plan, progress) with a short search now and then, and some walk away in the
middle of a long search (a disconnect). The stdio client starts exact-h* searches on a 65-step ACPBench
Hard ferry state and cancels them after 0.3-2 s. Half way through, the stdio server is killed with
SIGKILL while its planners run, and a new one takes its place (its start removes the dead one's work
folders). At the end both servers get SIGTERM.

An attacker takes turns, on a stdio server of its own and on the HTTP server: a 50 000-deep JSON request
(an error, then `ping` must answer), requests whose id is an object or 1e400 (an error with a null id),
a 170-byte domain with 10^6 or 10^8 ground actions (refused before grounding: the CPU it cost, the
server's peak memory and its memory after all the refusals are reported), an HTTP client that drops its
connection in the middle of optimal_next_action(budget=600), and one that ends its session (HTTP DELETE)
in the middle of one (how long until the server has cancelled it), simplify_plan(with_plans) of a
10 000-action plan (refused at the response limit: its CPU), and 574 KB of PDDL on --load-budget 2 (how
long until it is refused). Before the traffic, a proof store is filled, every row forged (verdicts
flipped, checksums recomputed without the key) and a new server with that store must answer as the first
did (the busy-machine budgets are benchmarks/busy_budgets.py).

Reports calls, errors, the latency of cheap calls, leftover planner processes and work folders (both must
be 0) and the peak memory of the servers and their planners.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools.dataset import acpbench_hard  # noqa: E402
from tests.support.forge import forge  # noqa: E402
from tests.support.server_procs import (  # noqa: E402
    FERRY_DOMAIN,
    PROTOCOL,
    StdioServer,
    alive,
    cpu_seconds,
    ferry,
    peak_rss_mb,
    planners_of,
    rss_mb,
    start_http,
    wait_until,
    wide_task,
    work_folders,
)

CHEAP = ("list_applicable", "validate_plan", "progress")


class Tally:
    """Counts, errors and cheap-call latencies, shared by the traffic threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.errors: list[str] = []
        self.cheap: dict[str, list[float]] = {}  # transport -> seconds of each cheap call

    def add(
        self, kind: str, error: str | None = None, cheap_seconds: float | None = None, transport: str = "http"
    ) -> None:
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if error:
                self.errors.append(f"{kind}: {error[:200]}")
            if cheap_seconds is not None and not error:
                self.cheap.setdefault(transport, []).append(cheap_seconds)


class HttpClient:
    """A minimal MCP session over streamable HTTP (one JSON-RPC request per POST)."""

    def __init__(self, url: str, read_timeout: float = 120) -> None:
        self.url, self.session, self.next_id = url, None, 0
        self.http = httpx2.Client(timeout=httpx2.Timeout(30, read=read_timeout))
        self.post(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}},
        )
        self.post("notifications/initialized", None)

    def post(self, method: str, params: dict | None) -> dict | None:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": PROTOCOL,
            **({"Mcp-Session-Id": self.session} if self.session else {}),
        }
        body: dict = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        if method != "notifications/initialized":
            self.next_id += 1
            body["id"] = self.next_id
        reply = self.http.post(self.url, json=body, headers=headers)
        reply.raise_for_status()
        self.session = reply.headers.get("mcp-session-id", self.session)
        if "id" not in body:
            return None
        data = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
        return json.loads(data[-1] if data else reply.text)

    def call(self, tool: str, **arguments) -> dict:
        reply = self.post("tools/call", {"name": tool, "arguments": arguments})
        if "result" not in reply:
            raise RuntimeError(json.dumps(reply)[:200])
        return reply["result"]

    def end_session(self) -> int:
        """HTTP DELETE of the session (the client ends it, as the MCP spec says); the status code."""
        reply = self.http.delete(self.url, headers={"Mcp-Session-Id": self.session, "MCP-Protocol-Version": PROTOCOL})
        return reply.status_code

    def close(self) -> None:
        self.http.close()


def http_traffic(url: str, task: dict, stop: threading.Event, tally: Tally, seed: int) -> None:
    """Cheap calls on a bundled example, a short search now and then, and a client walking away."""
    rng = random.Random(seed)
    client = HttpClient(url)
    tid = client.call("load_task", domain=task["PDDL_domain"], problem=task["PDDL_problem"])["structuredContent"][
        "task_id"
    ]
    plan = client.call("plan", task_id="example:ferry", budget=30)["structuredContent"]["plan"]
    while not stop.is_set():
        tool = rng.choice(CHEAP)
        args = {"list_applicable": {}, "validate_plan": {"plan": plan}, "progress": {"action": plan[0]}}[tool]
        t0 = time.perf_counter()
        try:
            result = client.call(tool, task_id="example:ferry", **args)
            tally.add(tool, result["content"][0]["text"] if result.get("isError") else None, time.perf_counter() - t0)
        except (httpx2.HTTPError, RuntimeError) as exc:
            tally.add(tool, repr(exc))
        roll = rng.random()
        if roll < 0.05:
            try:
                result = client.call("is_reachable", task_id=tid, atom="(on c0)", budget=2)
                tally.add("is_reachable", result["content"][0]["text"] if result.get("isError") else None)
            except (httpx2.HTTPError, RuntimeError) as exc:
                tally.add("is_reachable", repr(exc))
        elif roll < 0.07:
            walk_away(url, tid, tally)
        time.sleep(0.02)
    client.close()


def walk_away(url: str, tid: str, tally: Tally) -> None:
    """A client that starts a long search and drops the connection after a second."""
    client = HttpClient(url, read_timeout=1.0)
    try:
        client.call("optimal_next_action", task_id=tid, budget=15)
        tally.add("disconnect", "the long search answered within 1 s")
    except httpx2.TimeoutException:
        tally.add("disconnect")
    finally:
        client.close()


def stdio_traffic(server: StdioServer, tid: str, stop: threading.Event, tally: Tally, rng: random.Random) -> None:
    """Searches cancelled after 0.3-2 s, and a cheap call between them, until ``stop``."""
    action = server.ok("list_applicable", task_id=tid)["actions"][0]
    while not stop.is_set():
        request = server.start_call("score_answer", task="nexta", response=action, task_id=tid, budget=120)
        time.sleep(rng.uniform(0.3, 2.0))
        server.cancel(request)
        tally.add("cancelled score_answer")
        t0 = time.perf_counter()
        try:
            server.ok("list_applicable", task_id=tid, timeout=30)
            tally.add("list_applicable (stdio)", cheap_seconds=time.perf_counter() - t0, transport="stdio")
        except AssertionError as exc:
            tally.add("list_applicable (stdio)", str(exc))


def kill_with_planners(server: StdioServer, tid: str, tally: Tally) -> dict:
    """SIGKILL a stdio server while a search of it runs planners; what it left behind."""
    server.start_call("optimal_next_action", task_id=tid, budget=300)
    started = wait_until(lambda: planners_of(server.pid), 60)
    planners = planners_of(server.pid)
    os.kill(server.pid, signal.SIGKILL)
    server.proc.wait(timeout=30)
    gone = wait_until(lambda: not any(alive(p) for p in planners) and not planners_of(server.pid), 15)
    tally.add("server kill", None if started and gone else f"planners started {started}, gone {gone}")
    return {
        "planners_at_kill": len(planners),
        "planners_gone": gone,
        "folders_after_kill": len(work_folders(server.tmpdir, server.pid)),
    }


def peak_memory(pids: list[int], peak: list[float], stop: threading.Event) -> None:
    """Sample the servers' and their planners' resident memory every half second."""
    while not stop.is_set():
        total = 0.0
        for pid in list(pids):
            for p in {pid} | planners_of(pid):
                try:
                    total += rss_mb(p)
                except OSError:
                    pass
        peak[0] = max(peak[0], total)
        stop.wait(0.5)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=180)
    p.add_argument("--http-clients", type=int, default=3)
    args = p.parse_args()
    hard = next(r for r in acpbench_hard("test", "nexta") if str(r["answer"]["opt"]) == "65")
    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    tally, stop, peak = Tally(), threading.Event(), [0.0]
    seen = Attacks()
    seen.forged = forged_store(tmp / "store")
    http_proc, url = start_http(tmp)
    stdio = StdioServer(tmp)
    pids = [http_proc.pid, stdio.pid]
    threads = [threading.Thread(target=peak_memory, args=(pids, peak, stop), daemon=True)]
    threads += [
        threading.Thread(target=http_traffic, args=(url, hard, stop, tally, k), daemon=True)
        for k in range(args.http_clients)
    ]
    threads.append(threading.Thread(target=attack_traffic, args=(tmp, url, hard, stop, tally, seen), daemon=True))
    for t in threads:
        t.start()
    rng = random.Random(0)
    tid = stdio.ok("load_task", domain=hard["PDDL_domain"], problem=hard["PDDL_problem"])["task_id"]
    half = threading.Event()
    threading.Timer(args.seconds / 2, half.set).start()
    stdio_traffic(stdio, tid, half, tally, rng)
    killed = kill_with_planners(stdio, tid, tally)
    dead_pid, dead_tmp = stdio.pid, stdio.tmpdir
    stdio.close()
    stdio = StdioServer(tmp)
    pids.append(stdio.pid)
    killed["folders_after_restart"] = len(work_folders(dead_tmp, dead_pid))
    tid = stdio.ok("load_task", domain=hard["PDDL_domain"], problem=hard["PDDL_problem"])["task_id"]
    end = threading.Event()
    threading.Timer(args.seconds / 2, end.set).start()
    stdio_traffic(stdio, tid, end, tally, rng)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    report(tally, killed, peak[0], shut_down(http_proc, url, stdio, tmp, pids))
    report_attacks(seen)


def shut_down(http_proc, url: str, stdio: StdioServer, tmp: Path, pids: list[int]) -> dict:
    """SIGTERM both servers; what every server of the run left behind."""
    client = HttpClient(url)
    info = client.call("server_info")["structuredContent"]
    client.close()
    http_proc.terminate()
    http_proc.wait(timeout=60)
    stdio.close()
    time.sleep(1.0)
    left = {
        "http_searches_at_end": info["searches_running"],
        "leftover_processes": sum(len(planners_of(pid)) for pid in pids),
        "leftover_folders": sum(len(work_folders(tmp / "tmp", pid)) for pid in pids),
    }
    shutil.rmtree(tmp, ignore_errors=True)
    return left


def report(tally: Tally, killed: dict, peak_mb: float, left: dict) -> None:
    calls = sum(tally.counts.values())
    print(f"calls {calls}: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.counts.items())))
    print(f"errors {len(tally.errors)}" + "".join(f"\n  {e}" for e in tally.errors[:10]))
    for transport, seconds in sorted(tally.cheap.items()):
        ms = sorted(x * 1e3 for x in seconds)
        print(
            f"cheap calls over {transport}: p50 {ms[len(ms) // 2]:.1f} ms, p99 {ms[int(len(ms) * 0.99)]:.0f} ms, "
            f"max {ms[-1]:.0f} ms"
        )
    print(
        f"kill -9 of the stdio server: {killed['planners_at_kill']} planners running, all gone: "
        f"{killed['planners_gone']}; its work folders {killed['folders_after_kill']} after the kill, "
        f"{killed['folders_after_restart']} after the next start"
    )
    print(
        f"HTTP searches still running when the traffic stopped {left['http_searches_at_end']} "
        "(a walked-away call is cancelled when its client disconnects)"
    )
    print(f"leftover planner processes {left['leftover_processes']}, leftover work folders {left['leftover_folders']}")
    print(f"peak memory (servers + planners) {peak_mb:.0f} MB")


# ---- attacks (issue 18) ---------------------------------------------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


class Attacks:
    """What the attacker saw: per attack, how often, and figures."""

    def __init__(self) -> None:
        self.refused_cpu: list[float] = []
        self.drop_cancel_s: list[float] = []
        self.session_cancel_s: list[float] = []
        self.ping_after_deep_s: list[float] = []
        self.simplify_s: list[float] = []
        self.big_load_s: list[float] = []
        self.peak_rss_mb = 0.0
        self.rss_mb: list[float] = []  # the attack server's after each refused huge domain
        self.forged: dict = {}


def attack_traffic(tmp: Path, url: str, task: dict, stop: threading.Event, tally: Tally, seen: Attacks) -> None:
    """Round robin of the attacks until ``stop``, each checked for the answer it must get."""
    server = StdioServer(tmp)
    loader = StdioServer(tmp, "--load-budget", "2")
    client = HttpClient(url)
    tid = client.call("load_task", domain=task["PDDL_domain"], problem=task["PDDL_problem"])["structuredContent"][
        "task_id"
    ]
    long_problem, long_plan = ferry(400, 10, plan_length=10_000)
    long_id = client.call("load_task", domain=FERRY_DOMAIN, problem=long_problem)["structuredContent"]["task_id"]
    big_text = ferry(10, 180)[0]
    steps = [
        lambda k: deep_json(server, k, tally, seen),
        lambda k: odd_id(server, k, tally),
        lambda k: huge_domain(server, k, tally, seen),
        lambda k: dropped_client(url, client, tid, tally, seen),
        lambda k: ended_session(url, client, tid, tally, seen),
        lambda k: big_simplify(url, long_id, long_plan, tally, seen),
        lambda k: big_load(loader, big_text, tally, seen),
    ]
    k = 0
    while not stop.is_set():
        try:
            steps[k % len(steps)](k)
        except (AssertionError, httpx2.HTTPError, RuntimeError, OSError) as exc:
            tally.add(f"attack {k % len(steps)}", repr(exc))
        k += 1
        stop.wait(0.2)
    seen.peak_rss_mb = peak_rss_mb(server.pid)
    client.close()
    server.close()
    loader.close()


def deep_json(server: StdioServer, k: int, tally: Tally, seen: Attacks) -> None:
    server.write(f'{{"jsonrpc":"2.0","id":"deep-{k}","method":"ping","params":{{"x":{DEEP}}}}}'.encode())
    reply = server.wait(f"deep-{k}", 60)
    t0 = time.perf_counter()
    pong = server.request("ping", timeout=60)
    seen.ping_after_deep_s.append(time.perf_counter() - t0)
    tally.add("attack: deep JSON", None if "error" in reply and pong.get("result") == {} else json.dumps(reply)[:200])


def odd_id(server: StdioServer, k: int, tally: Tally) -> None:
    server.responses.pop(None, None)
    odd = ('{"a":1}', "1e400")[k % 2]
    server.write(f'{{"jsonrpc":"2.0","id":{odd},"method":"ping"}}'.encode())
    reply = server.wait(None, 60)
    pong = server.request("ping", timeout=60)
    tally.add("attack: odd id", None if "error" in reply and pong.get("result") == {} else json.dumps(reply)[:200])


def huge_domain(server: StdioServer, k: int, tally: Tally, seen: Attacks) -> None:
    domain, problem = wide_task(22 if k % 2 else 10, flat=bool(k % 3 == 0), name=f"soak{k}")
    cpu = cpu_seconds(server.pid)
    text = server.err("load_task", timeout=120, domain=domain, problem=problem)
    seen.refused_cpu.append(cpu_seconds(server.pid) - cpu)
    seen.rss_mb.append(rss_mb(server.pid))
    tally.add("attack: huge domain", None if "refused before grounding" in text else text)


def dropped_client(url: str, client: HttpClient, tid: str, tally: Tally, seen: Attacks) -> None:
    """optimal_next_action(budget=600) on a raw socket, dropped after 1 s: how long until it is cancelled."""
    info = lambda: client.call("server_info")["structuredContent"]  # noqa: E731
    before = info()["searches_cancelled"]
    parts = url.split("/", 3)
    host, port = parts[2].split(":")
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "optimal_next_action", "arguments": {"task_id": tid, "budget": 600}},
        }
    ).encode()
    head = (
        f"POST /{parts[3]} HTTP/1.1\r\nHost: {parts[2]}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {PROTOCOL}\r\n"
        f"Mcp-Session-Id: {client.session}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head + body)
        time.sleep(1.0)
    t0 = time.perf_counter()
    cancelled = wait_until(lambda: info()["searches_cancelled"] > before, 30, step=0.05)
    seen.drop_cancel_s.append(time.perf_counter() - t0)
    tally.add("attack: dropped HTTP client", None if cancelled else "not cancelled within 30 s")


def ended_session(url: str, client: HttpClient, tid: str, tally: Tally, seen: Attacks) -> None:
    """A session of its own starts optimal_next_action(budget=600) and is ended (HTTP DELETE) after 1 s while
    the call's connection stays open: how long until the server has cancelled it and its slot is free."""
    info = lambda: client.call("server_info")["structuredContent"]  # noqa: E731
    before = info()["searches_cancelled"]
    doomed = HttpClient(url, read_timeout=600)
    caller = threading.Thread(
        target=lambda: _swallow(lambda: doomed.call("optimal_next_action", task_id=tid, budget=600)), daemon=True
    )
    caller.start()
    time.sleep(1.0)
    status = doomed.end_session()
    t0 = time.perf_counter()
    cancelled = wait_until(lambda: info()["searches_cancelled"] > before, 30, step=0.05)
    seen.session_cancel_s.append(time.perf_counter() - t0)
    caller.join(timeout=30)
    doomed.close()
    tally.add(
        "attack: ended HTTP session",
        None if cancelled and status == 200 else f"DELETE answered {status}; cancelled within 30 s: {cancelled}",
    )


def _swallow(fn) -> None:
    try:
        fn()
    except (httpx2.HTTPError, RuntimeError, ValueError):
        pass


def big_simplify(url: str, tid: str, plan: list[str], tally: Tally, seen: Attacks) -> None:
    """simplify_plan(with_plans) of a 10 000-action plan: refused at the response limit as it is built."""
    client = HttpClient(url, read_timeout=300)
    try:
        t0 = time.perf_counter()
        result = client.call("simplify_plan", task_id=tid, plan=plan, with_plans=True, budget=60)
        seen.simplify_s.append(time.perf_counter() - t0)
        text = result["content"][0]["text"]
        tally.add(
            "attack: simplify_plan with_plans",
            None if result.get("isError") and "--max-response-bytes" in text else text,
        )
    finally:
        client.close()


def big_load(loader: StdioServer, problem: str, tally: Tally, seen: Attacks) -> None:
    """574 KB of PDDL on a server with --load-budget 2: refused when the budget is spent."""
    t0 = time.perf_counter()
    text = loader.err("load_task", timeout=120, domain=FERRY_DOMAIN, problem=problem)
    seen.big_load_s.append(time.perf_counter() - t0)
    tally.add("attack: 574 KB on --load-budget 2", None if "--load-budget" in text else text)


def forged_store(tmp: Path) -> dict:
    """Fill a proof store, forge every row, and ask a new server with that store the same questions."""
    tmp.mkdir(parents=True, exist_ok=True)
    path, env = tmp / "proofs.sqlite", {"ACPTOOLS_STORE_KEY_FILE": str(tmp / "store.key")}
    tasks = sorted(
        (r for r in acpbench_hard("test", "nexta") if int(r["answer"]["opt"]) >= 4),
        key=lambda r: int(r["answer"]["opt"]),
    )[:4]

    def answers() -> list:
        got = []
        with StdioServer(tmp, "--cache", str(path), **env) as server:
            for task in tasks:
                loaded = server.ok("load_task", domain=task["PDDL_domain"], problem=task["PDDL_problem"])
                tid, atoms = loaded["task_id"], loaded["goal"][:3] + loaded["init"][:3]
                asks = [("optimal_next_action", {}), ("plan", {}), ("start_episode", {})]
                asks += [(tool, {"atom": atom}) for atom in atoms for tool in ("is_reachable", "is_landmark")]
                for tool, args in asks:
                    out = server.ok(tool, task_id=tid, budget=120, **args)
                    got.append({k: out.get(k) for k in ("h_star", "optimal_actions", "answer", "length")})
        return got

    first = answers()
    rows = forge(path)
    second = answers()
    return {"rows": rows, "same": first == second}


def report_attacks(seen: Attacks) -> None:
    def spread(xs: list[float], unit: str = "s") -> str:
        xs = sorted(xs)
        return f"median {xs[len(xs) // 2]:.2f} {unit}, max {xs[-1]:.2f} {unit} ({len(xs)})" if xs else "none"

    print(
        f"huge domains refused: CPU per refusal {spread(seen.refused_cpu)}; attack server peak RSS "
        f"{seen.peak_rss_mb:.0f} MB"
    )
    print(f"ping right after a 50 000-deep request: {spread(seen.ping_after_deep_s)}")
    print(f"dropped HTTP client's search cancelled after: {spread(seen.drop_cancel_s)}")
    print(f"ended HTTP session's search cancelled after: {spread(seen.session_cancel_s)}")
    if seen.rss_mb:
        print(
            f"attack server RSS after the first refused huge domain {seen.rss_mb[0]:.0f} MB, after the last "
            f"({len(seen.rss_mb)}) {seen.rss_mb[-1]:.0f} MB"
        )
    print(f"simplify_plan(with_plans) of 10 000 actions refused after: {spread(seen.simplify_s)}")
    print(f"574 KB of PDDL on --load-budget 2 refused after: {spread(seen.big_load_s)}")
    if seen.forged:
        print(
            f"forged proof store: {seen.forged['rows']} rows forged; the new server answered as before: "
            f"{seen.forged['same']}"
        )


if __name__ == "__main__":
    main()

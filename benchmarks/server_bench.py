"""Round-trip latency of the MCP server tools (the latency target of each call kind in brackets).

    python benchmarks/server_bench.py [--n 300] [--data SOURCE] [--no-stdio] [--http]

* in-process (SDK ``Client`` on the ``MCPServer`` object): list_applicable, progress, validate_plan on a loaded
  ACPBench Hard task [p50 <= 3 ms each]; load_task of distinct, not yet loaded tasks [p50 <= 50 ms];
* stdio (``acptools-server`` subprocess through the SDK client): list_applicable [p50 <= 10 ms];
* optionally streamable HTTP on loopback.

Prints p50 / p90 / p99 / max in milliseconds per call kind, and whether each target is met.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools_server import ServerConfig, build_server
from acptools_server.config import Limits
from mcp import Client, StdioServerParameters  # noqa: E402

from acptools import load_task  # noqa: E402
from acptools.dataset import domain_name, load_records  # noqa: E402

DEFAULT_DATA = "acpbench-hard"  # the bundled copy (acptools.dataset)
TARGETS_MS = {
    "in-process list_applicable": 3.0,
    "in-process progress": 3.0,
    "in-process validate_plan": 3.0,
    "in-process load_task (new task)": 50.0,
    "stdio list_applicable": 10.0,
}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def report(rows: dict[str, list[float]]) -> int:
    print(f"{'call':<40} {'n':>5} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    missed = 0
    for name, xs in rows.items():
        ms = [x * 1e3 for x in xs]
        target = TARGETS_MS.get(name)
        verdict = ""
        if target is not None:
            ok = statistics.median(ms) <= target
            missed += not ok
            verdict = f"p50 <= {target:g} ms: {'met' if ok else 'MISSED'}"
        print(
            f"{name:<40} {len(ms):>5} {statistics.median(ms):>8.2f} {pct(ms, 0.9):>8.2f} {pct(ms, 0.99):>8.2f} "
            f"{max(ms):>8.2f}  {verdict}"
        )
    return missed


async def timed(client: Client, name: str, args: dict, n: int, warmup: int = 20) -> list[float]:
    for _ in range(warmup):
        r = await client.call_tool(name, args)
        assert not r.is_error, r.content[0].text
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = await client.call_tool(name, args)
        out.append(time.perf_counter() - t0)
        assert not r.is_error, r.content[0].text
    return out


def pick_task(records: list[dict]) -> tuple[dict, list[str]]:
    """A mid-sized logistics nexta record and its optimal plan (a realistic plan to validate)."""
    for r in records:
        nexta = r.get("group") == "goal_closer_gen"
        if nexta and domain_name(r) == "logistics-strips" and int(r["answer"]["opt"]) >= 8:
            task = load_task(r["PDDL_domain"], r["PDDL_problem"])
            plan = task.questions.plan(budget=60).witness
            if plan:
                return r, plan
    raise SystemExit("no suitable logistics record found")


async def bench_inprocess(n: int, records: list[dict], rows: dict[str, list[float]]) -> tuple[dict, list[str]]:
    record, plan = pick_task(records)
    async with Client(build_server(ServerConfig(limits=Limits(max_tasks=2000)))) as client:
        r = await client.call_tool("load_task", {"domain": record["PDDL_domain"], "problem": record["PDDL_problem"]})
        tid = r.structured_content["task_id"]
        first = (await client.call_tool("list_applicable", {"task_id": tid})).structured_content["actions"][0]
        rows["in-process list_applicable"] = await timed(client, "list_applicable", {"task_id": tid}, n)
        rows["in-process progress"] = await timed(client, "progress", {"task_id": tid, "action": first}, n)
        rows[f"in-process validate_plan ({len(plan)} steps)"] = await timed(
            client, "validate_plan", {"task_id": tid, "plan": plan}, n
        )
        rows["in-process validate_plan"] = rows.pop(f"in-process validate_plan ({len(plan)} steps)")
        # load_task: every distinct (domain, problem) once = parse + ground + summary, nothing cached
        seen, loads = {(record["PDDL_domain"], record["PDDL_problem"])}, []
        for rec in records:
            key = (rec["PDDL_domain"], rec["PDDL_problem"])
            if key in seen:
                continue
            seen.add(key)
            t0 = time.perf_counter()
            res = await client.call_tool("load_task", {"domain": key[0], "problem": key[1]})
            loads.append(time.perf_counter() - t0)
            assert not res.is_error, res.content[0].text
            assert not res.structured_content["cached"]
            if len(loads) >= n:
                break
        rows["in-process load_task (new task)"] = loads
        rows["in-process load_task (cached)"] = await timed(
            client, "load_task", {"domain": record["PDDL_domain"], "problem": record["PDDL_problem"]}, n
        )
    return record, plan


def server_command() -> list[str]:
    script = shutil.which("acptools-server")
    return [script] if script else [sys.executable, "-m", "acptools_server"]


async def bench_stdio(n: int, record: dict, plan: list[str], rows: dict[str, list[float]]) -> None:
    cmd = server_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "--log-level", "WARNING"], cwd=str(ROOT))
    async with Client(params) as client:
        r = await client.call_tool("load_task", {"domain": record["PDDL_domain"], "problem": record["PDDL_problem"]})
        tid = r.structured_content["task_id"]
        first = (await client.call_tool("list_applicable", {"task_id": tid})).structured_content["actions"][0]
        rows["stdio list_applicable"] = await timed(client, "list_applicable", {"task_id": tid}, n)
        rows["stdio progress"] = await timed(client, "progress", {"task_id": tid, "action": first}, n)
        rows["stdio validate_plan"] = await timed(client, "validate_plan", {"task_id": tid, "plan": plan}, n)
        rows["stdio server_info"] = await timed(client, "server_info", {}, n)


async def bench_http(n: int, record: dict, rows: dict[str, list[float]]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [*server_command(), "--transport", "streamable-http", "--port", str(port), "--log-level", "WARNING"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            r = await client.call_tool(
                "load_task", {"domain": record["PDDL_domain"], "problem": record["PDDL_problem"]}
            )
            tid = r.structured_content["task_id"]
            rows["http list_applicable"] = await timed(client, "list_applicable", {"task_id": tid}, n)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="timed calls per kind (default 300)")
    ap.add_argument(
        "--data",
        default=DEFAULT_DATA,
        help="acpbench-hard[:dev|test] (bundled, the default) or an ACPBench Hard file or folder",
    )
    ap.add_argument("--no-stdio", action="store_true")
    ap.add_argument("--http", action="store_true", help="also time streamable HTTP on loopback")
    args = ap.parse_args()
    for noisy in ("httpx", "httpx2", "mcp", "acptools.server"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    records = load_records(args.data)
    rows: dict[str, list[float]] = {}

    async def run() -> None:
        record, plan = await bench_inprocess(args.n, records, rows)
        print(f"task: {domain_name(record)} record {record['id']}, validate_plan on a {len(plan)}-step plan")
        if not args.no_stdio:
            await bench_stdio(args.n, record, plan, rows)
        if args.http:
            await bench_http(args.n, record, rows)

    anyio.run(run)
    missed = report(rows)
    print(json.dumps({k: round(statistics.median(v) * 1e3, 3) for k, v in rows.items()}))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

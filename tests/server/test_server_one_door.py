"""One door to the truth: the MCP tools, `acptools score` and the library's other doors ask one truth
service, so what one proves the others read.

Real processes share one proof store: an `acptools score` run and an `acptools-server --cache` over
stdio, in both orders. A search leaves a DEBUG line on `acptools.engine` and a load one per grounding
step on `acptools.ground`, so the logs show what was searched and grounded; each test also shows that
the same process does log a search when the store holds nothing for the state asked about.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from acptools_server import ServerConfig
from acptools_server.state import ServerState, local_context
from acptools_server.tools import episodes, questions, scoring

from acptools import load_task
from acptools.dataset import acpbench_hard, domain_name
from acptools.ground.pipeline import STEPS
from acptools.proofs import store
from tests.support.load import slack
from tests.support.server_procs import REPO, StdioServer

SEARCH = "search:"  # acptools.engine's DEBUG line for each search it starts
GROUNDING = "grounding step parse"  # acptools.ground's DEBUG line for the first step of grounding a task


def _record() -> dict:
    """A nexta record whose h* the quick in-process A* settles within its CPU slice (so the scorer
    keeps the optimal first actions with h*)."""
    return next(r for r in acpbench_hard("dev", "nexta") if domain_name(r) == "ferry")


def _score(tmp: Path, record: dict, cache: Path) -> subprocess.CompletedProcess:
    """`acptools --log-level DEBUG score --gold` on one record, with the proof store `cache`."""
    data = tmp / "data.jsonl"
    data.write_text(json.dumps(record) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "--log-level",
            "DEBUG",
            "score",
            "--data",
            str(data),
            "--gold",
            "--quiet",
            "--cache",
            str(cache),
            "--out",
            str(tmp / "items.jsonl"),
            "--force",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=slack(600),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = [json.loads(line) for line in (tmp / "items.jsonl").read_text().splitlines()]
    assert [i["score"] for i in items] == [1], items
    return proc


def _since(server: StdioServer, mark: int = 0) -> str:
    """The server's log from `mark` on, its lines joined (the server's log handler wraps long lines)."""
    return " ".join(server.log_text()[mark:].split())


def test_the_server_serves_what_acptools_score_proved_without_a_search(tmp_path: Path) -> None:
    record = _record()
    cache = tmp_path / "proofs.sqlite"
    scored = _score(tmp_path, record, cache)
    assert SEARCH in scored.stderr and GROUNDING in scored.stderr  # the scorer proved h* itself
    fresh = load_task(record["PDDL_domain"], record["PDDL_problem"]).questions.optimal_next()  # no store
    with StdioServer(tmp_path, "--cache", str(cache), "--log-level", "DEBUG") as server:
        task_id = server.ok("load_task", domain=record["PDDL_domain"], problem=record["PDDL_problem"])["task_id"]
        mark = len(server.log_text())
        got = server.ok("optimal_next_action", task_id=task_id)
        assert got["from_store"] is True and got["known"] is True
        assert (got["h_star"], sorted(got["optimal_actions"])) == (fresh.h_star, sorted(fresh.optimal_actions))
        replay = server.ok("validate_plan", task_id=task_id, plan=got["plan"])
        assert replay["valid"] and len(got["plan"]) == got["h_star"]
        served = _since(server, mark)
        assert SEARCH not in served, served[-2000:]
        assert GROUNDING not in _since(server)  # the task itself was read from the store: kept, not grounded
        # the control: a state the scorer never asked about is searched, and says so
        applicable = server.ok("list_applicable", task_id=task_id)["actions"]
        detour = next(a for a in applicable if a not in got["optimal_actions"])
        after = server.ok("progress", task_id=task_id, action=detour)["state"]
        mark = len(server.log_text())
        control = server.ok("optimal_next_action", task_id=task_id, state=after)
        assert control["from_store"] is False and control["known"] and control["h_star"] >= got["h_star"]
        assert SEARCH in _since(server, mark)
        assert server.info()["planners_running"] == 0


def test_acptools_score_reads_what_the_server_proved(tmp_path: Path) -> None:
    record = _record()
    cache = tmp_path / "proofs.sqlite"
    with StdioServer(tmp_path, "--cache", str(cache), "--log-level", "DEBUG") as server:
        task_id = server.ok("load_task", domain=record["PDDL_domain"], problem=record["PDDL_problem"])["task_id"]
        proved = server.ok("optimal_next_action", task_id=task_id)
        assert proved["known"] and proved["from_store"] is False and SEARCH in _since(server)
        assert all(f"grounding step {step}" in _since(server) for step in STEPS)  # --log-level DEBUG shows them
    found = store.ProofStore(cache)
    facts = found.stats()["facts"]
    found.close()
    assert facts.get(f"{store.ENGINE_VERSION} h*", 0) >= 1 and found.grounded_count() == 1, facts
    scored = _score(tmp_path, record, cache)
    assert SEARCH not in scored.stderr, scored.stderr[-3000:]  # h* and the optimal actions were read
    assert GROUNDING not in scored.stderr  # and the task the server kept


def test_every_door_of_the_server_asks_its_truth_service() -> None:
    """The question tools, score_answer and the episode tools fill and read one cache: the state's
    truth in the server's service, which a tool call made and the next one finds."""

    async def run() -> None:
        state = ServerState.create(ServerConfig())
        ctx = local_context(state)
        task = state.tasks.get("example:ferry")
        assert state.truth.sizes()["truths"] == 0
        questions.list_applicable(ctx, "example:ferry")
        assert state.truth.holds(task, task.init)
        truth = state.truth.truth(task, task.init)
        nxt = await questions.optimal_next_action(ctx, "example:ferry")
        assert truth.h_known and truth.h_star(None).cost == nxt.h_star
        lists = await questions.unreachable_actions(ctx, "example:ferry")
        assert truth.list_so_far("actions").total == lists.total
        graded = await scoring.score_answer(ctx, task="nexta", response=nxt.optimal_actions[0], task_id="example:ferry")
        assert graded.score == 1
        started = await episodes.start_episode(ctx, "example:ferry")
        assert started.h_star == nxt.h_star
        # the scorer and the episode asked the same truth object: nothing else was made for the state
        assert state.truth.truth(task, task.init) is truth
        verdict = await questions.is_reachable(ctx, "example:ferry", "(at c0 l1)")
        assert verdict.answer is True and truth.atom_reach(task.parse_atom("(at c0 l1)"), 0.001).answer is True
        await state.shutdown()

    anyio.run(run)


def test_a_server_without_cache_stores_nothing_and_says_nothing_came_from_a_store() -> None:
    async def run() -> None:
        state = ServerState.create(ServerConfig())
        assert state.truth.store is None
        ctx = local_context(state)
        first = await questions.optimal_next_action(ctx, "example:ferry")
        again = await questions.optimal_next_action(ctx, "example:ferry")
        assert first.from_store is False and again.from_store is False and first.h_star == again.h_star
        await state.shutdown()

    anyio.run(run)

"""The MCP server with a forged proof store (every stored verdict flipped, checksums recomputed
without the key) answers as it does without a store: score_answer, start_episode's h*,
optimal_next_action, is_reachable, is_landmark and plan; and the forged rows were read and refused."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import anyio
import pytest
from acptools_server import ServerConfig, build_server
from mcp import Client

from acptools import load_task
from acptools.dataset import acpbench_hard
from acptools.proofs import store
from acptools.scoring import gold_response
from acptools.truth import clear_caches
from tests.support.forge import forge
from tests.support.load import slack
from tests.support.mcp_client import Tools

SAMPLE = {"nexta": 2, "reach": 2, "areach": 1, "land": 2}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _questions():
    """(kind, record, responses): the gold answer and wrong ones, on the bundled records' tasks."""
    out = []
    for kind, n in SAMPLE.items():
        for rec in acpbench_hard("dev", kind)[:n]:
            task = load_task(rec["PDDL_domain"], rec["PDDL_problem"])
            if kind == "nexta":
                responses = rec["answer"]["yes"] + rec["answer"]["no"]
            elif kind == "areach":
                responses = task.action_names[:3]
            else:
                responses = task.atom_names[:4]
            if kind != "nexta":
                responses.append("None")  # graded against the complete list
            out.append((kind, rec, [gold_response(rec) or "None"] + responses, task))
    return out


async def _answers(config: ServerConfig, questions) -> tuple[list, int]:
    """Every answer the tools give on the sample (fields that must not depend on a store), and how
    many stored rows the server refused."""
    clear_caches()  # nothing proven by an earlier run in this process may answer
    got = []
    async with Client(build_server(config)) as client:
        t = Tools(client)
        for kind, rec, responses, task in questions:
            for response in responses:
                s = await t.ok("score_answer", task=kind, response=response, record=rec)
                got.append(("score", kind, response, s["score"], s["verdict"]))
            tid = await t.load_record(rec)
            start = await t.ok("start_episode", task_id=tid)
            nxt = await t.ok("optimal_next_action", task_id=tid)
            found = await t.ok("plan", task_id=tid)
            got.append(
                (
                    "task",
                    tid,
                    start["h_star"],
                    start["h_star_known"],
                    nxt["h_star"],
                    sorted(nxt["optimal_actions"]),
                    found["answer"],
                    found["length"],
                )
            )
            for atom in task.atom_names[:4]:
                reach = await t.ok("is_reachable", task_id=tid, atom=atom)
                land = await t.ok("is_landmark", task_id=tid, atom=atom)
                got.append(("atom", tid, atom, reach["answer"], land["answer"]))
        refused = store.active().bypassed if store.active() is not None else 0
    clear_caches()
    return got, refused


@pytest.mark.anyio
async def test_a_forged_store_changes_no_answer_of_the_server(tmp_path) -> None:
    questions = _questions()
    path = tmp_path / "proofs.sqlite"
    with anyio.fail_after(slack(600)):
        fresh, _ = await _answers(ServerConfig(), questions)
        filling, refused = await _answers(ServerConfig(cache=str(path)), questions)
        assert filling == fresh and refused == 0
        signed = tmp_path / "signed.sqlite"
        with sqlite3.connect(path) as src, sqlite3.connect(signed) as dst:
            src.backup(dst)  # a copy with what is still in the write-ahead log
        n = forge(path)
        kinds = {k.split()[1] for k in store.ProofStore(path).stats()["facts"]}
        assert n >= 20 and store.ProofStore(path).stats()["bypassed"] == n
        assert {"h*", "reach-atom", "reach-action", "landmark", "list-atoms"} <= kinds, kinds
        forged, refused = await _answers(ServerConfig(cache=str(path)), questions)
        assert forged == fresh
        assert refused >= 10  # the forged rows were looked up, and refused
        # the control: the same forgeries signed with the key (kept out of the file) would be served
        forge(signed, key=Path(os.environ["ACPTOOLS_STORE_KEY_FILE"]).read_text().strip().encode())
        served, _ = await _answers(ServerConfig(cache=str(signed)), questions)
    assert served != fresh

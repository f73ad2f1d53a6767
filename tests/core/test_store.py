"""The proof store: truths proven once are read back by a later process, unknowns are never
stored, a foreign or damaged file is bypassed, and `acptools cache verify` proves facts again."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from acptools import Effort, examples, load_task
from acptools.dataset import acpbench_hard
from acptools.proofs import store
from acptools.proofs.verify import verify_facts
from acptools.scoring import clear_caches, gold_response
from acptools.truth import truth_for


def _score_gold(tmp_path, records, cache):
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "items.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "acptools.cli",
        "score",
        "--data",
        str(data),
        "--gold",
        "--quiet",
        "--force",
        "--out",
        str(out),
        "--cache",
        str(cache),
    ]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, env=_env())
    return [json.loads(line) for line in out.read_text().splitlines()]


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}


def test_a_second_process_reads_the_proofs_the_first_one_stored(tmp_path):
    recs = [r for t in ("nexta", "reach", "land") for r in acpbench_hard("dev", t)[:3]]
    cache = tmp_path / "proofs.sqlite"
    first = _score_gold(tmp_path, recs, cache)
    stats = store.ProofStore(cache).stats()
    assert stats["tasks"] >= 3 and any("h*" in k for k in stats["facts"])
    second = _score_gold(tmp_path, recs, cache)
    assert [(i["id"], i["score"], i["verdict"]) for i in first] == [(i["id"], i["score"], i["verdict"]) for i in second]
    assert store.ProofStore(cache).stats()["facts"] == stats["facts"]  # nothing new needed proving


def test_stored_truths_answer_without_search_and_unknowns_are_not_stored(tmp_path):
    task = load_task(*examples.texts("grid"))
    try:
        found = store.use(tmp_path / "p.sqlite")
        clear_caches()
        assert not truth_for(task, task.init).h_star(Effort(1e-6)).known
        assert found.stats()["facts"] == {}
        clear_caches()
        h = truth_for(task, task.init).h_star(60)
        assert h.known and found.stats()["facts"]
        clear_caches()
        again = truth_for(load_task(*examples.texts("grid")), task.init).h_star(Effort(1e-6))  # a spent budget
        assert again.known and again.cost == h.cost and task.is_plan(again.plan, task.init)
        res = verify_facts(found)
        assert res["checked"] >= 1 and not res["failures"]
    finally:
        store.use(None)
        clear_caches()


def test_a_foreign_or_damaged_file_is_bypassed(tmp_path):
    foreign = tmp_path / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.commit()
    conn.close()
    assert store.ProofStore(foreign).broken and store.ProofStore(foreign).get("t", "s", "h*") is None
    text = tmp_path / "text.sqlite"
    text.write_text("not a database at all " * 100)
    assert store.ProofStore(text).broken
    good = store.ProofStore(tmp_path / "good.sqlite")
    good.put("t", "s", "h*", "", {"cost": 3})
    assert good.get("t", "s", "h*") == {"cost": 3}
    c = sqlite3.connect(tmp_path / "good.sqlite")
    c.execute("UPDATE facts SET value = '{\"cost\": 1}'")  # tampered: the MAC no longer matches
    c.commit()
    c.close()
    assert store.ProofStore(tmp_path / "good.sqlite").get("t", "s", "h*") is None


def test_verify_reports_a_wrong_stored_fact(tmp_path):
    rec = acpbench_hard("dev", "nexta")[0]
    path = tmp_path / "p.sqlite"
    try:
        found = store.use(path)
        clear_caches()
        task = load_task(rec["PDDL_domain"], rec["PDDL_problem"])
        truth = truth_for(task, task.init)
        truth.h_star(60)
        row = found.get(task.key, truth.state_key, "h*")
        row["cost"] += 1
        found.put(task.key, truth.state_key, "h*", "", row)  # a wrong fact written with the key
        res = verify_facts(found)
        assert [m["problem"] for m in res["failures"]] == [f"a plan of {row['cost'] - 1} steps for h* {row['cost']}"]
    finally:
        store.use(None)
        clear_caches()
    out = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "cache", "verify", "--cache", str(path)],
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert out.returncode == 1 and "FAILED h*" in out.stdout
    assert gold_response(rec)


def test_a_proven_floor_is_stored_served_and_verified(tmp_path, monkeypatch):
    """A wrong nexta answer proven wrong by a search stopped at h*(s) (here without the in-process
    A*, so without the set of optimal first actions) leaves an h*-floor row: a later run reads it
    instead of searching, `verify` proves it again, and a floor raised past the truth is caught."""
    from acptools.engine.optimal import Optimizer
    from acptools.scoring import score_answer

    monkeypatch.setattr(Optimizer, "_astar_h", lambda self, state, budget: None)
    texts = examples.texts("ferry")
    try:
        found = store.use(tmp_path / "p.sqlite")
        clear_caches()
        task = load_task(*texts)
        graded = {a: score_answer("nexta", a, task=task, budget=60) for a in task.questions.applicable()}
        bounded = [a for a, it in graded.items() if it.score == 0 and it.metrics.get("regret") is None]
        assert bounded and any(k.endswith(" h*-floor") for k in found.stats()["facts"])
        clear_caches()
        again = load_task(*texts)
        for a in bounded:  # a spent budget: only what is stored can answer
            it = score_answer("nexta", a, task=again, budget=Effort(1e-6))
            assert (it.score, it.metrics["h_star_after_lower"]) == (0, graded[a].metrics["h_star_after_lower"])
        assert not verify_facts(found)["failures"]
        t = task.apply_op(task.op_for(task.parse_action(bounded[0]), task.init), task.init)
        truth = truth_for(task, t)
        true_h = task.questions.optimizer.h_star(t, task.questions.as_budget(60)).cost
        found.put(task.key, truth.state_key, "h*-floor", "", {"lower": true_h + 1, "how": "forged"})
        assert [f["problem"] for f in verify_facts(found)["failures"]] == [
            f"stored h* >= {true_h + 1}, proven h* = {true_h}"
        ]
    finally:
        store.use(None)
        clear_caches()

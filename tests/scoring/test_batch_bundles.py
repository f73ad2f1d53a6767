"""`acptools score --jobs N` hands the records of one task to one worker together (parsed and grounded
once), in bundles small enough to keep every worker busy; the items are those of --jobs 1."""

from __future__ import annotations

from collections import defaultdict

from acptools.dataset import acpbench_hard
from acptools.scoring import clear_caches
from acptools.scoring.batch import _bundles, gold_rows, match, score_pairs
from acptools.task import task_key


def test_bundles_keep_a_tasks_units_together_in_order_and_capped():
    tasks = ["a", "b", "a", "c", "a", "b", "a", "a", "a", "a", "d", "a"]
    bundles = _bundles(tasks, jobs=1)  # at most 12 // 4 = 3 units a bundle
    assert [k for _, ks in bundles for k in ks] == [0, 2, 4, 1, 5, 3, 6, 7, 8, 9, 11, 10]
    assert all(len(ks) <= 3 and {tasks[k] for k in ks} == {t} for t, ks in bundles)
    assert [t for t, _ in bundles] == ["a", "b", "c", "a", "a", "d"]  # each where its first unit was
    assert [len(ks) for _, ks in _bundles(["x"] * 8, jobs=2)] == [1] * 8  # one task: every record its own unit


def test_records_sharing_a_task_get_the_items_of_one_job():
    by_task = defaultdict(list)
    for kind in ("prog", "reach", "just", "val", "land", "app"):
        for r in acpbench_hard("dev", kind):
            by_task[task_key(r["PDDL_domain"], r["PDDL_problem"])].append(r)
    shared = [recs for recs in by_task.values() if len(recs) > 1][:6]
    records = [r for recs in shared for r in recs]
    pairs = match(records, gold_rows(records))
    clear_caches()
    one = score_pairs(pairs, "exact", 10.0, jobs=1)
    clear_caches()
    two = score_pairs(pairs, "exact", 10.0, jobs=2)
    stable = lambda items: [(it["id"], it["score"], it["verdict"], it["reason"]) for it in items]  # noqa: E731
    assert len(records) >= 12 and stable(two) == stable(one)

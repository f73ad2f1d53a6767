"""The race's shared root (engine/optimal.py SharedRoot): the first planner to prove h* of the state
stops the other planners' root searches and hands them its answer, and the optimal next actions
found from it are exactly the brute-force oracle's, with Fast Downward and SymK both in the race."""

from __future__ import annotations

import threading
import time

import pytest

from acptools.budget import Budget
from acptools.engine import optimal
from acptools.engine.optimal import GATE_WORKERS, HStar, Seat, SharedRoot
from tests.support.small_tasks import make, space


def test_the_first_root_stops_the_other_search_and_is_shared():
    shared = SharedRoot()
    stopped = threading.Event()

    def slow(budget: Budget):
        while not budget.cancelled():
            time.sleep(0.005)
        stopped.set()
        return None

    slow_seat, fast_seat = Seat(), Seat()
    got = {}
    worker = threading.Thread(target=lambda: got.setdefault("slow", shared.solve(slow, Budget(60), slow_seat)))
    worker.start()
    time.sleep(0.05)
    root = HStar(3, [1, 2, 3], "test")
    assert shared.solve(lambda b: root, Budget(60), fast_seat) is root
    worker.join(timeout=30)
    assert stopped.is_set() and got["slow"] is root
    assert fast_seat.workers() == GATE_WORKERS and slow_seat.workers() == 1
    late = Seat()  # a planner that starts after the root is known runs no root search at all
    assert shared.solve(lambda b: pytest.fail("searched again"), Budget(60), late) is root and not late.won


def test_an_unknown_root_is_not_shared():
    shared = SharedRoot()
    unknown = HStar(None, None, "unknown", known=False)
    assert shared.solve(lambda b: unknown, Budget(5), Seat()) is unknown
    assert shared.found is None


@pytest.mark.parametrize("domain, seed", [("ferry", 0), ("briefcase", 0), ("doors", 2), ("blocksworld-4ops", 2)])
def test_optimal_actions_with_both_planners_racing_match_the_oracle(domain, seed, monkeypatch):
    """SymK joins at once, so its root and Fast Downward's race and one of them is cut short."""
    monkeypatch.setattr(optimal, "SYMK_DELAY", 0.0)
    task, oracle = make(domain, seed)
    _, graph, dist = space(domain, seed)
    opt = task.questions.optimizer
    checked = 0
    for atoms, h in sorted(dist.items(), key=lambda kv: (-kv[1], sorted(kv[0])))[:2]:
        if h < 2:
            continue
        s = task.parse_state(sorted(atoms))
        res = opt.next_actions(s, Budget(120), quick=False)
        assert res is not None and res.cost == h
        truth = {name for name, t in graph[atoms] if dist.get(t) == h - 1}
        assert {task.action_names[a] for a in res.optimal} == truth
        checked += 1
    assert checked

"""Partial credit for plan answers (valid prefix, h* after it, goal distance closed, action distance),
on generated plan records of a bundled STRIPS example and an ADL test domain. Every expected h* comes
from the independent oracle's brute-force distances; expected action distances from the definition."""

from __future__ import annotations

import functools
import threading

import pytest

from acptools import Budget, examples
from acptools.generate import Options, generate
from acptools.scoring import clear_caches, score_response
from acptools.truth import task_for
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle

DOMAINS = {"ferry": lambda: examples.texts("ferry"), "briefcase": lambda: pddl_texts("briefcase")}


@functools.cache
def cases(name: str) -> list:
    """Plan records of one domain, each with its oracle, initial atoms and oracle h* table."""
    domain, problem = DOMAINS[name]()
    records = generate(domain, [problem], Options(form="hard", tasks=("plan",), n=2, seed=1)).records
    assert len(records) == 2 and all(r["group"] == "plan_generation" for r in records)
    out = []
    for r in records:
        oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
        init = oracle.init_atoms()
        out.append((r, oracle, init, oracle.distances(init)))
    return out


@pytest.fixture(params=sorted(DOMAINS))
def case(request):
    return cases(request.param)


def answer(plan) -> str:
    return "[" + " ".join(plan) + "]"


def distance(a, b) -> float:
    """1 - |A ∩ B| / |A ∪ B| over multisets, written out independently of the library."""
    keys = set(a) | set(b)
    inter = sum(min(a.count(k), b.count(k)) for k in keys)
    union = sum(max(a.count(k), b.count(k)) for k in keys)
    return 1 - inter / union


def expected_prefix(oracle, init, dist, plan):
    """(valid prefix length, h* after it or 'dead-end') by the oracle's own replay."""
    s, k = init, 0
    for a in plan:
        t = oracle.successor(s, a)
        if t is None:
            break
        s, k = t, k + 1
    return k, dist.get(s, "dead-end")


def check(item, oracle, init, dist, plan, stored):
    k, h_after = expected_prefix(oracle, init, dist, plan)
    m = item.metrics
    assert m["valid_prefix"] == k
    assert m["h_star_after_prefix"] == h_after
    assert m["goal_distance_closed"] == (None if h_after == "dead-end" else dist[init] - h_after)
    assert m["action_distance"] == pytest.approx(distance(plan, stored), abs=1e-6)
    assert m["h_star"] == dist[init]


def test_an_optimal_plan_gets_full_credit(case):
    for r, oracle, init, dist in case:
        plan = r["answer"]["plan"]
        assert oracle.is_goal(oracle.run(init, plan)) and len(plan) == dist[init]  # the stored plan is optimal
        item = score_response(r, answer(plan))
        assert item.score == 1 and item.verdict == "correct"
        m = item.metrics
        assert (m["valid_prefix"], m["h_star_after_prefix"], m["action_distance"]) == (len(plan), 0, 0.0)
        assert m["goal_distance_closed"] == dist[init]


def test_a_plan_cut_short(case):
    for r, oracle, init, dist in case:
        plan = r["answer"]["plan"]
        for k in sorted({0, len(plan) // 2, len(plan) - 1}):
            item = score_response(r, answer(plan[:k]) if k else "[]")
            assert item.score == 0
            check(item, oracle, init, dist, plan[:k], plan)
            assert item.metrics["h_star_after_prefix"] == len(plan) - k  # along an optimal plan
            assert item.metrics["action_distance"] == pytest.approx(1 - k / len(plan), abs=1e-6)


def _wrong_actions(r, oracle, state, right):
    """One inapplicable and (when there is one) one applicable action other than `right` in `state`."""
    names = task_for(r["PDDL_domain"], r["PDDL_problem"]).all_ground_actions()
    applicable = [a for a in oracle.applicable(state) if a != right]
    inapplicable = next(a for a in names if oracle.successor(state, a) is None)
    return [inapplicable] + applicable[:1]


def test_a_wrong_action_in_the_middle(case):
    seen = set()
    for r, oracle, init, dist in case:
        plan = r["answer"]["plan"]
        i = len(plan) // 2
        state = oracle.run(init, plan[:i])
        for wrong in _wrong_actions(r, oracle, state, plan[i]):
            bad = plan[:i] + [wrong] + plan[i + 1 :]
            item = score_response(r, answer(bad))
            check(item, oracle, init, dist, bad, plan)
            seen.add(item.verdict)
            if oracle.successor(state, wrong) is None:
                assert item.score == 0 and item.metrics["valid_prefix"] == i
                assert item.metrics["h_star_after_prefix"] == len(plan) - i
    assert "not-a-plan" in seen


def test_a_hallucinated_action_ends_the_prefix(case):
    r, oracle, init, dist = case[0]
    plan = r["answer"]["plan"]
    bad = plan[:1] + ["(teleport nowhere)"] + plan[2:]
    item = score_response(r, answer(bad))
    assert item.score == 0 and item.verdict == "hallucinated"
    m = item.metrics
    assert m["valid_prefix"] == 1 and m["h_star_after_prefix"] == dist[oracle.run(init, plan[:1])]
    assert m["action_distance"] == pytest.approx(distance(bad, plan), abs=1e-6)


def _another_optimal_plan(oracle, init, dist, stored):
    """An optimal plan other than the stored one, by walking the oracle's graph along h* - 1 edges."""
    graph = oracle.graph(init)

    def walk(s, prefix):
        if dist[s] == 0:
            yield prefix
            return
        for a, t in graph[s]:
            if dist.get(t) == dist[s] - 1:
                yield from walk(t, prefix + [a])

    return next((p for p in walk(init, []) if p != [a.lower() for a in stored]), None)


def test_any_optimal_plan_has_action_distance_zero():
    found = 0
    for r, oracle, init, dist in cases("ferry") + cases("briefcase"):
        other = _another_optimal_plan(oracle, init, dist, r["answer"]["plan"])
        if other is None:
            continue
        found += 1
        item = score_response(r, answer(other))
        assert item.score == 1 and item.metrics["action_distance"] == 0.0
        assert item.metrics["h_star_after_prefix"] == 0 and item.metrics["valid_prefix"] == len(other)
    assert found, "no record with a second optimal plan"


def test_unknown_h_star_gives_none_never_a_guess(case):
    r, oracle, init, dist = case[0]
    plan = r["answer"]["plan"]
    clear_caches()  # h* must not come from an earlier test's cache
    stopped = Budget(60.0, cancel=threading.Event())
    stopped.cancel.set()
    item = score_response(r, answer(plan[:-1]), budget=stopped)
    m = item.metrics
    assert m["valid_prefix"] == len(plan) - 1
    assert m["h_star"] is None and m["h_star_after_prefix"] is None
    assert m["goal_distance_closed"] is None and m["action_distance"] is None
    clear_caches()

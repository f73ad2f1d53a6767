"""The optimal paths generation follows (and the plans of val / just / plan records) against the
brute-force oracle: each step is the seeded draw among the oracle's optimal next actions, whether the
step's h* came from a root search or, after the first step, from the step before (then only the gated
searches for the other optimal actions run)."""

from __future__ import annotations

import random

import pytest

from acptools import Budget
from acptools.engine.optimal import HStar, Optimizer
from acptools.generate.states import optimal_path
from tests.support.small_tasks import DOMAINS, make, space

PAIRS = [
    pytest.param(d, seed, id=f"{d}-{seed}", marks=() if seed == 0 else pytest.mark.slow)
    for d in sorted(DOMAINS)
    for seed in range(3)
]


def _oracle_optimal(oracle, dist, atoms) -> list[str]:
    """The oracle's optimal next actions of a state, by name."""
    return sorted(a for a in oracle.applicable(atoms) if dist.get(oracle.successor(atoms, a)) == dist[atoms] - 1)


def _oracle_path(oracle, dist, init, rng: random.Random) -> list[str] | None:
    """The path optimal_path must draw: at each state, the seeded choice among the optimal actions."""
    if init not in dist:
        return None
    path, atoms = [], init
    while dist[atoms] > 0:
        a = rng.choice(_oracle_optimal(oracle, dist, atoms))
        path.append(a)
        atoms = oracle.successor(atoms, a)
    return path


@pytest.mark.parametrize("quick", [True, False], ids=["quick-astar", "planners-only"])
@pytest.mark.parametrize("domain,seed", PAIRS)
def test_optimal_paths_are_the_seeded_draws_among_the_oracles_optimal_actions(domain, seed, quick, monkeypatch):
    """With the quick in-process A* (small tasks: it settles most steps) and without it, as on
    large tasks, where every step after the first starts from the h* the step before proved."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    if not quick:
        monkeypatch.setattr(type(task.questions.optimizer), "_quick_next", lambda self, state, budget: None)
    for k in range(3):
        path = optimal_path(task, task.init, random.Random(k), 60)
        expected = _oracle_path(oracle, dist, init, random.Random(k))
        assert (None if path is None else task.action_list(path)) == expected


@pytest.mark.parametrize("domain,seed", PAIRS)
def test_next_actions_from_a_known_h_star_match_the_oracle(domain, seed):
    """Given h* alone (no plan) or h* with an optimal plan, the optimal next actions are still all of
    the oracle's, along a whole path and at every successor of the initial state."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    engine = task.questions.engine
    states = [init] + [oracle.successor(init, a) for a in oracle.applicable(init)]
    checked = 0
    for atoms in states:
        if atoms not in dist or dist[atoms] == 0:
            continue
        state = task.parse_state(sorted(atoms))
        witness = Optimizer(engine).next_actions(state, Budget(None, cpu=60))
        for known in (HStar(dist[atoms], None, "given"), HStar(dist[atoms], witness.plan, "given")):
            opt = Optimizer(engine)  # its own cache of answers: the known h* is what it starts from
            res = opt.next_actions(state, Budget(None, cpu=60), known=known, quick=False)
            assert res is not None and res.cost == dist[atoms]
            assert sorted(task.action_list(res.optimal)) == _oracle_optimal(oracle, dist, atoms)
            end = oracle.run(atoms, task.action_list(res.plan))  # a plan even when only h* was given
            assert end is not None and oracle.is_goal(end) and len(res.plan) == dist[atoms]
            again = opt.next_actions(state, Budget(None, cpu=60))  # kept: asked again, no search
            fields = lambda r: (r.how, r.cost, r.optimal, r.plan, r.plans)  # noqa: E731
            assert fields(again) == fields(res)
            for a, plan in res.plans.items():  # the optimal plans kept per optimal first action
                assert a in res.optimal and plan[0] == a and len(plan) == dist[atoms]
                end = oracle.run(atoms, task.action_list(plan))
                assert end is not None and oracle.is_goal(end)
            if res.table is not None:
                for a, plan in res.table.plans.items():  # the plans it keeps per first action replay
                    assert plan[0] == a and len(plan) >= dist[atoms]
                    assert len(plan) > dist[atoms] or a in res.optimal  # one of length h* proves a optimal
                    end = oracle.run(atoms, task.action_list(plan))
                    assert end is not None and oracle.is_goal(end)
            checked += 1
    assert checked or not any(dist.get(s) for s in states)

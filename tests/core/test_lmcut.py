"""LM-cut (engine/lmcut.py) against the brute-force oracle's h* on every reachable state of the small
tasks (STRIPS, conditional effects compiled away, derived predicates), against pyperplan's own
LM-cut, and where it is used: "is h* below k?" (grading one next action) and the lower end of an
unknown h*."""

from __future__ import annotations

import copy
import threading
from pathlib import Path

import pytest

from acptools import Budget
from acptools.engine.hstar_table import INF
from acptools.engine.lmcut import LmCut
from acptools.engine.relaxed import Relaxation
from tests.support.random_tasks import random_task
from tests.support.simulator import _pruned_task
from tests.support.small_tasks import DOMAINS, make, space

SLOW = ("blocksworld-4ops", "gripper-strips")
CASES = [pytest.param(d, id=d, marks=pytest.mark.slow if d in SLOW else ()) for d in sorted(DOMAINS)]
STRIPS = ("ferry", "grid-visit-all", "gripper-strips", "blocksworld-4ops")  # pyperplan grounds these


def _solvable_states(domain: str, seed: int = 1):
    task, _ = make(domain, seed)
    _, _, dist = space(domain, seed)
    return task, [(task.parse_state(st), h) for st, h in sorted(dist.items(), key=lambda kv: sorted(kv[0]))]


@pytest.mark.parametrize("domain", CASES)
def test_lmcut_lies_between_hmax_and_the_oracle_h_star(domain):
    task, states = _solvable_states(domain)
    opt = task.questions.optimizer
    lmcut = opt.lmcut
    assert lmcut is not None, f"{domain}: the conditional effects compile away small"
    above_hmax = 0
    for s, h in states:
        value, hmax = lmcut.value(s, task.goal), opt.relax.hmax(s, task.goal)
        assert hmax <= value <= h, (domain, task.names(s), hmax, value, h)
        above_hmax += value > hmax
    print(f"\n{domain}: LM-cut above h^max on {above_hmax} of {len(states)} states")


def test_lmcut_is_stronger_than_hmax_somewhere():
    """The bound is worth its cost only if it proves more than h^max: on these tasks it does."""
    stronger = 0
    for domain in ("ferry", "rooms-derived", "briefcase"):
        task, states = _solvable_states(domain)
        opt = task.questions.optimizer
        stronger += sum(opt.lmcut.value(s, task.goal) > opt.relax.hmax(s, task.goal) for s, _ in states)
    assert stronger > 0


@pytest.mark.parametrize("domain", [d for d in STRIPS if d not in SLOW])
def test_lmcut_equals_pyperplans(domain):
    """pyperplan's LM-cut (an independent implementation, on its own grounding) gives the same value
    on every reachable state."""
    from pyperplan.heuristics.lm_cut import LmCutHeuristic
    from pyperplan.search.searchspace import make_root_node

    folder = Path(DOMAINS[domain])
    dom_text = (folder / "domain.pddl").read_text()
    theirs_task = _pruned_task(dom_text, random_task(dom_text, (folder / "problem.pddl").read_text(), 1))
    by_name = {f.lower(): f for f in theirs_task.facts}
    task, _ = make(domain, 1)
    _, _, dist = space(domain, 1)
    lmcut = task.questions.optimizer.lmcut
    for st in dist:
        theirs = copy.copy(theirs_task)
        theirs.initial_state = frozenset(by_name[a] for a in st if a in by_name)
        assert lmcut.value(task.parse_state(st), task.goal) == LmCutHeuristic(theirs)(
            make_root_node(theirs.initial_state)
        )


def test_a_bound_or_a_spent_budget_stops_it_early_with_a_lower_bound():
    task, states = _solvable_states("ferry")
    lmcut = task.questions.optimizer.lmcut
    cancelled = threading.Event()
    cancelled.set()
    for s, _ in states:
        full = lmcut.value(s, task.goal)
        for k in (1, 2, 3):
            assert min(k, full) <= lmcut.value(s, task.goal, bound=k) <= full
        assert 0 <= lmcut.value(s, task.goal, budget=Budget(None, cpu=0.0)) <= full
        assert lmcut.value(s, task.goal, budget=Budget(None, cancel=cancelled)) == 0  # stops before a round


def test_infinite_exactly_where_hmax_is():
    """A goal the relaxation cannot reach (here: from the empty state, where nothing applies)."""
    task, states = _solvable_states("ferry")
    opt = task.questions.optimizer
    assert opt.relax.hmax(0, task.goal) == INF
    for s in [0] + [s for s, _ in states]:
        assert (opt.lmcut.value(s, task.goal) == INF) == (opt.relax.hmax(s, task.goal) == INF)


def test_split_conditional_effects_are_refused():
    """Split into cost-1 operators, one action's conditional effects would count twice."""
    task, _ = make("briefcase", 1)
    ops = task.questions.optimizer.ops
    assert any(op.conds for op in ops)
    with pytest.raises(AssertionError, match="compile them away"):
        LmCut(Relaxation(len(task.atoms), ops))
    assert LmCut.of(len(task.atoms), ops) is not None


def test_h_below_answers_from_lmcut_only_what_the_oracle_says():
    """ "Is h*(s) below k?" (what grading one next action asks): where LM-cut reaches k it answers
    with no search, and the oracle's h* is at least k there."""
    by_lmcut = 0
    for domain in ("ferry", "rooms-derived", "briefcase", "blocks-derived"):
        task, states = _solvable_states(domain)
        opt = task.questions.optimizer
        for s, h in states[:60]:
            for k in range(1, h + 2):
                r = opt.h_below(s, k, Budget(None))
                if r.known:
                    assert r.cost == h, (domain, k, r)
                else:
                    assert k <= r.lower <= h, (domain, k, r)
                    by_lmcut += r.how == "lm-cut"
    assert by_lmcut > 0


def test_bounds_of_an_unknown_h_star_take_lmcut_as_their_lower_end():
    task, states = _solvable_states("blocks-derived")
    opt = task.questions.optimizer
    s, h = max(states, key=lambda sh: opt.lmcut.value(sh[0], task.goal) - opt.relax.hmax(sh[0], task.goal))
    lower = opt.bounds(s, Budget(None, cpu=1)).bounds[0]
    assert opt.relax.hmax(s, task.goal) < opt.lmcut.value(s, task.goal) <= lower <= h

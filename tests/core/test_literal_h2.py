"""h^2, plain and over literals, checked against the brute-force oracle: every pair of literals (an
atom holding, or an atom some precondition needs false being false) that holds together in some
reachable state must be a reachable pair, so that every h2-mutex proof is sound; and the literal
pairs prove what plain h^2 cannot (schedule: a cold part that lost its hole cannot exist)."""

from __future__ import annotations

from functools import cache

import pytest

from acptools import Budget, load_task
from acptools.engine.h2 import h2_pairs
from acptools.engine.literal_h2 import LiteralH2
from acptools.verdict import Proof
from tests.support.data import PDDL
from tests.support.oracle import Oracle
from tests.support.random_tasks import random_task
from tests.support.small_tasks import AXIOM_DOMAINS, DOMAINS, make, space

# h^2 is not computed with axioms; the STRIPS domains' oracle spaces take up to a minute: -m slow
ADL_DOMAINS = ("briefcase", "doors", "switches")
PAIR_DOMAINS = [
    pytest.param(d, marks=() if d in ADL_DOMAINS else pytest.mark.slow)
    for d in sorted(set(DOMAINS) - set(AXIOM_DOMAINS))
]


SEEDS = [0, 1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]


@cache
def schedule(seed: int):
    """The one-part schedule task, its init moved by a seeded walk (seed 0: as written), and the
    oracle's graph of the states reachable from it."""
    domain = (PDDL / "schedule" / "domain.pddl").read_text()
    problem = (PDDL / "schedule" / "problem.pddl").read_text()
    if seed:
        problem = random_task(domain, problem, seed)
    oracle = Oracle(domain, problem)
    return domain, problem, oracle, oracle.graph(oracle.init_atoms())


def _literal_mask(task, literals: LiteralH2, atoms) -> int:
    state = task.parse_state(sorted(atoms))
    return state | literals.complement(literals.negated & ~state)


def _assert_pairs_cover(task, literals: LiteralH2, pairs: list[int], states) -> None:
    for atoms in states:
        mask = _literal_mask(task, literals, atoms)
        for i in range(mask.bit_length()):
            if mask >> i & 1:
                missing = mask & ~pairs[i]
                assert not missing, (sorted(atoms), i, bin(missing))


@pytest.mark.parametrize("domain", PAIR_DOMAINS)
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_every_pair_that_holds_in_a_reachable_state_is_an_h2_pair(domain, seed):
    task, oracle = make(domain, seed)
    init, graph, _ = space(domain, seed)
    engine = task.questions.engine
    state = task.parse_state(sorted(init))
    literals = LiteralH2(len(engine.task.atoms), engine.operators)
    plain = LiteralH2(len(engine.task.atoms), [])  # no complements: pairs over atoms only
    _assert_pairs_cover(task, plain, h2_pairs(len(engine.task.atoms), engine.operators, state), graph)
    _assert_pairs_cover(task, literals, literals.pairs(state), graph)


@pytest.mark.parametrize("seed", SEEDS)
def test_literal_pairs_are_sound_on_schedule(seed):
    domain, problem, oracle, graph = schedule(seed)
    task = load_task(domain, problem)
    engine = task.questions.engine
    assert engine.literals is not None and engine.literals.negated
    _assert_pairs_cover(task, engine.literals, engine.literal_h2(task.parse_state(sorted(oracle.init_atoms()))), graph)


@pytest.mark.parametrize("seed", SEEDS)
def test_schedule_actions_proven_never_applicable_never_apply(seed):
    """The list is complete at once, every proof holds in the oracle's state space, and on the task
    as written (seed 0) the literal pairs prove what plain h^2 cannot."""
    domain, problem, oracle, graph = schedule(seed)
    task = load_task(domain, problem)
    applied = {name for moves in graph.values() for name, _ in moves}
    res = task.questions.unreachable_actions(budget=Budget(None, cpu=30.0))
    assert res.complete
    assert not applied & set(res.names)
    assert set(oracle.ground_actions()) - applied <= set(res.names)
    if seed == 0:
        by_h2 = {it.name for it in res.items if it.how == Proof.H2}
        assert {"(do-punch a0 three front)", "(do-drill-press a0 three front)"} <= by_h2
        engine = task.questions.engine
        pairs = engine.h2(task.init)
        for name in by_h2:
            ops = engine.task.ops_of_action[engine.task.action_index[name]]
            plain_proves = not any(
                all(pairs[p] & op.pre == op.pre for p in range(op.pre.bit_length()) if op.pre >> p & 1) for op in ops
            )
            if name.endswith("three front)"):
                assert not plain_proves, name  # the proof needs the literal pairs


def test_the_suite_schedule_lists_are_complete_by_literal_pairs():
    """schedule-3-1 from the public suite: the six punch / drill actions that ran out of a 10 s
    budget before are proven at once."""
    folder = PDDL.parent.parent / "benchmarks" / "suite" / "schedule"
    task = load_task((folder / "domain.pddl").read_text(), (folder / "small.pddl").read_text())
    res = task.questions.unreachable_actions(budget=Budget(None, cpu=10.0, states=None))
    assert res.complete
    assert sum(it.how == Proof.H2 for it in res.items) >= 6

"""Conditional effects simplified at grounding (acptools/ground/effects.py) keep every transition.

Two checks: random operators over a few atoms give the same successor in every state before and
after `simplify`; and on suite tasks with conditional effects, the successors acptools computes
along random walks are exactly those of unified-planning's simulator (tests/support/oracle.py),
which applies the PDDL as written."""

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acptools import load_task
from acptools.ground.effects import simplify
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "suite"
ATOMS = 4
mask = st.integers(min_value=0, max_value=(1 << ATOMS) - 1)
condition = st.tuples(mask, mask, mask, mask)


def _apply(add: int, dele: int, conds, state: int) -> int:
    """The successor as GroundedTask.apply_op gives it: conditions read in the old state, adds win."""
    for cp, cn, ca, cd in conds:
        if state & cp == cp and not state & cn:
            add |= ca
            dele |= cd
    return (state & ~dele) | add


@settings(max_examples=400, deadline=None)
@given(mask, mask, mask, mask, st.lists(condition, max_size=5))
def test_simplified_operator_gives_the_same_successor_in_every_state(pre, neg, add, dele, conds):
    conds = tuple(conds)
    new_add, new_dele, new_conds = simplify(pre, neg, add, dele, conds)
    literals = sum(ca.bit_count() + cd.bit_count() for _, _, ca, cd in conds)
    assert sum(ca.bit_count() + cd.bit_count() for _, _, ca, cd in new_conds) <= literals
    for state in range(1 << ATOMS):
        if state & pre == pre and not state & neg:
            assert _apply(new_add, new_dele, new_conds, state) == _apply(add, dele, conds, state), state


def test_every_operator_with_one_condition_over_two_atoms():
    masks = range(4)
    for pre, neg, add, dele, cp, cn, ca, cd in itertools.product(masks, repeat=8):
        if pre & neg:
            continue
        conds = ((cp, cn, ca, cd),)
        new = simplify(pre, neg, add, dele, conds)
        for state in range(4):
            if state & pre == pre and not state & neg:
                assert _apply(*new, state) == _apply(add, dele, conds, state)


def test_delete_whatever_held_before_becomes_plain():
    # (forall (?c) (when (colour ?c) (not (colour ?c)))) with (colour red): atoms 0..2 the colours,
    # 3 the new colour; the old colours are deleted, the new one added, with no condition left
    conds = tuple((1 << c, 0, 0, 1 << c) for c in range(3)) + ((0, 1 << 4, 1 << 4, 0),)
    assert simplify(0, 0, 1 << 3, 0, conds) == (1 << 3 | 1 << 4, 0b111, ())


def _agree_with_simulator(task, oracle: Oracle, walks: int, depth: int) -> None:
    """Random walks in lockstep: at every state, each applicable action and its successor (over
    acptools' fluent atoms) are the same in acptools and in the simulator."""
    ours_atoms = frozenset(task.atom_names)
    rng = random.Random(len(task.atoms))
    for _ in range(walks):
        s, st = task.init, oracle.state(oracle.init_atoms())
        for _ in range(depth):
            ours = {
                (task.action_names[op.action], frozenset(task.names(task.apply_op(op, s))))
                for op in task.applicable_ops(s)
            }
            theirs = {(name, oracle.atoms(t) & ours_atoms) for name, t in oracle.moves(st)}
            assert ours == theirs
            if not ours:
                break
            name = rng.choice(sorted(ours))[0]
            s, st = task.apply_op(task.op_for(task.parse_action(name), s), s), oracle.apply(st, name)


def test_schedule_operators_are_plain_and_agree_with_the_simulator():
    domain, problem = (SUITE / "schedule" / "domain.pddl").read_text(), (SUITE / "schedule" / "small.pddl").read_text()
    task = load_task(domain, problem)
    assert task.operators and not any(op.conds for op in task.operators)
    _agree_with_simulator(task, Oracle(domain, problem), walks=2, depth=4)


@pytest.mark.parametrize("name", ["briefcaseworld/small", "miconic-fulladl/small", "switches", "briefcase"])
def test_conditional_tasks_agree_with_the_simulator(name):
    if "/" in name:
        domain, size = name.split("/")
        domain, problem = (SUITE / domain / "domain.pddl").read_text(), (SUITE / domain / f"{size}.pddl").read_text()
    else:
        domain, problem = pddl_texts(name)
    task = load_task(domain, problem)
    assert any(op.conds for op in task.operators)
    _agree_with_simulator(task, Oracle(domain, problem), walks=2, depth=6)

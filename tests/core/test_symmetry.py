"""Symmetry keys (acptools/engine/symmetry.py), which every search uses for duplicate detection:
two states share a key only when a renaming of interchangeable objects maps one onto the other
(checked here by trying every renaming), and, where each atom mentions at most one interchangeable
object, every such pair shares its key (so the search merges whole orbits)."""

from __future__ import annotations

import random
from itertools import permutations, product

import pytest

from acptools import load_task
from acptools.engine.symmetry import Symmetry
from tests.support.data import ROOT

EXAMPLES = ROOT / "acptools" / "examples"


def _task(name: str):
    folder = EXAMPLES / name
    return load_task((folder / "domain.pddl").read_text(), (folder / "problem.pddl").read_text())


def _walk_states(task, n: int, seed: int) -> list[int]:
    """States on random walks from the initial state (restarted now and then)."""
    rng = random.Random(seed)
    gen = task.questions.engine.gen
    states, s = [], task.init
    while len(states) < n:
        succ = list(gen.successors(s))
        if not succ or rng.random() < 0.05:
            s = task.init
            continue
        s = rng.choice(succ)[1]
        states.append(s)
    return states


def _rename(task, state: int, perm: dict[str, str]) -> int:
    """`state` with its objects renamed by `perm`, written from the atoms' names."""
    out = 0
    for i, (pred, args) in enumerate(task.atoms):
        if state >> i & 1:
            out |= 1 << task.atom_index[(pred, tuple(perm.get(a, a) for a in args))]
    return out


def _renamings(sym: Symmetry):
    """Every renaming that permutes the objects within each class."""
    for choice in product(*(permutations(c) for c in sym.classes)):
        yield {src: dst for c, image in zip(sym.classes, choice) for src, dst in zip(c, image)}


def _same_orbit(task, sym: Symmetry, a: int, b: int) -> bool:
    return any(_rename(task, a, p) == b for p in _renamings(sym))


@pytest.mark.parametrize(
    "name,one_object", [("floor-tile", True), ("gripper-strips", False), ("logistics-strips", False)]
)
def test_equal_keys_only_for_renamings_of_each_other(name, one_object):
    task = _task(name)
    sym = task.questions.optimizer.sym
    assert sym.active and sym.one_object is one_object
    groups: dict = {}
    for s in set(_walk_states(task, 400, seed=1)):
        groups.setdefault(sym.canonical(s), []).append(s)
    merged = [g for g in groups.values() if len(g) > 1]
    assert merged, "the walks met no two symmetric states: the check below would check nothing"
    for g in merged:
        for other in g[1:]:
            assert _same_orbit(task, sym, g[0], other), (task.names(g[0]), task.names(other))


@pytest.mark.parametrize("name", ["gripper-strips", "logistics-strips"])
def test_a_renamed_key_is_a_state_of_the_orbit(name):
    task = _task(name)
    sym = task.questions.optimizer.sym
    for s in _walk_states(task, 150, seed=2):
        key = sym.canonical(s)
        assert isinstance(key, int) and _same_orbit(task, sym, s, key)


def test_one_object_keys_merge_whole_orbits():
    task = _task("floor-tile")
    sym = task.questions.optimizer.sym
    rng = random.Random(3)
    renamings = list(_renamings(sym))
    for s in _walk_states(task, 300, seed=3):
        perm = rng.choice(renamings)
        assert sym.canonical(_rename(task, s, perm)) == sym.canonical(s)


@pytest.mark.parametrize("name", ["floor-tile", "gripper-strips", "logistics-strips"])
def test_a_plan_carried_to_a_symmetric_state_replays_there(name):
    """The renaming between two states with one key maps one onto the other, and a plan found for
    one, renamed by it, is a plan from the other (replayed by the independent oracle)."""
    from acptools.budget import Budget
    from tests.support.oracle import Oracle

    folder = EXAMPLES / name
    task = _task(name)
    oracle = Oracle((folder / "domain.pddl").read_text(), (folder / "problem.pddl").read_text())
    opt = task.questions.optimizer
    sym = opt.sym
    groups: dict = {}
    for s in set(_walk_states(task, 400, seed=4)):
        groups.setdefault(sym.canonical(s), []).append(s)
    pairs = [(g[0], g[1]) for g in groups.values() if len(g) > 1][:6]
    assert pairs
    for a, b in pairs:
        perm = sym.renaming(a, b)
        assert _rename(task, a, perm) == b
        h = opt.h_star(a, Budget(60))
        assert h.known and h.plan is not None
        carried = sym.carry_plan(h.plan, a, b)
        end = oracle.run(task.names(b), [task.action_names[x] for x in carried])
        assert end is not None and oracle.is_goal(end) and len(carried) == h.cost
    assert (
        sym.renaming(
            task.init, next(s for s in _walk_states(task, 50, seed=5) if sym.canonical(s) != sym.canonical(task.init))
        )
        is None
    )

"""A list inherits what earlier lists showed reachable from a state t once a plan leads from its own
state to t (questions/reach.py `_inherit`). With the breadth-first sweep and every walk cut to
nothing, and no cheap proof (delete relaxation, h^2), the inheritance and Fast Downward's searches
decide every item; every list must still equal the brute-force oracle's, in states that can go back
to where earlier lists were asked and in states that cannot (there t's items may be unreachable,
and nothing may be inherited)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from acptools import Budget, load_task
from acptools.generate.states import random_walk, replay
from acptools.questions import reach
from tests.support.data import PDDL
from tests.support.small_tasks import DOMAINS, make

# seeds whose states include some that lose atoms for good (reachable from the initial state, where
# the first list is asked, but not from them): there a wrong inheritance shows
SEEDS = [pytest.param(2, id="seed2")] + [pytest.param(k, id=f"seed{k}", marks=pytest.mark.slow) for k in (1, 3, 4)]


@pytest.fixture
def no_sweeps(monkeypatch):
    """Only a state's direct successors are swept, no walk runs, and no cheap proof rules an atom out
    (an unreachable atom then goes to the searches, where a wrong inheritance would show it)."""
    monkeypatch.setattr(reach, "SWEEP_STATES", 1)
    for name in ("WALK_STEPS", "LONG_WALK_STEPS", "PLAN_WALK_STEPS"):
        monkeypatch.setattr(reach, name, 0)
    monkeypatch.setattr(reach, "_cheap_proofs", lambda engine, state, budget: ((1 << len(engine.task.atoms)) - 1, None))


@pytest.fixture
def inherited(monkeypatch):
    """How many wanted items each `_inherit` call settled, with whether the state reaches back."""
    calls: list[int] = []
    real = reach._inherit

    def spy(engine, state, atoms, actions, budget):
        left_atoms, left_actions = real(engine, state, atoms, actions, budget)
        calls.append(bin(atoms & ~left_atoms).count("1") + len(actions - left_actions))
        return left_atoms, left_actions
    monkeypatch.setattr(reach, "_inherit", spy)
    return calls


def _states(task, seed: int, count: int = 4) -> list[int]:
    rng = random.Random(seed)
    return [task.init] + [replay(task, task.init, random_walk(task, task.init, rng.randint(1, 12), rng))
                          for _ in range(count)]


@pytest.mark.parametrize("seed", SEEDS)
def test_lists_with_inherited_items_match_the_oracle(seed, no_sweeps, inherited):
    settled = lossy = 0
    for domain in sorted(DOMAINS):
        task, oracle = make(domain, seed)
        q = task.questions
        fluents, actions = oracle.fluent_atoms(), oracle.ground_actions()
        static = oracle.init_atoms() - fluents
        from_init = set().union(*oracle.graph(oracle.init_atoms()))
        for state in _states(task, seed):
            atoms = task.names(state)
            graph = oracle.graph(static | set(atoms))
            seen_atoms = set().union(*graph)
            seen_actions = {a for out in graph.values() for a, _ in out}
            before = len(inherited)
            res = q.unreachable_atoms(atoms, budget=30)
            assert res.complete and set(res.names) == fluents - seen_atoms, (domain, atoms)
            acts = q.unreachable_actions(atoms, budget=30)
            assert acts.complete and set(acts.names) == actions - seen_actions, (domain, atoms)
            settled += sum(inherited[before:])
            lossy += bool(from_init - seen_atoms)  # atoms the first list showed that this state never reaches
    assert settled > 0, "no list inherited anything: the test checks nothing"
    assert lossy > 0, "no state lost an atom for good: the case where inheriting is wrong is not tested"


def test_a_state_that_cannot_reach_a_remembered_state_inherits_nothing_from_it(no_sweeps):
    """Entries are used only through a replayed plan to their state: a remembered state the list's
    state cannot reach, said to show every atom and action, changes nothing."""
    for domain in sorted(DOMAINS):
        task, oracle = make(domain, 2)
        static = oracle.init_atoms() - oracle.fluent_atoms()
        for state in _states(task, 2, count=8)[1:]:
            atoms = task.names(state)
            graph = oracle.graph(static | set(atoms))
            if (oracle.init_atoms() in graph or len(graph) < 2
                    or not (oracle.fluent_atoms() - set().union(*graph)) & set(task.atom_names)):
                continue  # it goes back, it is a dead end (the sweep sees all), or no atom of the task is unreachable
            q = task.questions
            everything = (1 << len(task.atoms)) - 1
            q.engine.remember_shown(task.init, everything, range(task.num_actions))
            res = q.unreachable_atoms(atoms, budget=30)
            assert res.complete and set(res.names) == oracle.fluent_atoms() - set().union(*graph), (domain, atoms)
            return
    pytest.fail("no drawn state is unable to reach the initial state and has an unreachable atom of the task")


@pytest.mark.slow
def test_household_lists_after_inheriting_equal_fresh_ones(inherited):
    """On a task whose sweeps cover little (2,283 atoms, 2,719 actions), later states take hundreds
    of atoms from the first list; each list equals the one a fresh task computes."""
    folder = Path(PDDL) / "household"
    task = load_task(folder / "domain.pddl", folder / "problem.pddl")
    states = _states(task, 3, count=2)
    for state in states:
        task.questions.unreachable_atoms(task.names(state), budget=Budget(None, cpu=60))
    assert min(inherited[1:]) > 100  # each later list took hundreds of atoms from the first
    for state in states[1:]:
        kept = task.questions.unreachable_atoms(task.names(state), budget=Budget(None, cpu=60))
        fresh = load_task(folder / "domain.pddl", folder / "problem.pddl").questions.unreachable_atoms(
            task.names(state), budget=Budget(None, cpu=60))
        assert kept.complete and fresh.complete and kept.names == fresh.names

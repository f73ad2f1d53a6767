"""Lazy grounding answers exactly as grounding every action at once (`ground_all=True`).

A task grounds by relaxed reachability from its initial state and continues the fixpoint for any
state it is asked about; the reference grounds every action the static facts allow. Compared on
every shared record task, the test tasks, the bundled examples and the suite tasks: the
applicable actions and successors of the initial state, of random-walk states and of hand-built
states no walk produces, the operators of every action and the grounding invariant (grounded.py);
on one task per domain, every question's answer.
"""

from __future__ import annotations

import math
import random
import threading
from functools import lru_cache

import pytest

from acptools import examples, load_task
from acptools.budget import Budget
from acptools.dataset import acpbench_hard, domain_name
from acptools.engine.relaxed import Relaxation
from acptools.errors import BudgetExceeded
from acptools.ground.names import render
from acptools.verdict import Proof
from tests.support.data import PDDL, ROOT

SUITE = ROOT / "benchmarks" / "suite"
BUDGET = 20.0
BIG_TASK_OPERATORS = 1000
BIG_TASK_BUDGET = 5.0


@lru_cache(maxsize=1)
def _record_tasks() -> dict[str, list[tuple[str, str]]]:
    by_domain: dict[str, dict] = {}
    for r in acpbench_hard():
        by_domain.setdefault(domain_name(r), {})[r["PDDL_domain"] + "\0" + r["PDDL_problem"]] = (
            r["PDDL_domain"],
            r["PDDL_problem"],
        )
    return {name: list(tasks.values()) for name, tasks in sorted(by_domain.items())}


def _other_tasks() -> dict[str, tuple[str, str]]:
    found = {f"example:{n}": examples.texts(n) for n in examples.names()}
    for folder in sorted(p for p in PDDL.iterdir() if (p / "domain.pddl").exists()):
        found[f"test:{folder.name}"] = ((folder / "domain.pddl").read_text(), (folder / "problem.pddl").read_text())
    for folder in sorted(p for p in SUITE.iterdir() if (p / "domain.pddl").exists()):
        for size in ("small", "medium", "large"):
            if (folder / f"{size}.pddl").exists():
                found[f"suite:{folder.name}/{size}"] = (
                    (folder / "domain.pddl").read_text(),
                    (folder / f"{size}.pddl").read_text(),
                )
    return found


def _sample_actions(task, rng: random.Random, k: int) -> list[str]:
    """k type-correct ground actions drawn without repeats, uniformly, without listing them all (a
    task may have billions: slitherlink's link action has ten parameters)."""
    total = task.num_actions
    if total <= 5000:
        names = list(task.all_ground_actions())
        return rng.sample(names, min(k, len(names)))
    schemas = sorted(task.domain.actions.items())
    sizes = [math.prod(len(task.types.of(t)) for _, t in schema.params) for _, schema in schemas]
    picked: dict[str, None] = {}
    while len(picked) < k:
        ((name, schema),) = rng.choices(schemas, weights=sizes)
        picked[render(name, [rng.choice(task.types.of(t)) for _, t in schema.params])] = None
    return list(picked)


def _op_key(task, op) -> tuple:
    return task.action_names[op.action], op.pre, op.neg, op.add, op.dele, op.conds


def _states(full, seed: int, walks: int = 3, steps: int = 12) -> list[int]:
    """The initial state, states along seeded random walks, and hand-built states: random atom
    sets and the initial state plus atoms relaxed exploration from it never reaches."""
    rng = random.Random(seed)
    states = [full.init]
    for _ in range(walks):
        s = full.init
        for _ in range(rng.randint(1, steps)):
            ops = full.applicable_ops(s)
            if not ops:
                break
            s = full.apply_op(rng.choice(ops), s)
        states.append(s)
    n = len(full.atoms)
    states.append(sum(1 << i for i in range(n) if rng.random() < 0.3))
    unreached = ((1 << n) - 1) & ~load_task(full.domain_text, full.problem_text).grounded.reached
    if unreached:
        picked = [i for i in range(n) if unreached >> i & 1]
        states.append(full.init | sum(1 << i for i in rng.sample(picked, min(3, len(picked)))))
    return [s & ~full.derived for s in states]  # derived atoms are the axioms' to compute, not listed


def _assert_same_grounding(lazy, full, states: list[int], seed: int) -> None:
    assert lazy.atom_names == full.atom_names  # numbered at load, the same in both
    full_ops = {_op_key(full, op) for op in full.operators}
    for s in states:
        assert lazy.action_list(lazy.applicable(s)) == full.action_list(full.applicable(s))
        for name in full.action_list(full.applicable(s)):
            a, b = lazy.action_index[name], full.action_index[name]
            assert lazy.apply_op(lazy.op_for(a, s), s) == full.apply_op(full.op_for(b, s), s), name
        # the invariant of grounded.py, after the state was ensured
        assert not s & ~lazy.grounded.reached
        lazy_ops = {_op_key(lazy, op) for op in lazy.operators}
        assert lazy_ops <= full_ops
        assert {k for k in full_ops if not k[1] & ~lazy.grounded.reached} <= lazy_ops
        assert Relaxation(len(lazy.atoms), lazy.operators).reachable(lazy.grounded.reached)[0] == lazy.grounded.reached
    rng = random.Random(seed)
    for name in _sample_actions(full, rng, 200):
        full.parse_action(name)
        lazy.parse_action(name)
    for a, name in enumerate(lazy.action_names):
        expected = sorted(_op_key(full, op) for op in full.ops_of_action[full.action_index[name]])
        assert sorted(_op_key(lazy, op) for op in lazy.ops_of_action[a]) == expected, name
    assert lazy.possible_actions() == full.possible_actions()


@pytest.mark.slow
@pytest.mark.parametrize("domain", sorted(_record_tasks()))
def test_record_tasks_ground_lazily_exactly(domain):
    for k, (d, p) in enumerate(_record_tasks()[domain]):
        lazy, full = load_task(d, p), load_task(d, p, ground_all=True)
        _assert_same_grounding(lazy, full, _states(full, k), k)


def _marked(names):
    """Suite tasks larger than small take minutes to ground in full: run with the slow tests."""
    return [
        pytest.param(n, marks=pytest.mark.slow) if n.startswith("suite:") and not n.endswith("/small") else n
        for n in names
    ]


@pytest.mark.parametrize("name", _marked(sorted(_other_tasks())))
def test_other_tasks_ground_lazily_exactly(name):
    d, p = _other_tasks()[name]
    lazy, full = load_task(d, p), load_task(d, p, ground_all=True)
    _assert_same_grounding(lazy, full, _states(full, 0), 0)


def _one_per_domain() -> dict[str, tuple[str, str]]:
    picked = {f"record:{n}": tasks[0] for n, tasks in _record_tasks().items()}
    picked.update(
        {n: t for n, t in _other_tasks().items() if n.startswith(("example:", "test:")) or n.endswith("/small")}
    )
    return picked


def _same_verdict(a, b, task, state) -> None:
    if a.answer is None or b.answer is None:
        return
    assert a.answer == b.answer
    assert (a.how == Proof.STATIC) == (b.how == Proof.STATIC)  # static-facts only from static facts
    for v in (a, b):
        if v.answer and v.witness:
            assert task.run(task.parse_plan(v.witness), task.close(state))[0] is None  # derived atoms evaluated


def _same_list(a, b) -> None:
    if a.complete and b.complete:
        assert a.names == b.names and a.total == b.total
        assert sorted(i.name for i in a.items if i.how == Proof.STATIC) == sorted(
            i.name for i in b.items if i.how == Proof.STATIC
        )


@pytest.mark.parametrize(
    "name",
    [n if n.startswith("example:") else pytest.param(n, marks=pytest.mark.slow) for n in sorted(_one_per_domain())],
)
def test_every_answer_is_the_same_as_with_every_action_grounded(name):
    """Every question kind (minutes per task: the bundled examples by default, the rest with -m slow).
    Three states per task; on a big task (over BIG_TASK_OPERATORS operators with everything grounded,
    where each list question may spend its whole budget) one state and a shorter budget, so that the
    test stays within minutes; answers left unknown are not compared either way."""
    d, p = _one_per_domain()[name]
    lazy, full = load_task(d, p), load_task(d, p, ground_all=True)
    rng = random.Random(1)
    states = _states(full, 1, walks=1, steps=6)
    big = len(full.operators) > BIG_TASK_OPERATORS
    budget = BIG_TASK_BUDGET if big else BUDGET
    for s in states[-1:] if big else states[:1] + states[-2:]:
        ql, qf = lazy.questions, full.questions
        state = full.names(s)
        assert ql.applicable(state) == qf.applicable(state)
        actions = _sample_actions(full, rng, 4)
        for a in qf.applicable(state)[:6] + actions:
            assert ql.progress(a, state) == qf.progress(a, state)
        assert ql.validate(actions, state) == qf.validate(actions, state)
        for atom in rng.sample(full.atom_names, min(3, len(full.atom_names))):
            _same_verdict(ql.is_reachable(atom, state, budget), qf.is_reachable(atom, state, budget), full, s)
            _same_verdict(ql.is_landmark(atom, state, budget), qf.is_landmark(atom, state, budget), full, s)
        for a in actions:
            _same_verdict(ql.is_action_reachable(a, state, budget), qf.is_action_reachable(a, state, budget), full, s)
        _same_list(ql.unreachable_atoms(state, budget), qf.unreachable_atoms(state, budget))
        _same_list(ql.unreachable_actions(state, budget), qf.unreachable_actions(state, budget))
        _same_list(ql.landmarks(state, budget), qf.landmarks(state, budget))
        rl, rf = ql.optimal_next(state, budget), qf.optimal_next(state, budget)
        if rl.known and rf.known:
            assert (rl.h_star, rl.optimal_actions) == (rf.h_star, rf.optimal_actions)
            values = {v.action: v.h_star_after for v in rf.actions if v.known}
            assert all(values.get(v.action, v.h_star_after) == v.h_star_after for v in rl.actions if v.known)


def test_a_state_outside_the_grounded_part_extends_it_and_the_engines():
    """Asking about a state with atoms no relaxed plan from init reaches grounds the operators it
    needs, and the engines built before see the change (answers as with everything grounded)."""
    d, p = _other_tasks()["suite:logistics/small"]
    lazy, full = load_task(d, p), load_task(d, p, ground_all=True)
    before = (lazy.grounded.generation, len(lazy.operators))
    engine = lazy.questions.engine
    needed = 0  # preconditions of operators the lazy task has not grounded
    for op in full.operators:
        needed |= op.pre
    outside = [i for i in range(len(lazy.atoms)) if not lazy.grounded.reached >> i & 1 and needed >> i & 1]
    assert outside and before[1] < len(full.operators)
    s = lazy.init | (1 << outside[0])
    state = lazy.names(s)
    assert lazy.questions.applicable(state) == full.questions.applicable(state)
    assert lazy.questions.engine is not engine and lazy.grounded.generation > before[0]
    _same_list(lazy.questions.unreachable_atoms(state, BUDGET), full.questions.unreachable_atoms(state, BUDGET))
    still_outside = [i for i in outside if not lazy.grounded.reached >> i & 1]
    if still_outside:  # an engine refuses a state nobody ensured, rather than answer from too few operators
        with pytest.raises(RuntimeError, match="ensure"):
            lazy.questions.engine.reach(lazy.init | (1 << still_outside[0]), lazy.goal, Budget(5, None))


def test_a_statically_impossible_action_is_static_and_an_unreached_one_is_relaxed():
    d, p = _other_tasks()["suite:logistics/small"]
    lazy = load_task(d, p)
    q = lazy.questions
    static = next(n for n in lazy.all_ground_actions() if n not in lazy.possible_set())
    assert q.is_action_reachable(static).how == Proof.STATIC
    unreached = next(n for n in lazy.possible_actions() if n not in lazy.action_index)
    v = q.is_action_reachable(unreached)
    assert v.answer is False and v.how == Proof.RELAXED


class _Countdown:
    """A budget that runs out after `n` checks (to stop the fixpoint in the middle of a wave)."""

    def __init__(self, n: int):
        self.n = n

    def check(self) -> None:
        self.n -= 1
        if self.n < 0:
            raise BudgetExceeded("test budget spent")


def test_an_interrupted_extension_resumes_to_the_same_grounding():
    d, p = _other_tasks()["suite:folding/small"]
    full = load_task(d, p, ground_all=True)
    lazy = load_task(d, p)
    s = _states(full, 3)[-1]
    for n in (0, 1, 2, 5):
        try:
            lazy.grounded.ensure(s, _Countdown(n))
        except BudgetExceeded:
            assert s & ~lazy.grounded.reached  # not claimed covered while the fixpoint is unfinished
    lazy.grounded.ensure(s)
    _assert_same_grounding(lazy, full, [s], 3)


def test_threads_extending_one_task_see_consistent_operators():
    d, p = _other_tasks()["suite:logistics/large"]
    full = load_task(d, p, ground_all=True)
    lazy = load_task(d, p)
    states = _states(full, 5, walks=4)
    errors = []

    def ask(s):
        try:
            assert lazy.questions.applicable(s) == full.questions.applicable(s)
            _same_list(
                lazy.questions.unreachable_atoms(s, BIG_TASK_BUDGET),
                full.questions.unreachable_atoms(s, BIG_TASK_BUDGET),
            )
        except Exception as e:  # reported below, with the state
            errors.append((s, e))

    threads = [threading.Thread(target=ask, args=(s,)) for s in states]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    _assert_same_grounding(lazy, full, states, 5)

"""Every bundled ACPBench Hard record: the stored answer agrees with what acptools computes.

The stored lists are evidence, not truth. Where they disagree with acptools, the test demands
a proof and re-checks it with a checker that shares no code with acptools, whatever the proof's
label: pyperplan's relaxed fixpoint (simulator.py), else Fast Downward on unified-planning's own
model of the question (planner_check.py):
  - reach: floor-tile-like records store [] although painted tiles make atoms provably
    unreachable (relaxed proofs, re-derived here by an independent relaxed fixpoint);
  - land: many "no" atoms (and records with an empty "yes") are true landmarks (a cut vertex a
    robot must cross, a block that must be held), proven by relaxation, h^2 or exhaustive search.
Witness plans are replayed by the independent simulator, never trusted. Reach and areach are
checked both ways: an atom or action acptools calls unreachable beyond the stored list is confirmed
too (all of them where the stored list is empty; otherwise every one the relaxation settles and the
first PLANNER_CALLS that need Fast Downward). With -m slow, every unreachable and landmark verdict (stored ones included) is confirmed and
every reachable atom and action gets a replayed witness.
"""

from __future__ import annotations

import re

import pytest

from acptools import Budget, load_task
from acptools.dataset import domain_name, task_of
from acptools.verdict import Proof
from tests.support.data import SPLITS, records
from tests.support.planner_check import solvable
from tests.support.simulator import goal_reached, relaxed_reachable, strips_task, trajectory

PROOFS = {Proof.STATIC, Proof.RELAXED, Proof.H2, Proof.EXHAUSTIVE}
DEFAULT_EVERY = {"nexta": 4}  # the rest of nexta runs with -m slow


def _records(task: str):
    return [r for split in SPLITS for r in records(split, task)]


def _params(task: str):
    recs = _records(task)
    every = DEFAULT_EVERY.get(task, 1)
    return [
        pytest.param(r, id=f"{domain_name(r)}-{r['id']}", marks=() if i % every == 0 else pytest.mark.slow)
        for i, r in enumerate(recs)
    ]


INDEPENDENT_EVERY = 10  # -m slow confirms every 10th record's whole lists; -m exhaustive all of them (hours)


def _independent_params(task: str):
    """Records for the whole-list confirmations: every INDEPENDENT_EVERY-th with -m slow, the rest with
    -m exhaustive (each verdict re-proven outside acptools: minutes per record on the larger domains)."""
    return [
        pytest.param(
            r,
            id=f"{domain_name(r)}-{r['id']}",
            marks=pytest.mark.slow if i % INDEPENDENT_EVERY == 0 else pytest.mark.exhaustive,
        )
        for i, r in enumerate(_records(task))
    ]


def _task(r):
    return load_task(r["PDDL_domain"], r["PDDL_problem"])


def _quoted(question: str) -> str:
    return re.search(r'"([^"]*\([^"]*)"', question).group(1)


def _replays_to_goal(r, plan) -> list:
    states = trajectory(r["PDDL_domain"], r["PDDL_problem"], plan)
    assert states is not None, f"witness {plan} is not executable"
    assert goal_reached(r["PDDL_domain"], r["PDDL_problem"], states[-1]), "witness does not reach the goal"
    return states


@pytest.mark.parametrize("r", _params("app"))
def test_app(r):
    assert task_of(r) == "app"
    assert _task(r).questions.applicable() == sorted(a.lower() for a in r["answer"])


@pytest.mark.parametrize("r", _params("prog"))
def test_prog(r):
    q = _task(r).questions
    pos, neg = {a.lower() for a in r["answer"]["pos"]}, {a.lower() for a in r["answer"]["neg"]}
    effects = [(set(p.positive_effects), set(p.negative_effects)) for p in map(q.progress, q.applicable())]
    assert (pos, neg) in effects


@pytest.mark.parametrize("r", _params("val"))
def test_val(r):
    plan = re.findall(r"\([^()]*\)", _quoted(r["question"]))
    v = _task(r).questions.validate(plan)
    k = int(r["answer"])
    assert v.first_inapplicable == k
    # pyperplan: the first k actions apply, and the reported preconditions are exactly those of
    # action k that fail in the state they reach
    states = trajectory(r["PDDL_domain"], r["PDDL_problem"], plan[:k])
    assert states is not None and trajectory(r["PDDL_domain"], r["PDDL_problem"], plan[: k + 1]) is None
    op = strips_task(r["PDDL_domain"], r["PDDL_problem"])[1][" ".join(plan[k].lower().split())]
    missing = {p.lower() for p in op.preconditions} - states[-1]
    assert missing and set(v.unsatisfied_preconditions) == missing


@pytest.mark.parametrize("r", _params("just"))
def test_just(r):
    q = _task(r).questions
    plan = [a.lower() for a in re.findall(r"\([^()]*\)", _quoted(r["question"]))]
    found = {tuple(rm.plan) for rm in q.simplify(plan)}
    for removal in r["answer"]:
        *acts, k = removal
        acts = [a.lower() for a in acts]
        candidates = []
        for i in range(len(plan) - len(acts) + 1):
            if plan[i : i + len(acts)] == acts:
                candidates.append(plan[:i] + plan[i + len(acts) :])
        if k != "-1":  # remove the k-th occurrence (1-based) of a single action
            candidates = [candidates[int(k) - 1]]
        assert any(tuple(c) in found for c in candidates), removal
        for c in candidates:
            if tuple(c) in found:
                _replays_to_goal(r, c)


PLANNER_CALLS = 3  # per record in the default run: Fast Downward confirms this many; -m slow: all


def _confirm_unreachable(r, atoms, limit: int | None = None) -> None:
    """Each atom provably never holds, shown without acptools: outside pyperplan's relaxed fixpoint, or
    (when the relaxation cannot tell) Fast Downward proves the goal of reaching it unsolvable (the first
    `limit` of those; None: all)."""
    relaxed = relaxed_reachable(r["PDDL_domain"], r["PDDL_problem"])
    hard = [atom for atom in atoms if atom in relaxed]
    for atom in hard[:limit]:
        assert not solvable(r["PDDL_domain"], r["PDDL_problem"], goal=(atom,)), f"{atom} is reachable"


def _confirm_landmark(r, atom: str) -> None:
    """The goal cannot be reached without `atom` holding on the way, shown without acptools: pyperplan's
    relaxed fixpoint that never adds it misses the goal, or Fast Downward proves unsolvable the problem
    whose states never hold it."""
    if set(task_goal(r)) <= relaxed_reachable(r["PDDL_domain"], r["PDDL_problem"], banned=atom):
        assert not solvable(r["PDDL_domain"], r["PDDL_problem"], avoid=atom), f"{atom} is not a landmark"


@pytest.mark.parametrize("r", _params("reach"))
def test_reach(r):
    """Both directions: every stored atom is proven unreachable; every atom acptools calls
    unreachable beyond the stored ones (a data error, or acptools being wrong) is confirmed by an
    independent checker; reachable atoms have witnesses pyperplan replays."""
    task = _task(r)
    res = task.questions.unreachable_atoms()
    assert res.complete and all(item.how in PROOFS for item in res.items)
    stored = {task.atom_names[task.parse_atom(atom)] for atom in r["answer"]}
    assert stored <= set(res.names)
    _confirm_unreachable(r, sorted(set(res.names) - stored), None if not stored else PLANNER_CALLS)
    init = set(task.names(task.init))
    for name in sorted(set(task.atom_names) - set(res.names) - init)[:3]:
        _check_reachable(r, task, name)


def _check_reachable(r, task, name: str) -> None:
    v = task.questions.is_reachable(name)
    assert v.answer is True
    assert any(name in s for s in trajectory(r["PDDL_domain"], r["PDDL_problem"], v.witness))


@pytest.mark.parametrize("r", _independent_params("reach"))
def test_reach_lists_independently(r):
    """Every atom acptools calls unreachable (stored ones too) confirmed without acptools, and every
    other atom reached by a witness pyperplan replays."""
    task = _task(r)
    res = task.questions.unreachable_atoms()
    _confirm_unreachable(r, res.names)
    for name in sorted(set(task.atom_names) - set(res.names) - set(task.names(task.init))):
        _check_reachable(r, task, name)


def _confirm_unreachable_actions(r, actions, limit: int | None = None) -> None:
    """Each action never applies: its preconditions (pyperplan's grounding) are not jointly reachable,
    by pyperplan's relaxed fixpoint or Fast Downward (the first `limit` that need it; None: all)."""
    relaxed = relaxed_reachable(r["PDDL_domain"], r["PDDL_problem"])
    ops = strips_task(r["PDDL_domain"], r["PDDL_problem"])[1]
    hard = []
    for action in actions:
        op = ops.get(" ".join(action.lower().split()))
        if op is None:  # pyperplan grounds no operator whose static preconditions fail in the init
            continue
        pre = tuple(sorted(p.lower() for p in op.preconditions))
        if set(pre) <= relaxed:
            hard.append((action, pre))
    for action, pre in hard[:limit]:
        assert not solvable(r["PDDL_domain"], r["PDDL_problem"], goal=pre), f"{action} can apply"


@pytest.mark.parametrize("r", _params("areach"))
def test_areach(r):
    task = _task(r)
    res = task.questions.unreachable_actions(budget=Budget(None, cpu=60.0))  # effort, so load cannot cut it short
    assert res.complete
    stored = set()
    for action in r["answer"]:
        name = task.action_names[task.parse_action(action)]
        stored.add(name)
        assert name in res.names, action
        assert task.questions.is_action_reachable(name).answer is False
    if not r["answer"]:
        assert not res.items
    _confirm_unreachable_actions(r, sorted(set(res.names) - stored), PLANNER_CALLS)


@pytest.mark.parametrize("r", _independent_params("areach"))
def test_areach_lists_independently(r):
    """Every action acptools calls never applicable confirmed without acptools, and every other
    action applies at the end of a witness pyperplan replays."""
    task = _task(r)
    res = task.questions.unreachable_actions()
    _confirm_unreachable_actions(r, res.names)
    for name in sorted(set(task.action_names) - set(res.names)):
        v = task.questions.is_action_reachable(name)
        assert v.answer is True
        states = trajectory(r["PDDL_domain"], r["PDDL_problem"], v.witness)
        assert trajectory(r["PDDL_domain"], r["PDDL_problem"], [name], states[-1]) is not None, name


def task_goal(r):
    return [g.lower() for g in re.findall(r"\([^()]*\)", r["PDDL_problem"][r["PDDL_problem"].index(":goal") :])]


@pytest.mark.parametrize("r", _params("land"))
def test_land(r):
    """Stored landmarks proven; a stored non-landmark is refuted by a witness pyperplan replays, or is
    a data error whose landmark proof is confirmed without acptools (pyperplan's relaxation or Fast
    Downward)."""
    task = _task(r)
    q = task.questions
    for atom in r["answer"]["yes"]:
        v = q.is_landmark(atom)
        assert v.answer is True and not v.extra["trivial"] and v.how in PROOFS, atom
    for atom in r["answer"]["no"]:
        v = q.is_landmark(atom)
        name = task.atom_names[task.parse_atom(atom)]
        if v.answer is False:
            states = _replays_to_goal(r, v.witness)
            assert all(name not in s for s in states)
        else:  # documented data error: a stored non-landmark that is provably a landmark
            assert v.answer is True and not v.extra["trivial"] and v.how in PROOFS
            _confirm_landmark(r, name)
    lm = q.landmarks()
    assert lm.complete
    assert {task.atom_names[task.parse_atom(a)] for a in r["answer"]["yes"]} <= set(lm.names)


@pytest.mark.parametrize("r", _independent_params("land"))
def test_landmarks_independently(r):
    """Every landmark acptools finds (the stored ones included) confirmed without acptools."""
    task = _task(r)
    for name in task.questions.landmarks().names:
        _confirm_landmark(r, name)


@pytest.mark.parametrize("r", _params("nexta"))
def test_nexta(r):
    task = _task(r)
    rep = task.questions.optimal_next()
    assert rep.known
    assert rep.h_star == int(r["answer"]["opt"])
    optimal = set(rep.optimal_actions)
    assert {a.lower() for a in r["answer"]["yes"]} <= optimal
    assert not {a.lower() for a in r["answer"]["no"]} & optimal
    assert len(_replays_to_goal(r, rep.plan)) == rep.h_star + 1
    assert rep.plan[0] in optimal

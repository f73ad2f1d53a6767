"""land: fact landmarks of a state, decided on the compiled task of the ACPBench Hard paper.

p is a landmark of s iff every plan from s makes p true at some point iff the goal is unreachable
from s when no action may add p. So a proof of goal-unreachability in that compiled task proves p,
and a plan of the compiled task (which never makes p true) refutes it.
"""

from __future__ import annotations

import weakref

from ..budget import Budget
from ..engine.landmark_graph import fact_landmarks
from ..engine.reachability import Engine
from ..errors import BudgetExceeded
from ..ground.grounded import GroundedTask, bits
from ..planners import fd
from ..verdict import Proof, Verdict
from .results import Item, ItemList
from .rounds import decide_in_rounds


def trivial_reason(engine: Engine, atom: int, state: int) -> str:
    """Why an atom is a trivial landmark (it holds in the state, or it is part of the goal), or ''."""
    if state >> atom & 1:
        return "it holds in the state"
    if engine.task.goal_atoms >> atom & 1:
        return "it is part of the goal"
    return ""


def is_landmark(engine: Engine, atom: int, state: int, budget: Budget) -> Verdict:
    """Verdict for a non-trivial landmark; trivial ones answer True with how='trivial'."""
    reason = trivial_reason(engine, atom, state)
    if reason:
        return Verdict(True, Proof.TRIVIAL, detail=reason, extra={"trivial": True})
    try:
        cheap = cheap_landmarks(engine, state, budget)
    except BudgetExceeded as e:
        return Verdict(None, Proof.UNKNOWN, detail=str(e), extra={"trivial": False})
    if cheap is None:
        return Verdict(
            True, Proof.RELAXED, None, "the goal cannot be reached even ignoring deletes", {"trivial": False}
        )
    for mask, how in zip(cheap, (Proof.RELAXED, Proof.FIRST_ACHIEVERS), strict=True):
        if mask >> atom & 1:
            return Verdict(True, how, None, "the goal cannot be reached without it", {"trivial": False})
    plan = engine.some_plan(state, budget)
    if plan is not None and not _trajectory_atoms(engine, state, plan) >> atom & 1:
        return Verdict(
            False,
            Proof.WITNESS,
            engine.task.action_list(plan),
            "a plan reaches the goal without it",
            {"trivial": False},
            plan_ids=plan,
        )
    v = engine.reach(state, engine.task.goal, budget, banned_add=1 << atom)
    if v.answer is None:
        return Verdict(None, Proof.UNKNOWN, detail=v.detail, extra={"trivial": False})
    if v.answer:  # a plan that never makes the atom true
        return Verdict(False, v.how, v.witness, "a plan reaches the goal without it", {"trivial": False})
    return Verdict(True, v.how, None, "the goal cannot be reached without it", {"trivial": False})


def _trajectory_atoms(engine: Engine, state: int, plan: list[int]) -> int:
    return _trajectory_atoms_of(engine.task, state, plan)


def _trajectory_atoms_of(task: GroundedTask, state: int, plan: list[int]) -> int:
    """Every atom true at some point while `plan` runs from `state`."""
    seen = state
    for a in plan:
        op = task.op_for(a, state)
        assert op is not None, "a witness plan's step applies"
        state = task.apply_op(op, state)
        seen |= state
    return seen


CHEAP_SHARE = 0.25  # the cheap landmark proofs may use this share of what is left
FAST_PLAN_SHARE = 0.3  # the fast witness search for a first plan may use this share of what is left,
FIRST_PLAN_SHARE = 0.7  # then the engine's complete search this share of the rest


def cheap_landmarks(engine: Engine, state: int, budget: Budget) -> tuple[int, int] | None:
    """Landmarks proven without search (see engine/landmark_graph.py): the masks (delete-relaxation
    landmarks, first-achiever landmarks); None when the goal is relaxed-unreachable; (0, 0) when
    not even the label propagation finished in the budget's share."""
    memo = _CHEAP.setdefault(engine, {})
    if state in memo:
        return memo[state]
    left = budget.left()
    share = budget.child(None if left is None else CHEAP_SHARE * left)
    try:
        found = fact_landmarks(engine.relax, state, engine.task.goal, share, closure=not engine.task.axioms)
    except BudgetExceeded:
        budget.check()
        return 0, 0
    if found is None or found[2]:  # the closure finished: keep it for this state
        if len(memo) >= 64:
            memo.pop(next(iter(memo)))
        memo[state] = found and found[:2]
    return found and found[:2]


_CHEAP: weakref.WeakKeyDictionary[Engine, dict] = weakref.WeakKeyDictionary()


def landmarks(engine: Engine, state: int, budget: Budget) -> ItemList:
    """All non-trivial fact landmarks of the state. When the budget runs out the list is partial:
    the landmarks proven so far, the candidates refuted by plans that avoid them, the rest undecided.

    Order: the goal's relaxed reachability (no relaxed plan: every atom is vacuously a landmark), a
    first plan (it refutes every candidate it never makes true), the cheap landmark proofs
    (relaxation and first achievers, see engine/landmark_graph.py), then a search per candidate."""
    task = engine.task
    candidates = task.shown_mask & ((1 << len(task.atoms)) - 1) & ~state & ~task.goal_atoms
    try:
        reached, _ = engine.relax.reachable(state, budget)
    except BudgetExceeded as e:
        return ItemList([], False, 0, task.names(candidates), str(e))
    if not any(p & reached == p for p, _ in task.goal):
        return _vacuous(task, candidates, Proof.RELAXED)
    first = first_plan(engine, state, budget) if candidates else Verdict(True, Proof.WITNESS, [], plan_ids=[])
    if first.answer is False:
        return _vacuous(task, candidates, first.how)
    refuted: list[Item] = []
    todo = candidates if first.answer is None else _refute(task, candidates, state, _ids(first), refuted)
    try:
        cheap = cheap_landmarks(engine, state, budget) if todo else (0, 0)
    except BudgetExceeded:
        cheap = (0, 0)
    relaxed, closure = cheap or (0, 0)
    found = [Item(task.atom_names[a], Proof.RELAXED) for a in bits(todo & relaxed)]
    found += [Item(task.atom_names[a], Proof.FIRST_ACHIEVERS) for a in bits(todo & closure & ~relaxed)]
    todo &= ~relaxed & ~closure
    if first.answer is None:
        return _partial(task, found, refuted, todo, "no plan found within the budget")
    open_atoms = [todo]

    def decide(atom: int, share: Budget) -> bool:
        if not open_atoms[0] >> atom & 1:
            return True
        v = engine.reach(state, task.goal, share, banned_add=1 << atom)
        if v.answer is None:
            return False
        if v.answer:
            open_atoms[0] = _refute(task, open_atoms[0], state, _ids(v), refuted)
        else:
            open_atoms[0] &= ~(1 << atom)
            found.append(Item(task.atom_names[atom], v.how))
        return True

    unknown = decide_in_rounds(list(bits(open_atoms[0])), decide, budget)
    return _partial(task, found, refuted, sum(1 << a for a in unknown), "")


def _vacuous(task: GroundedTask, candidates: int, how: str) -> ItemList:
    names = task.names(candidates)
    return ItemList(
        [Item(n, how) for n in names],
        True,
        len(names),
        [],
        "the goal is unreachable, so every atom is (vacuously) a landmark",
    )


def first_plan(engine: Engine, state: int, budget: Budget) -> Verdict:
    """A plan from the state (it refutes every candidate it never makes true): Fast Downward's lazy
    greedy search with preferred operators on a share of the budget (a witness is all that is needed
    here, and it finds one far sooner on large tasks), then the engine's complete search."""
    task = engine.task
    left = budget.left()
    if task.numeric is not None:  # Fast Downward would read the atoms alone
        return engine.reach(state, task.goal, budget.child(None if left is None else FIRST_PLAN_SHARE * left))
    # a wall-clock share: a CPU slice would not bound the subprocess
    res = fd.solve(
        len(task.atoms),
        engine.operators,
        state,
        task.goal,
        Budget(None if left is None else FAST_PLAN_SHARE * left, None, parent=budget),
        optimal=False,
        greedy=fd.FAST_SATISFICING,
        axioms=task.axioms,
        cache=fd.sas_cache(task),
    )
    if res.plan is not None:
        return engine.witness([engine.operators[i].action for i in res.plan])
    if res.proven_none:
        return Verdict(False, Proof.EXHAUSTIVE)
    left = budget.left()
    return engine.reach(state, task.goal, budget.child(None if left is None else FIRST_PLAN_SHARE * left))


def _ids(witness: Verdict) -> list[int]:
    """The action ids of a 'yes' verdict's witness plan (a witness always carries them)."""
    assert witness.plan_ids is not None, "a witness without its action ids"
    return witness.plan_ids


def _refute(task: GroundedTask, todo: int, state: int, plan: list[int], refuted: list[Item]) -> int:
    """Mark the candidates of `todo` that `plan` never makes true as refuted (with the plan as
    witness); returns the candidates still open."""
    avoided = todo & ~_trajectory_atoms_of(task, state, plan)
    if avoided:
        witness = task.action_list(plan)
        refuted.extend(Item(task.atom_names[a], Proof.AVOIDED, witness) for a in bits(avoided))
    return todo & ~avoided


def _partial(task: GroundedTask, found: list[Item], refuted: list[Item], undecided: int, detail: str) -> ItemList:
    found.sort(key=lambda it: it.name)
    refuted.sort(key=lambda it: it.name)
    unknown = task.names(undecided)
    return ItemList(found, not unknown, len(found), unknown, detail, refuted)

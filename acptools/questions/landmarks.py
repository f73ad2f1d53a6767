"""land: fact landmarks of a state, decided on the compiled task of the ACPBench Hard paper.

p is a landmark of s iff every plan from s makes p true at some point iff the goal is unreachable
from s when no action may add p. So a proof of goal-unreachability in that compiled task proves p,
and a plan of the compiled task (which never makes p true) refutes it.
"""

from __future__ import annotations

from ..budget import Budget
from ..engine.reachability import Engine
from ..errors import BudgetExceeded
from ..ground.grounded import bits
from ..verdict import RELAXED, TRIVIAL, UNKNOWN, WITNESS, Verdict
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
        return Verdict(True, TRIVIAL, detail=reason, extra={"trivial": True})
    plan = engine.some_plan(state, budget)
    if plan is not None and not _trajectory_atoms(engine, state, plan) >> atom & 1:
        return Verdict(False, WITNESS, engine.task.action_list(plan), "a plan reaches the goal without it",
                       {"trivial": False}, plan_ids=plan)
    v = engine.reach(state, engine.task.goal, budget, banned_add=1 << atom)
    if v.answer is None:
        return Verdict(None, UNKNOWN, detail=v.detail, extra={"trivial": False})
    if v.answer:  # a plan that never makes the atom true
        return Verdict(False, v.how, v.witness, "a plan reaches the goal without it", {"trivial": False})
    return Verdict(True, v.how, None, "the goal cannot be reached without it", {"trivial": False})


def _trajectory_atoms(engine: Engine, state: int, plan: list[int]) -> int:
    task = engine.task
    seen = state
    for a in plan:
        state = task.apply_op(task.op_for(a, state), state)
        seen |= state
    return seen


def landmarks(engine: Engine, state: int, budget: Budget) -> ItemList:
    """All non-trivial fact landmarks of the state (complete unless the budget ran out)."""
    task = engine.task
    candidates = ((1 << len(task.atoms)) - 1) & ~state & ~task.goal_atoms
    plan = engine.some_plan(state, budget)
    if plan is None:
        first = engine.reach(state, task.goal, budget)
        if first.answer is None:
            return ItemList([], False, 0, task.names(candidates), "no plan found within the budget")
        names = task.names(candidates)
        return ItemList([Item(n, first.how) for n in names], True, len(names), [],
                        "the goal is unreachable, so every atom is (vacuously) a landmark")
    # atoms that a plan never makes true are refuted by that plan; relaxed landmarks are proven
    # all at once; the rest need a search each
    todo = candidates & _trajectory_atoms(engine, state, plan)
    try:
        relaxed = engine.relax.landmarks(state, task.goal, budget) or 0
    except BudgetExceeded:
        relaxed = 0
    found: list[Item] = [Item(task.atom_names[a], RELAXED) for a in bits(todo & relaxed)]
    todo &= ~relaxed
    open_atoms = [todo]  # a plan that avoids one candidate refutes every candidate it never makes true

    def decide(atom: int, share: Budget) -> bool:
        if not open_atoms[0] >> atom & 1:
            return True
        v = engine.reach(state, task.goal, share, banned_add=1 << atom)
        if v.answer is None:
            return False
        if v.answer:
            open_atoms[0] &= _trajectory_atoms(engine, state, v.plan_ids)
        else:
            found.append(Item(task.atom_names[atom], v.how))
        return True

    unknown = [task.atom_names[a] for a in decide_in_rounds(list(bits(todo)), decide, budget)]
    found.sort(key=lambda it: it.name)
    return ItemList(found, not unknown, len(found), unknown)

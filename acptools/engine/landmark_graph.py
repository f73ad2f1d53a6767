"""Fact landmarks from the delete relaxation, closed under the first-achiever rules (in the spirit of
Richter, Helmert and Westphal's landmark graphs): cheap, sound proofs that shrink the candidates a
landmark question must search for one by one.

Zhu and Givan's label propagation (`Relaxation.landmarks`) gives the atoms every relaxed plan needs.
Then for each landmark p that does not hold in the state: some action makes p true for the first
time, and everything true before it was reached without ever adding p, so that action is one of p's
*first achievers* (relaxed entries adding p whose preconditions are relaxed-reachable while every
entry adding p is left out). Whatever all first achievers need (their preconditions) and whatever
they all make true (their adds: an add always wins over a delete) is a landmark too. New landmarks
feed the same rule until nothing new appears.
"""

from __future__ import annotations

from ..errors import BudgetExceeded
from ..ground.grounded import bits
from .relaxed import Relaxation


def _entry_guarantees(relax: Relaxation) -> list[int]:
    """Per relaxed entry: the atoms it surely makes true (a conditional entry also brings its
    operator's unconditional adds)."""
    sure = list(relax.add_masks)
    starts = relax.entry_of_op + [len(sure)]
    for k in range(len(relax.entry_of_op)):
        own = sure[starts[k]]
        for e in range(starts[k] + 1, starts[k + 1]):
            sure[e] |= own
    return sure


def fact_landmarks(
    relax: Relaxation, state: int, goal: list[tuple[int, int]], budget=None, closure: bool = True
) -> tuple[int, int, bool] | None:
    """Atoms every plan from `state` to `goal` makes true at some point, as two masks (including
    atoms of the state and the goal): the relaxed landmarks, those only the first-achiever closure
    proves, and whether the closure finished; None when the goal is relaxed-unreachable (no plan at
    all). When the budget runs out during the closure, the landmarks proven so far are returned
    (each step is a proof on its own); BudgetExceeded only when not even the label propagation
    finished. `closure=False` (tasks with axioms, where a derived atom becomes true without any
    achiever acting): the relaxed landmarks only."""
    relaxed = relax.landmarks(state, goal, budget)
    if relaxed is None:
        return None
    if not closure:
        return relaxed, 0, True
    found = relaxed
    sure = _entry_guarantees(relax)
    producers: dict[int, list[int]] = {}
    for e in range(len(relax.add_masks)):
        for a in relax.adds[e]:
            producers.setdefault(a, []).append(e)
    pre_masks = [sum(1 << x for x in pres) for pres in relax.pres]
    every = (1 << relax.num_atoms) - 1
    todo = list(bits(found & ~state))
    done = state
    try:
        while todo:
            p = todo.pop()
            if done >> p & 1:
                continue
            done |= 1 << p
            reached, _ = relax.reachable(state, budget, banned=1 << p)
            if not any(g & reached == g for g, _ in goal):
                relaxed |= 1 << p  # the relaxation alone proves it (the goal needs p even ignoring deletes)
            common = every
            for e in producers.get(p, ()):
                pre = pre_masks[e]
                if pre & reached == pre:  # a first achiever of p
                    common &= pre | sure[e]
            if common == every:
                continue  # no first achiever (cannot happen for a relaxed landmark): nothing to add
            new = common & ~found
            found |= new
            todo.extend(bits(new & ~done & ~state))
    except BudgetExceeded:
        return relaxed, found & ~relaxed, False
    return relaxed, found & ~relaxed, True

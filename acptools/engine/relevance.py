"""Backward relevance: operators that can matter for reaching the goal.

An operator is relevant when it makes a needed literal true: adds an atom the goal or a relevant
operator needs true, or deletes one they need false. Removing every irrelevant operator from a
plan leaves a plan (needed atoms only change in the helpful direction less often), so h* and the
optimal first actions are unchanged, and searches over the rest are faster. With conditional
effects an irrelevant effect could fire differently after such a removal, so those tasks keep
every operator.
"""

from __future__ import annotations

from ..ground.grounding import Operator


def relevant_operators(operators: list[Operator], goal: list[tuple[int, int]]) -> list[int]:
    """Indices of the operators that can appear in an optimal plan (all of them with conditional effects)."""
    if any(op.conds for op in operators):
        return list(range(len(operators)))
    need_true = need_false = 0
    for p, n in goal:
        need_true |= p
        need_false |= n
    relevant = [False] * len(operators)
    changed = True
    while changed:
        changed = False
        for i, op in enumerate(operators):
            if not relevant[i] and (op.add & need_true or op.dele & ~op.add & need_false):
                relevant[i] = True
                changed = True
                need_true |= op.pre
                need_false |= op.neg
    return [i for i, r in enumerate(relevant) if r]

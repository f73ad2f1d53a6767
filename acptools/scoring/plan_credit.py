"""Partial credit for a model-written plan, beside its 0/1 score: how far the plan got before it
broke, how close to the goal that left the model, and how far its actions are from an optimal plan.

* `valid_prefix`: the number of leading steps that apply in turn (it stops at the first name that is
  not a ground action of the task, or the first action whose preconditions fail).
* `h_star_after_prefix`: h* of the state the valid prefix reaches; `"dead-end"` when no plan leaves it.
* `goal_distance_closed`: h*(s0) - h*(after the prefix) (negative when the prefix moved away).
* `action_distance`: 1 - |A ∩ B| / |A ∪ B| over the multisets of actions of the answer (A) and an
  optimal plan (B): 0 when the answer is itself an optimal plan, else B is the record's stored plan
  once it is re-checked to be a plan of length h*(s0) (the engine's own optimal plan when it is not),
  so the value is an upper bound on the distance to the nearest optimal plan.

Every h*-based value is None when an h* is not known within the budget: never a guess.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..truth import truth_for

DEAD_END = "dead-end"


def multiset_distance(a, b) -> float:
    """1 - |A ∩ B| / |A ∪ B| over multisets (an action twice counts twice); two empty plans: 0."""
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return 0.0 if union == 0 else round(1 - sum((ca & cb).values()) / union, 6)


def valid_prefix(task, state: int, steps) -> tuple[int, int]:
    """(length, end state) of the longest prefix of `steps` (action ids, None for an unknown name)
    that applies in turn from `state`."""
    for k, a in enumerate(steps):
        op = None if a is None else task.op_for(a, state)
        if op is None:
            return k, state
        state = task.apply_op(op, state)
    return len(steps), state


def plan_credit(q, record: dict, texts: list[str], steps: list, h0, budget) -> dict:
    """The partial-credit metrics of an answered plan (see the module docstring). `texts`: the
    answer's actions as written, canonical where known; `steps`: their ids (None: not an action);
    `h0`: the HStar of the question's state."""
    task = q.task
    k, end = valid_prefix(task, q.state, steps)
    m: dict[str, Any] = {
        "valid_prefix": k,
        "h_star_after_prefix": None,
        "goal_distance_closed": None,
        "action_distance": None,
    }
    after = truth_for(task, end).h_star(budget) if end != q.state else h0
    if after.known:
        m["h_star_after_prefix"] = DEAD_END if after.cost is None else after.cost
        if h0.known and h0.cost is not None and after.cost is not None:
            m["goal_distance_closed"] = h0.cost - after.cost
    if h0.known and h0.cost is not None:
        is_optimal = k == len(steps) == h0.cost and task.is_goal(end)
        best = None if is_optimal else _optimal_plan(q, record, h0)
        if is_optimal or best is not None:
            m["action_distance"] = 0.0 if is_optimal else multiset_distance(texts, best)
    return m


def _optimal_plan(q, record: dict, h0) -> list[str] | None:
    """An optimal plan from the question's state, in canonical names: the record's stored plan when it
    is one (checked here, so a wrong stored plan is never used), else the engine's."""
    task = q.task
    answer = record.get("answer")
    stored = answer.get("plan") if isinstance(answer, dict) else None
    if isinstance(stored, list) and len(stored) == h0.cost:
        try:
            ids = [task.parse_action(a) for a in stored]
        except (ValueError, TypeError, AttributeError):
            ids = None
        if ids is not None and task.is_plan(ids, q.state):
            return task.action_list(ids)
    return None if h0.plan is None else task.action_list(h0.plan)

"""Chance for ACPBench Hard questions that any one of a set of items answers (reach: a proposition
that can never hold; areach: an action that can never become applicable; land: a non-trivial fact
landmark; nexta: an optimal next action): a uniform guess among the items the question allows is
right with the share of those items that are right. An answer that has to be written out whole
(app's list, prog's effects, a plan) has no such guess: its chance is 0.

    candidates("land", task, state)      # how many atoms the question allows
    share("land", task, state, 3)        # 3 right of them: what a uniform guess scores

The generator (acptools.generate.spread) and the audit use these same numbers.
"""

from __future__ import annotations

from ..budget import Budget
from ..errors import AcpError
from ..truth import truth_for

PICK_ONE = ("reach", "areach", "land", "nexta")


def candidates(kind: str, task, state: int) -> int:
    """How many items a question of `kind` allows: reach, any atom of the task (not a comparison); areach, any
    type-correct ground action; land, any atom that neither holds nor is a goal fact (the question
    asks for a non-trivial one); nexta, any applicable action."""
    facts = task.grounded.shown_mask & ((1 << len(task.atoms)) - 1)  # a numeric task's comparisons left out
    if kind == "reach":
        return bin(facts).count("1")
    if kind == "areach":
        return task.num_actions
    if kind == "land":
        return bin(facts & ~state & ~task.goal_atoms).count("1")
    if kind == "nexta":
        return len(task.applicable(state))
    raise ValueError(f"{kind} is not answered by any one of a set of items")


def share(kind: str, task, state: int, right: int) -> float:
    """The expected score of a uniform guess when `right` of the allowed items are right answers."""
    n = candidates(kind, task, state)
    return min(1.0, right / n) if n else 0.0


def right_count(kind: str, task, state: int, answer, budget: float) -> int:
    """How many items answer a record of `kind`: from the proofs for reach and areach (the stored
    list holds at most 50; its length when the proof does not finish within `budget` CPU seconds),
    from the stored answer for land and nexta (complete lists)."""
    if kind in ("land", "nexta"):
        return len(answer.get("yes", ())) if isinstance(answer, dict) else 0
    truth = truth_for(task, state)
    try:
        res = (truth.unreachable_atoms if kind == "reach" else truth.unreachable_actions)(Budget(None, cpu=budget))
    except AcpError:
        res = None
    if res is not None and res.complete:
        return res.total
    return len(answer) if isinstance(answer, list) else 0

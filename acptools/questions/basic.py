"""The questions that need no search: app, prog, val and just."""

from __future__ import annotations

from dataclasses import dataclass

from ..names import split_plan
from ..task import Task


@dataclass
class Progression:
    action: str
    applicable: bool
    state: list[str]                    # the next state (the same state when not applicable)
    positive_effects: list[str]         # t \ s
    negative_effects: list[str]         # s \ t
    unsatisfied_preconditions: list[str]


@dataclass
class Validation:
    first_inapplicable: int | None      # 0-based index, None when every action applies
    unsatisfied_preconditions: list[str]
    goal_reached: bool                  # only meaningful when every action applies
    unmet_goals: list[str]
    final_state: list[str]
    steps: int


@dataclass
class Removal:
    indices: tuple[int, ...]            # 0-based positions removed from the plan
    plan: list[str]


def applicable(task: Task, state: int) -> list[str]:
    return [task.action_names[a] for a in task.applicable(state)]


def progress(task: Task, action: int, state: int) -> Progression:
    name = task.action_names[action]
    op = task.op_for(action, state)
    if op is None:
        return Progression(name, False, task.state_atoms(state), [], [], task.unsatisfied(action, state).describe())
    nxt = task.apply_op(op, state)
    return Progression(name, True, task.state_atoms(nxt), task.names(nxt & ~state), task.names(state & ~nxt), [])


def parse_plan(task: Task, plan) -> list[int]:
    return [task.parse_action(a) for a in split_plan(plan)]


def run(task: Task, actions: list[int], state: int) -> tuple[int | None, int]:
    """Replay actions: (index of the first inapplicable one or None, the state reached before it)."""
    for i, a in enumerate(actions):
        op = task.op_for(a, state)
        if op is None:
            return i, state
        state = task.apply_op(op, state)
    return None, state


def unmet_goals(task: Task, state: int) -> list[str]:
    """Goal atoms of the closest goal disjunct that do not hold (as '(not x)' for negative ones)."""
    if task.is_goal(state) or not task.goal:
        return []
    p, n = min(task.goal, key=lambda d: bin(d[0] & ~state).count("1") + bin(d[1] & state).count("1"))
    return task.names(p & ~state) + [f"(not {a})" for a in task.names(n & state)]


def validate(task: Task, actions: list[int], state: int) -> Validation:
    bad, last = run(task, actions, state)
    unsat = task.unsatisfied(actions[bad], last).describe() if bad is not None else []
    goal = bad is None and task.is_goal(last)
    return Validation(bad, unsat, goal, unmet_goals(task, last) if bad is None else [],
                      task.state_atoms(last), len(actions) if bad is None else bad)


def is_plan(task: Task, actions: list[int], state: int) -> bool:
    bad, last = run(task, actions, state)
    return bad is None and task.is_goal(last)


def simplify(task: Task, actions: list[int], state: int) -> list[Removal]:
    """Every single action and every pair of consecutive actions whose removal leaves a plan.

    The states before each step are computed once, so each removal replays only the suffix."""
    prefix = [state]
    for a in actions:
        op = task.op_for(a, prefix[-1])
        if op is None:
            break
        prefix.append(task.apply_op(op, prefix[-1]))
    out = []
    n = len(actions)
    for width in (1, 2):
        for i in range(min(n - width + 1, len(prefix))):
            if is_plan(task, actions[i + width:], prefix[i]):
                rest = actions[:i] + actions[i + width:]
                out.append(Removal(tuple(range(i, i + width)), [task.action_names[a] for a in rest]))
    return out

"""Action sequences that questions quote: plans with something removable in them, and sequences
with an action that cannot be applied (for validation and executability questions)."""

from __future__ import annotations

from .base import DEAD_END, NOTHING, Item, Skip
from .states import random_walk, step

TRIES = 8  # insertion points tried for a redundant detour
CANDIDATES = 24  # actions tried at each point


def trajectory(task, start: int, actions) -> list[int]:
    """The states before each action and after the last (the sequence must apply)."""
    states = [start]
    for a in actions:
        states.append(step(task, states[-1], a))
    return states


def redundant_plan(item: Item) -> list[int]:
    """An optimal plan with a detour inserted that leaves it a plan: an action and the one that
    undoes it, or a single action the rest of the plan does not mind. Skip when none is found."""
    task, rng = item.task, item.rng
    plan = item.optimal_plan()
    states = trajectory(task, item.state, plan)
    points = list(range(len(plan) + 1))
    rng.shuffle(points)
    for i in points[:TRIES]:
        s = states[i]
        options = task.applicable(s)
        rng.shuffle(options)
        for x in options[:CANDIDATES]:
            t = step(task, s, x)
            undo = [y for y in task.applicable(t) if step(task, t, y) == s]
            if undo:
                return plan[:i] + [x, rng.choice(undo)] + plan[i:]
            if task.is_plan(plan[i:], t):
                return plan[:i] + [x] + plan[i:]
    raise Skip(NOTHING)


def inapplicable(item: Item, state: int, count: int = 1) -> list[int]:
    """`count` ground actions (with their static preconditions true) that cannot be applied in `state`,
    preferring schemas that something applicable shares."""
    task, rng = item.task, item.rng
    applicable = set(task.applicable(state))
    schemas = {task.action_names[a].split()[0] for a in applicable}
    pool = [a for a in task.possible_action_ids() if a not in applicable and task.ops_of_action[a]]
    near = [a for a in pool if task.action_names[a].split()[0] in schemas]
    chosen = rng.sample(near, min(count, len(near)))
    rest = [a for a in pool if a not in chosen]
    chosen += rng.sample(rest, min(count - len(chosen), len(rest)))
    if len(chosen) < count:
        raise Skip(NOTHING)
    return chosen


def some_sequence(item: Item, shortest: int = 2) -> list[int]:
    """An optimal plan, or (at a dead end, or when it is too short) a random walk of 3-8 steps."""
    try:
        plan = item.optimal_plan()
    except Skip as e:
        if e.reason != DEAD_END:
            raise
        plan = []
    if len(plan) >= shortest:
        return plan
    walk = random_walk(item.task, item.state, item.rng.randint(3, 8), item.rng)
    if len(walk) < shortest:
        raise Skip(NOTHING)
    return walk


def corrupted(item: Item, actions: list[int], at: int | None = None) -> tuple[list[int], int]:
    """`actions` (which apply in turn) with step `at` (seeded if None) replaced by an action that
    cannot be applied there; returns the sequence and the step."""
    if at is None:
        at = item.rng.randrange(len(actions))
    states = trajectory(item.task, item.state, actions[:at])
    return actions[:at] + inapplicable(item, states[at]) + actions[at + 1 :], at


def removal_code(plan: list[str], steps) -> list[str] | None:
    """An ACPBench Hard 'just' answer entry: ['(a)', 'k'] drops the k-th (1-based) occurrence of (a);
    ['(a)', '(b)', '-1'] drops the first consecutive pair (a) (b), so it is None when the pair occurs
    earlier than at `steps` (the entry would name another removal)."""
    if len(steps) == 1:
        i = steps[0]
        return [plan[i], str(plan[: i + 1].count(plan[i]))]
    i = steps[0]
    first = next(j for j in range(len(plan) - 1) if plan[j] == plan[i] and plan[j + 1] == plan[i + 1])
    return [plan[i], plan[i + 1], "-1"] if first == i else None

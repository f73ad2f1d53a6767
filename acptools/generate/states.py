"""The states questions are asked in: random walks from the initial state and prefixes of optimal
plans, as ACPBench Hard draws them, deduplicated. Everything is seeded, so the same seed gives the
same states.

Optimal plans are followed one optimal action at a time (the set of all optimal next actions is
exact, whichever engine proved it), choosing among them with the seeded generator: the path does
not depend on which planner happened to answer first.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..budget import Budget
from ..task import Task
from ..util.shortrepr import bounded_repr


@dataclass(frozen=True)
class Difficulty:
    """The knob: random walks of `walk` = (shortest, longest) steps from the initial state, and the
    share of states taken from an optimal plan's prefixes instead (the farther from the goal the
    prefix ends, the longer the plans the questions ask about)."""

    walk: tuple[int, int] = (1, 20)
    plan_share: float = 0.5


@bounded_repr
@dataclass(frozen=True)
class Sampled:
    """A sampled state and how it was reached (a walk, or a prefix of an optimal plan)."""

    state: int
    origin: str  # 'init', 'walk:K' (K random steps) or 'plan:K' (K steps along an optimal plan)


def step(task: Task, state: int, action: int) -> int:
    """The state after an applicable action (by id)."""
    return task.apply_op(task.op_for(action, state), state)


def facts(task: Task, state: int) -> int:
    """The facts of a state or mask: its atoms without the values a numeric task packs above them and
    without the comparison atoms the values decide (the state itself on a propositional task)."""
    return state & task.grounded.shown_mask


def all_facts(task: Task) -> int:
    """Every fact of the task as a mask (comparison atoms left out: they are not questions' facts)."""
    return facts(task, (1 << len(task.atoms)) - 1)


def random_walk(task: Task, start: int, steps: int, rng: random.Random) -> list[int]:
    """Up to `steps` actions drawn uniformly among the applicable ones (fewer at a dead end)."""
    actions, s = [], start
    for _ in range(steps):
        options = task.applicable(s)  # sorted by name: the same choices for the same seed
        if not options:
            break
        a = rng.choice(options)
        actions.append(a)
        s = step(task, s, a)
    return actions


def replay(task: Task, start: int, actions) -> int:
    """The state reached by applying `actions` (ids, each applicable in turn) from `start`."""
    s = start
    for a in actions:
        s = step(task, s, a)
    return s


def optimal_path(task: Task, start: int, rng: random.Random, seconds: float, known=None) -> list[int] | None:
    """An optimal plan from `start` (action ids), each step drawn among all optimal next actions
    (under a cost metric, among those leading to a state the path has not visited);
    [] when the goal holds; None when the goal is unreachable or the budget (CPU seconds for the
    whole path) ran out. `known`: h*(start), when already proven. Each step after the first knows
    h* of its state (one less), so only the searches for the other optimal actions run."""
    opt = task.questions.optimizer
    budget = Budget(None, cpu=seconds)
    path, s = [], start
    known = known if known is not None and known.known else None
    quick_failed = float("inf")  # h* of a state where the quick in-process A* ran out: tried again at half that
    by_cost = task.grounded.metric == "cost"  # actions may cost 0: h* 0 is no goal, and a path may cycle
    seen = {start}
    while True:
        quick = known is None or known.cost <= quick_failed / 2
        res = opt.next_actions(s, budget, known=known, quick=quick)
        if res is None or res.cost is None:
            return None
        if res.cost == 0 and (not by_cost or task.is_goal(s)):
            return path
        if quick and not res.quick:
            quick_failed = res.cost
        options = sorted(res.optimal, key=task.action_names.__getitem__)
        if by_cost:  # some optimal path visits no state twice: a zero-cost cycle is never needed
            options = [a for a in options if step(task, s, a) not in seen]
            if not options:
                return None
        a = rng.choice(options)
        path.append(a)
        cost = opt.step_cost(a, s)
        s = step(task, s, a)
        seen.add(s)
        known = res.after(a, cost)


MAX_PLANS = 4  # optimal plans followed per task: from the initial state and from a few walk states


def sample_states(task: Task, count: int, rng: random.Random, difficulty: Difficulty, seconds: float) -> list[Sampled]:
    """Up to `count` distinct states: the initial state first, then walks and optimal-plan prefixes."""
    out = [Sampled(task.init, "init")]
    seen = {task.init}
    plans: list[tuple[int, list[int]]] = []
    plan_share = difficulty.plan_share if task.grounded.numeric is None else 0.0  # no optimal plans on numeric tasks
    for _ in range(20 * count):
        if len(out) >= count:
            break
        if rng.random() < plan_share:
            if not plans or (len(plans) < MAX_PLANS and rng.random() < 0.5):
                start = task.init if not plans else replay(task, task.init, _walk(task, difficulty, rng))
                plans.append((start, optimal_path(task, start, rng, seconds) or []))
            start, plan = plans[rng.randrange(len(plans))]
            if not plan:
                continue
            k = rng.randrange(len(plan))  # a proper prefix: the goal does not hold yet
            s, origin = replay(task, start, plan[:k]), f"plan:{k}"
        else:
            walk = _walk(task, difficulty, rng)
            s, origin = replay(task, task.init, walk), f"walk:{len(walk)}"
        if s not in seen and writable(task, s):
            seen.add(s)
            out.append(Sampled(s, origin))
    return out


def writable(task: Task, state: int) -> bool:
    """Can a record write the state as a PDDL problem: each value a finite decimal (PDDL's initial
    values are numbers; a value such as 1/3 has no exact one)?"""
    return task.grounded.numeric is None or all(v is None or _finite_decimal(v) for v in task.grounded.values(state))


def _finite_decimal(v) -> bool:
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _walk(task: Task, difficulty: Difficulty, rng: random.Random) -> list[int]:
    lo, hi = difficulty.walk
    return random_walk(task, task.init, rng.randint(lo, hi), rng)


def reachable_states(task: Task, limit: int) -> list[int] | None:
    """Every state reachable from the initial state (breadth-first), or None when there are more
    than `limit`: an exhaustive proof over them needs them all."""
    seen = {task.init}
    frontier = [task.init]
    while frontier:
        nxt = []
        for state in frontier:
            for op in task.applicable_ops(state):
                s = task.apply_op(op, state)
                if s not in seen:
                    if len(seen) >= limit:
                        return None
                    seen.add(s)
                    nxt.append(s)
        frontier = nxt
    return sorted(seen)

"""The questions that need no search: app, prog, val and just."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..budget import Budget
from ..ground.grounded import GroundedTask


@dataclass
class Progression:
    """What progress returns: applicable or not, the next state, the effects, unsatisfied preconditions."""

    action: str
    applicable: bool
    state: list[str]  # the next state (the same state when not applicable)
    positive_effects: list[str]  # t \ s
    negative_effects: list[str]  # s \ t
    unsatisfied_preconditions: list[str]
    goal_reached: bool = False  # the returned state satisfies the goal
    numeric_effects: list[str] = field(default_factory=list)  # "(f o): old -> new" per changed value


@dataclass
class Validation:
    """What validate returns: the first inapplicable action and why, whether the goal is reached."""

    first_inapplicable: int | None  # 0-based index, None when every action applies
    unsatisfied_preconditions: list[str]
    goal_reached: bool  # only meaningful when every action applies
    unmet_goals: list[str]
    final_state: list[str]
    steps: int


@dataclass(frozen=True)
class Removal:
    """Positions whose removal leaves a plan; the shortened plan is built only when asked for
    (every removal shares one copy of the original plan, so a long plan costs linear memory)."""

    indices: tuple[int, ...]  # 0-based positions removed from the plan
    original: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def plan(self) -> list[str]:
        """The plan without the removed actions."""
        gone = set(self.indices)
        return [a for i, a in enumerate(self.original) if i not in gone]


def applicable(task: GroundedTask, state: int) -> list[str]:
    """Names of the actions applicable in `state`."""
    return task.action_list(task.applicable(state))


def progress(task: GroundedTask, action: int, state: int) -> Progression:
    """Apply `action` in `state`: the effects, or why it is not applicable."""
    name = task.action_names[action]
    op = task.op_for(action, state)
    if op is None:
        return Progression(
            name, False, task.names(state), [], [], task.unsatisfied(action, state).describe(), task.is_goal(state)
        )
    nxt = task.apply_op(op, state)
    shown = task.shown_mask  # every bit of a propositional state; a numeric state's values are reported apart
    changed = [] if task.numeric is None else task.numeric.changes(task.values(state), task.values(nxt))
    return Progression(
        name,
        True,
        task.names(nxt),
        task.names(nxt & ~state & shown),
        task.names(state & ~nxt & shown),
        [],
        task.is_goal(nxt),
        changed,
    )


def unmet_goals(task: GroundedTask, state: int) -> list[str]:
    """Goal atoms of the closest goal disjunct that do not hold (as '(not x)' for negative ones)."""
    if task.is_goal(state) or not task.goal:
        return []
    p, n = min(task.goal, key=lambda d: bin(d[0] & ~state).count("1") + bin(d[1] & state).count("1"))
    return task.names(p & ~state) + [f"(not {a})" for a in task.names(n & state)]


def validate(task: GroundedTask, actions: list[int], state: int) -> Validation:
    """Replay a plan from `state`: the first inapplicable action (0-based) and the unmet goals."""
    bad, last = task.run(actions, state)
    unsat = task.unsatisfied(actions[bad], last).describe() if bad is not None else []
    goal = bad is None and task.is_goal(last)
    return Validation(
        bad,
        unsat,
        goal,
        unmet_goals(task, last) if bad is None else [],
        task.names(last),
        len(actions) if bad is None else bad,
    )


def simplify(task: GroundedTask, actions: list[int], state: int, budget: Budget | None = None) -> list[Removal]:
    """Every single action and every pair of consecutive actions whose removal leaves a plan.

    The states along the given actions are computed once. A removal replays the rest of the plan
    only until it meets the original trajectory again (same state at the same remaining action):
    from there on it does what the original does, so long plans cost about linear time. The budget
    is charged per replayed step."""
    along = [state]  # along[k]: the state before actions[k], up to the first inapplicable action
    for a in actions:
        op = task.op_for(a, along[-1])
        if op is None:
            break
        along.append(task.apply_op(op, along[-1]))
    n = len(actions)
    original_is_plan = len(along) == n + 1 and task.is_goal(along[n])
    out = []
    original = tuple(task.action_list(actions))
    for width in (1, 2):
        for i in range(min(n - width + 1, len(along))):
            steps, removable = _replay_until_rejoined(task, actions, along, i + width, along[i], original_is_plan)
            if budget is not None:
                budget.spend(steps)
            if removable:
                out.append(Removal(tuple(range(i, i + width)), original))
    return out


def _replay_until_rejoined(
    task: GroundedTask, actions: list[int], along: list[int], start: int, s: int, original_is_plan: bool
) -> tuple[int, bool]:
    """(steps replayed, whether actions[start:] from `s` reach the goal), stopping early where the
    replay meets the original trajectory."""
    steps = 0
    for k in range(start, len(actions)):
        if k < len(along) and s == along[k]:
            return steps + 1, original_is_plan
        op = task.op_for(actions[k], s)
        if op is None:
            return steps + 1, False
        s = task.apply_op(op, s)
        steps += 1
    return steps + 1, task.is_goal(s)

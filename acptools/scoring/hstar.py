"""h*(s) for nexta grading: the core's exact engines, scheduled for many states of one task.

Why not just `task.questions.h_star`: the core portfolio spends a fixed 0.25 s of in-process A*
before Fast Downward on every state and reaches SymK only after 15 s of other engines. Grading
needs h* of a state and of a few successors, often for states where A* is hopeless but Fast
Downward or SymK answer in well under a second. So this module runs the same engines (in-process
A* with h^max and object symmetries, Fast Downward A*/LM-cut, SymK bidirectional search)
round-robin with growing time slices, the engine that won on a task's last state first. Every answer is exact
(an optimal plan from an optimal engine, or a proof that none exists); when the budget runs out
the result is unknown. The in-process A* also returns the set of *all* optimal first actions,
which settles every nexta answer for that state without further search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .. import fd, symk
from ..errors import BudgetExceeded
from ..optimal import HStar
from ..search import Budget, optimal_first_actions, satisfies

DEFAULT_SECONDS = 60.0
# (engine, slice) rounds: each round gives every engine a longer slice than the previous one
# The first in-process try is capped by expansions too (the time is only checked every 256 of them,
# and an expansion costs about 1.5 us per ground operator): about 0.03 s on any task.
QUICK = ("astar", 0.03, "quick")
QUICK_WORK = 20_000  # expansions x ground operators
ROUNDS = ((QUICK, ("fd", 0.6, None), ("symk", 1.5, None), ("astar", 1.0, None)),
          (("fd", 4.0, None), ("astar", 4.0, None), ("symk", 6.0, None)))
LAST_ROUND_FACTOR = 2.0
# The engine that solved a task's last state is tried first on its next state (successors of a
# state are about as hard as the state): with 3x the time it needed, plus a little.
_winner: dict[str, tuple[str, float]] = {}
# Many interchangeable objects collapse the state space for the in-process A* (it searches orbits),
# which the outside planners do not exploit: then A* goes first, with a longer slice.
BIG_SYMMETRY = 16
BIG_SYMMETRY_SECONDS = 6.0
MAX_WINNERS = 512


@dataclass
class Optimum(HStar):
    """HStar plus, when the in-process search found it, the set of all optimal first actions."""

    first_actions: frozenset | None = field(default=None)


def _astar(task, state: int, budget: Budget) -> Optimum | None:
    q = task.questions
    eng, opt = q.engine, q.optimizer
    goal = task.goal
    try:
        r = optimal_first_actions(eng.gen, state, goal, lambda s: eng.relax.hmax(s, goal), budget,
                                  canon=opt.sym.canonical)
    except BudgetExceeded:
        return None
    if r.cost is None:
        return Optimum(None, None, "exhaustive-search", True, frozenset())
    return Optimum(r.cost, list(r.plan), "astar-hmax", True, frozenset(r.first_actions))


def _fd(task, state: int, budget: Budget) -> Optimum | None:
    res = fd.solve(len(task.atoms), task.operators, state, task.goal, budget.wall(), cancelled=budget.cancelled)
    if res.plan is not None:
        return Optimum(len(res.plan), [task.operators[i].action for i in res.plan], "fast-downward-lmcut")
    if res.proven_none:
        return Optimum(None, None, "fast-downward-lmcut")
    return None


def _symk(task, state: int, budget: Budget) -> Optimum | None:
    if budget.wall() <= 0.05 or not symk.available():
        return None
    res = symk.optimal_plan(task.domain_text, task.problem_for(state), budget.wall(), cancelled=budget.cancelled)
    if res.plan is not None:
        return Optimum(len(res.plan), [task.parse_action(a) for a in res.plan], "symk-bidirectional")
    if res.proven_none:
        return Optimum(None, None, "symk-bidirectional")
    return None


def as_budget(budget) -> Budget:
    """Seconds (None: DEFAULT_SECONDS) or a core Budget (its cancel event stops every engine)."""
    if isinstance(budget, Budget):
        return budget
    return Budget(DEFAULT_SECONDS if budget is None else float(budget), None)


ENGINES = {"astar": _astar, "fd": _fd, "symk": _symk}


def optimum(task, state: int, budget=None) -> Optimum:
    """Exact h*(state) with an optimal plan (action ids), or known=False when the budget ran out.
    budget: seconds (None: DEFAULT_SECONDS) or a core `Budget`, which can be cancelled."""
    if satisfies(state, task.goal):
        return Optimum(0, [], "holds-in-state", True, frozenset())
    budget = as_budget(budget)
    won = _winner.get(task.id)
    rounds = list(ROUNDS)
    if won is not None:
        rounds.insert(0, ((won[0], 3 * won[1] + 0.1, None),))
    elif max(map(len, task.questions.optimizer.sym.classes), default=0) >= BIG_SYMMETRY:
        rounds.insert(0, (("astar", BIG_SYMMETRY_SECONDS, None),))
    k = 0
    while budget.wall() > 0.01:
        if k < len(rounds):
            plan = rounds[k]
        else:  # later rounds: the last round's slices, doubled each time
            plan = tuple((e, s * LAST_ROUND_FACTOR ** (k - len(rounds) + 1), n) for e, s, n in rounds[-1])
        for engine, cap, states in plan:
            if budget.wall() <= 0.01:
                break
            if states == "quick":
                states = max(10, min(2000, QUICK_WORK // max(1, len(task.operators))))
            res = _timed(engine, task, state, budget.child(cap, states))
            if res is not None:
                return res
        k += 1
    return Optimum(None, None, "unknown", False)


def _remember(task, engine: str, seconds: float) -> None:
    if len(_winner) > MAX_WINNERS:
        _winner.clear()
    _winner[task.id] = (engine, seconds)


def _timed(engine: str, task, state: int, budget: Budget) -> Optimum | None:
    t0 = time.perf_counter()
    res = ENGINES[engine](task, state, budget)
    if res is not None:
        _remember(task, engine, time.perf_counter() - t0)
    return res

"""h*(s) for nexta grading: the core's exact engines, scheduled for many states of one task.

Why not just `task.questions.h_star`: the core portfolio spends a fixed 0.25 s of in-process A*
before Fast Downward on every state, and its SymK stage cannot start with the installed `up-symk`
wheel (it looks for `translate/translate.py`; the wheel ships the translator as a package, so it
must be run as `python -m translate`). Grading needs h* of a state and of a few successors, often
for states where A* is hopeless but Fast Downward or SymK answer in well under a second. So this
module runs the same engines (in-process A* with h^max and object symmetries, Fast Downward
A*/LM-cut, SymK bidirectional search) round-robin with growing time slices. Every answer is exact
(an optimal plan from an optimal engine, or a proof that none exists); when the budget runs out
the result is unknown. The in-process A* also returns the set of *all* optimal first actions,
which settles every nexta answer for that state without further search.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import fd, symk
from ..errors import BudgetExceeded
from ..optimal import HStar
from ..search import Budget, optimal_first_actions, satisfies

DEFAULT_SECONDS = 60.0
# (engine, slice) rounds: each round gives every engine a longer slice than the previous one
ROUNDS = ((("astar", 0.03), ("fd", 0.6), ("symk", 1.5), ("astar", 1.0)),
          (("fd", 4.0), ("astar", 4.0), ("symk", 6.0)))
LAST_ROUND_FACTOR = 2.0
# The engine that solved a task's last state is tried first on its next state (successors of a
# state are about as hard as the state): with 3x the time it needed, plus a little.
_winner: dict[str, tuple[str, float]] = {}
# Many interchangeable objects collapse the state space for the in-process A* (it searches orbits),
# which the outside planners do not exploit: then A* goes first, with a longer slice.
BIG_SYMMETRY = 16
BIG_SYMMETRY_SECONDS = 3.0
MAX_WINNERS = 512


@dataclass
class Optimum(HStar):
    """HStar plus, when the in-process search found it, the set of all optimal first actions."""

    first_actions: frozenset | None = field(default=None)


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.perf_counter())


def _astar(task, state: int, seconds: float) -> Optimum | None:
    q = task.questions
    eng, opt = q.engine, q.optimizer
    goal = task.goal
    try:
        r = optimal_first_actions(eng.gen, state, goal, lambda s: eng.relax.hmax(s, goal), Budget(seconds, None),
                                  canon=opt.sym.canonical)
    except BudgetExceeded:
        return None
    if r.cost is None:
        return Optimum(None, None, "exhaustive-search", True, frozenset())
    return Optimum(r.cost, list(r.plan), "astar-hmax", True, frozenset(r.first_actions))


def _fd(task, state: int, seconds: float) -> Optimum | None:
    res = fd.solve(len(task.atoms), task.operators, state, task.goal, seconds)
    if res.plan is not None:
        return Optimum(len(res.plan), [task.operators[i].action for i in res.plan], "fast-downward-lmcut")
    if res.proven_none:
        return Optimum(None, None, "fast-downward-lmcut")
    return None


def _symk_ready() -> Path | None:
    root = symk._root()
    if root is None:
        return None
    return root


def _symk(task, state: int, seconds: float) -> Optimum | None:
    root = _symk_ready()
    if root is None or seconds <= 0.05:
        return None
    if (root / "translate" / "translate.py").exists():  # the layout the core expects: use the core
        res = symk.optimal_plan(task.domain_text, task.problem_for(state), seconds)
        names, none = res.plan, res.proven_none
    else:
        names, none = _symk_module_translator(root, task, state, seconds)
    if names is not None:
        return Optimum(len(names), [task.parse_action(a) for a in names], "symk-bidirectional")
    if none:
        return Optimum(None, None, "symk-bidirectional")
    return None


def _symk_module_translator(root: Path, task, state: int, seconds: float):
    """SymK with its translator run as a package (`python -m translate`): (plan names, proven none)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="acptools-scoring-symk-") as tmp:
        d, p, out = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl"), Path(tmp, "output.sas")
        d.write_text(task.domain_text)
        p.write_text(task.problem_for(state))
        env = dict(os.environ)
        env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            tr = subprocess.run([sys.executable, "-m", "translate", str(d), str(p), "--sas-file", str(out)],
                                capture_output=True, text=True, cwd=tmp, env=env, timeout=max(seconds, 0.05))
        except subprocess.TimeoutExpired:
            return None, False
        if tr.returncode == 10:  # the translator proved the task unsolvable
            return None, True
        if tr.returncode != 0 or not out.exists():
            return None, False
        sas = out.read_text()
    left = seconds - (time.perf_counter() - start)
    if left <= 0.05:
        return None, False
    code, plan_text, _tail = fd.run_search(str(root / "downward"), "sym_bd()", sas, left, 8192)
    if code == 0 and plan_text is not None:
        return fd.plan_lines(plan_text), False
    if code in (11, 12):
        return None, True
    return None, False


ENGINES = {"astar": _astar, "fd": _fd, "symk": _symk}


def optimum(task, state: int, seconds: float | None = None) -> Optimum:
    """Exact h*(state) with an optimal plan (action ids), or known=False when the budget ran out."""
    if satisfies(state, task.goal):
        return Optimum(0, [], "holds-in-state", True, frozenset())
    seconds = DEFAULT_SECONDS if seconds is None else seconds
    deadline = time.perf_counter() + seconds
    rounds = list(ROUNDS)
    won = _winner.get(task.id)
    if won is not None:
        rounds.insert(0, ((won[0], 3 * won[1] + 0.1),))
    elif max(map(len, task.questions.optimizer.sym.classes), default=0) >= BIG_SYMMETRY:
        rounds.insert(0, (("astar", BIG_SYMMETRY_SECONDS),))
    k = 0
    while _left(deadline) > 0.01:
        if k < len(rounds):
            plan = rounds[k]
        else:  # later rounds: the last round's slices, doubled each time
            plan = tuple((e, s * LAST_ROUND_FACTOR ** (k - len(rounds) + 1)) for e, s in rounds[-1])
        for engine, cap in plan:
            left = _left(deadline)
            if left <= 0.01:
                break
            t0 = time.perf_counter()
            res = ENGINES[engine](task, state, min(cap, left))
            if res is not None:
                if len(_winner) > MAX_WINNERS:
                    _winner.clear()
                _winner[task.id] = (engine, time.perf_counter() - t0)
                return res
        k += 1
    return Optimum(None, None, "unknown", False)

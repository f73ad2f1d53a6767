"""Fast Downward as an exact engine for states too large for in-process search.

We hand the search binary (shipped in the `up-fast-downward` wheel) our own grounded task as a
SAS+ file with one binary variable per atom, so its Python translator (~100 ms) never runs and
Fast Downward answers about exactly the task we grounded (negative preconditions, conditional
effects and disjunctive goals included). Plan length is the cost: every action costs 1.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from . import planner
from .grounded import bits
from .grounding import Operator
from .search import Budget

OPTIMAL = "astar({}())"
SATISFICING = "eager_greedy([ff()])"  # complete: exhausting it (with safe ff pruning) proves no plan
_FOUND, _UNSOLVABLE, _UNSOLVED_INCOMPLETE, _NOT_WITHIN_BOUND = 0, 11, 12, 13


def optimal_heuristic(operators: list[Operator]) -> str:
    """The admissible heuristic for A*: LM-cut, or h^max when there are conditional effects (which
    LM-cut does not support)."""
    return "hmax" if any(op.conds for op in operators) else "lmcut"


def package_dir(name: str) -> Path | None:
    """Folder of an installed package, found without importing it: the planner wheels import
    unified_planning (~1 s, far longer while a search thread holds the GIL)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def downward_binary() -> str | None:
    """Path of the Fast Downward search binary, or None when the wheel is not installed."""
    root = package_dir("up_fast_downward")
    path = root and root / "downward" / "builds" / "release" / "bin" / "downward"
    return str(path) if path and path.exists() else None


class Unsupported(Exception):
    """A task feature our SAS+ encoding does not express; callers fall back to in-process search."""


@dataclass
class FdResult:
    """solved: plan (operator indices); proven_none: no plan (within the bound); neither: budget ran out."""

    plan: list[int] | None
    proven_none: bool
    timed_out: bool = False
    detail: str = ""


_op_text_cache: dict[tuple, tuple[list, str, list[str]]] = {}


def _static_parts(num_atoms: int, operators: list[Operator], started: int | None) -> tuple[str, list[str]]:
    """Variables and operators do not depend on the state or goal: build their text once per list."""
    key = (id(operators), started)
    hit = _op_text_cache.get(key)
    if hit is not None and hit[0] is operators:
        return hit[1], hit[2]
    var_lines = []
    for a in range(num_atoms):
        var_lines += ["begin_variable", f"v{a}", "-1", "2", f"Atom a{a}()", f"NegatedAtom a{a}()", "end_variable"]
    if started is not None:
        var_lines += ["begin_variable", "started", "-1", "2", "Atom started()", "NegatedAtom started()",
                      "end_variable"]
    ops_text = [_sas_operator(f"o{i}", op, started) for i, op in enumerate(operators)]
    # Fast Downward rejects operators without effects; they never help a plan, so they are left out
    # (plans name operators by their index, so the others keep theirs)
    if len(_op_text_cache) > 64:
        _op_text_cache.clear()
    _op_text_cache[key] = (operators, "\n".join(var_lines), ops_text)
    return _op_text_cache[key][1:]


def write_sas(num_atoms: int, operators: list[Operator], state: int, goal: list[tuple[int, int]],
              not_first: frozenset[int] = frozenset()) -> str:
    """SAS+ text: atom i is binary variable i (value 0 = true); a disjunctive goal gets a 0-cost
    helper action per disjunct that sets an extra goal variable. Operators in `not_first` may not
    start the plan: every operator sets a 'started' variable, and those require it."""
    started = num_atoms if not_first else None
    variables, ops_text = _static_parts(num_atoms, operators, started)
    if not_first:
        ops_text = list(ops_text)
        for i in not_first:
            ops_text[i] = _sas_operator(f"o{i}", operators[i], started, gated=True)
    goal_var = num_atoms + (started is not None)
    multi_goal = len(goal) > 1
    out = ["begin_version", "3", "end_version", "begin_metric", "1", "end_metric", str(goal_var + multi_goal),
           variables]
    if multi_goal:
        out += ["begin_variable", "goal", "-1", "2", "Atom goal()", "NegatedAtom goal()", "end_variable"]
    out += ["0", "begin_state"]
    out += ["0" if state >> a & 1 else "1" for a in range(num_atoms)]
    if started is not None:
        out.append("1")
    if multi_goal:
        out.append("1")
    out += ["end_state", "begin_goal"]
    if multi_goal:
        out += ["1", f"{goal_var} 0"]
    else:
        p, n = goal[0]
        conds = [f"{a} 0" for a in bits(p)] + [f"{a} 1" for a in bits(n)]
        out += [str(len(conds))] + conds
    out.append("end_goal")
    goal_ops = []
    if multi_goal:
        for j, (p, n) in enumerate(goal):
            pre = [f"{a} 0" for a in bits(p)] + [f"{a} 1" for a in bits(n)]
            goal_ops.append("\n".join(["begin_operator", f"goal{j}", str(len(pre))] + pre +
                                       ["1", f"0 {goal_var} -1 0", "0", "end_operator"]))
    ops_text = [text for text in ops_text if text is not None]
    out.append(str(len(ops_text) + len(goal_ops)))
    out += ops_text
    out += goal_ops
    out.append("0")
    return "\n".join(out) + "\n"


def _sas_operator(name: str, op: Operator, started: int | None = None, gated: bool = False) -> str | None:
    pre_val = {a: 0 for a in bits(op.pre)}
    pre_val.update({a: 1 for a in bits(op.neg)})
    effects = []  # (conditions, var, post)
    if started is not None:
        effects.append(((), started, 0))
        if gated:
            pre_val[started] = 0
    for a in bits(op.dele & ~op.add):
        effects.append(((), a, 1))
    for a in bits(op.add):
        effects.append(((), a, 0))
    for cp, cn, ca, cd in op.conds:
        cond = tuple([(a, 0) for a in bits(cp)] + [(a, 1) for a in bits(cn)])
        for a in bits(cd & ~ca):
            effects.append((cond, a, 1))
        for a in bits(ca):
            effects.append((cond, a, 0))
    if not effects:
        return None
    affected = {v for _, v, _ in effects}
    if len(affected) < len(effects):
        raise Unsupported(f"operator {name} changes one atom in two (conditional) effects")
    prevail = [(v, x) for v, x in pre_val.items() if v not in affected]
    lines = ["begin_operator", name, str(len(prevail))] + [f"{v} {x}" for v, x in prevail]
    lines.append(str(len(effects)))
    for cond, v, post in effects:
        lines.append(" ".join([str(len(cond))] + [f"{cv} {cx}" for cv, cx in cond] +
                              [str(v), str(pre_val.get(v, -1)), str(post)]))
    lines += ["1", "end_operator"]
    return "\n".join(lines)


def run_search(binary: str, config: str, sas: str, budget: Budget, memory_mb: int = 4096) -> tuple[int | None, str | None, str]:
    """Run a Fast Downward-style search binary on SAS+ text under `budget`: (exit code or None when
    stopped by the budget or a cancel, plan text or None, tail of its output)."""
    def work(folder: str):
        plan_file = os.path.join(folder, "plan")
        sas_file, out_file = os.path.join(folder, "input.sas"), os.path.join(folder, "output.txt")
        with open(sas_file, "w") as f:
            f.write(sas)
        code, why = planner.run([binary, "--search", config, "--internal-plan-file", plan_file], budget, folder,
                                sas_file, out_file, memory_mb)
        if code is None:
            return None, None, why
        tail = Path(out_file).read_text()[-300:]
        plan_text = Path(plan_file).read_text() if os.path.exists(plan_file) else None
        return code, plan_text, tail
    return planner.in_folder("search", work)


def plan_lines(plan_text: str) -> list[str]:
    """Action lines of a plan file, without the cost comment."""
    return [line.strip() for line in plan_text.splitlines() if line.strip().startswith("(")]


def solve(num_atoms: int, operators: list[Operator], state: int, goal: list[tuple[int, int]],
          budget: "Budget | float", bound: int | None = None, memory_mb: int = 4096, optimal: bool = True,
          not_first: frozenset[int] = frozenset()) -> FdResult:
    """Optimal plan with A*/LM-cut (or any plan with greedy search when not `optimal`) within
    `budget` (a Budget, or wall seconds); with `bound`, only plans of length < bound count."""
    if not isinstance(budget, Budget):
        budget = Budget(budget)
    binary = downward_binary()
    if binary is None:
        return FdResult(None, False, detail="Fast Downward is not installed (pip install up-fast-downward)")
    if not goal:
        return FdResult(None, True)
    if any(state & p == p and not state & n for p, n in goal):
        return FdResult([], False)  # (Fast Downward rejects an empty goal)
    config = OPTIMAL.format(optimal_heuristic(operators)) if optimal else SATISFICING
    if bound is not None:
        config = config[:-1] + f", bound={bound})"
    try:
        sas = write_sas(num_atoms, operators, state, goal, not_first)
    except Unsupported as e:
        return FdResult(None, False, detail=str(e))
    code, plan_text, tail = run_search(binary, config, sas, budget, memory_mb)
    if code is None:
        return FdResult(None, False, timed_out=True, detail=f"Fast Downward {tail}")
    if code == _FOUND and plan_text is not None:
        # our operators are named o<index>; goal<j> are the 0-cost helpers of a disjunctive goal
        names = [line[1:-1].split()[0] for line in plan_lines(plan_text)]
        return FdResult([int(n[1:]) for n in names if n.startswith("o")], False)
    if code in (_UNSOLVABLE, _NOT_WITHIN_BOUND):
        return FdResult(None, True)
    return FdResult(None, False, detail=f"Fast Downward exit code {code}: {tail}")

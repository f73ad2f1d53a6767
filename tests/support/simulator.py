"""Independent plan checker for STRIPS records: pyperplan grounds and simulates (no acptools code).

Pyperplan prunes operators irrelevant to the goal by default, which would reject valid witness
plans; we switch that off."""

from __future__ import annotations

import copy
import os
import re
import tempfile
from functools import lru_cache

from pyperplan import grounding
from pyperplan.pddl.parser import Parser


@lru_cache(maxsize=64)
def strips_task(domain_text: str, problem_text: str):
    with tempfile.TemporaryDirectory() as tmp:
        d, p = os.path.join(tmp, "d.pddl"), os.path.join(tmp, "p.pddl")
        with open(d, "w") as f:
            f.write(domain_text)
        with open(p, "w") as f:  # pyperplan rejects a :requirements section in a problem
            f.write(re.sub(r"\(:requirements[^)]*\)", "", problem_text, flags=re.I))
        parser = Parser(d, p)
        problem = parser.parse_problem(parser.parse_domain())
    task = grounding.ground(problem, remove_statics_from_initial_state=False, remove_irrelevant_operators=False)
    return task, {op.name.lower(): op for op in task.operators}


def trajectory(
    domain_text: str, problem_text: str, plan: list[str], start: frozenset[str] | None = None
) -> list[frozenset[str]] | None:
    """States visited by the plan from `start` (lower-case atoms; None: the problem's init), or None
    if some action is not applicable."""
    task, ops = strips_task(domain_text, problem_text)
    state = frozenset(f.lower() for f in task.initial_state) if start is None else frozenset(start)
    states = [state]
    for name in plan:
        op = ops.get(" ".join(name.lower().split()))
        if op is None or not {p.lower() for p in op.preconditions} <= state:
            return None
        state = (state - {d.lower() for d in op.del_effects}) | {a.lower() for a in op.add_effects}
        states.append(frozenset(state))
    return states


def goal_reached(domain_text: str, problem_text: str, state: frozenset[str]) -> bool:
    task, _ = strips_task(domain_text, problem_text)
    return {g.lower() for g in task.goals} <= state


def relaxed_reachable(domain_text: str, problem_text: str, banned: str | None = None) -> frozenset[str]:
    """Atoms reachable ignoring deletes from the problem's init, never adding `banned`
    (a fixpoint over pyperplan's operators: independent of acptools' relaxation code)."""
    task, ops = strips_task(domain_text, problem_text)
    reached = {f.lower() for f in task.initial_state}
    changed = True
    while changed:
        changed = False
        for op in ops.values():
            adds = {a.lower() for a in op.add_effects}
            if banned in adds:
                continue
            if adds - reached and {p.lower() for p in op.preconditions} <= reached:
                reached |= adds
                changed = True
    return frozenset(reached)


@lru_cache(maxsize=64)
def _pruned_task(domain_text: str, problem_text: str):
    """pyperplan's default grounding (statics and goal-irrelevant operators removed): for search only."""
    with tempfile.TemporaryDirectory() as tmp:
        d, p = os.path.join(tmp, "d.pddl"), os.path.join(tmp, "p.pddl")
        with open(d, "w") as f:
            f.write(domain_text)
        with open(p, "w") as f:
            f.write(re.sub(r"\(:requirements[^)]*\)", "", problem_text, flags=re.I))
        parser = Parser(d, p)
        problem = parser.parse_problem(parser.parse_domain())
    return grounding.ground(problem)


@lru_cache(maxsize=4096)
def h_star(domain_text: str, problem_text: str, state: frozenset[str]) -> int | None:
    """The length of a shortest plan from `state` (lower-case atoms), by pyperplan's A* with LM-cut
    (admissible, so optimal); None when no plan exists."""
    from pyperplan.heuristics.lm_cut import LmCutHeuristic
    from pyperplan.search import astar_search

    task = copy.copy(_pruned_task(domain_text, problem_text))
    by_name = {f.lower(): f for f in task.facts}
    task.initial_state = frozenset(by_name[a] for a in state if a in by_name)
    plan = astar_search(task, LmCutHeuristic(task))
    return None if plan is None else len(plan)

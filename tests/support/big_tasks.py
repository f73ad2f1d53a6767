"""A task at the sizes users bring, and Python's int-to-text limit at its lowest.

The task is a generated ferry problem with 160 cars and 130 locations: 21,091 ground atoms and 58,370
ground actions (58,500 type-correct ones), more than 20,000 and 50,000. Its states are int bit sets of
about 21,000 bits, which Python refuses to write in decimal (past 4,300 digits, ~14,300 bits). The
tests lower that limit to its minimum, 640 digits (~2,126 bits), in-process and in every process they
start, so a state or mask written as text anywhere fails the test that reaches it, however few of its
high bits are set.

Everything a test checks an answer against here comes from pyperplan (tests/support/simulator.py),
which shares no code with acptools: the state near the goal, its applicable actions, the first
inapplicable action of a sequence, a removable pair of a plan.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import simulator
from tests.support.data import records
from tests.support.server_procs import FERRY_DOMAIN, ferry

CARS, LOCATIONS = 160, 130
MIN_ATOMS, MIN_ACTIONS = 20_000, 50_000  # the sizes the tier holds at
LOW_DIGITS = 640  # the lowest limit sys.set_int_max_str_digits accepts
NEAR = 4  # the near-goal state is this many steps of the generated plan from the goal


@contextmanager
def low_digit_limit() -> Iterator[None]:
    """This process refuses to write an int of more than LOW_DIGITS digits while inside."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(LOW_DIGITS)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def low_digit_env(**extra: str) -> dict[str, str]:
    """This process's environment, with the lowest int-to-text limit for the processes it starts."""
    return {**os.environ, "PYTHONINTMAXSTRDIGITS": str(LOW_DIGITS), **extra}


@functools.cache
def big_ferry() -> tuple[str, str, tuple[str, ...]]:
    """The big task's domain and problem PDDL, and a valid plan for it (958 actions)."""
    problem, plan = ferry(CARS, LOCATIONS)
    return FERRY_DOMAIN, problem, tuple(plan)


def statics() -> frozenset[str]:
    """The static atoms of the big task (pyperplan's reading): what the tools leave out of a state."""
    task, ops = simulator.strips_task(*big_ferry()[:2])
    changed = {a.lower() for op in ops.values() for a in (*op.add_effects, *op.del_effects)}
    return frozenset(a.lower() for a in task.initial_state) - changed


@functools.cache
def near_goal() -> tuple[list[str], list[str]]:
    """A state NEAR steps from the goal along the generated plan (its fluent atoms, by pyperplan) and
    the plan's remaining actions."""
    domain, problem, plan = big_ferry()
    states = simulator.trajectory(domain, problem, list(plan[:-NEAR]))
    assert states is not None
    return sorted(states[-1] - statics()), list(plan[-NEAR:])


def near_goal_problem() -> str:
    """The big problem with the near-goal state as its initial state (the same objects and goal)."""
    _, problem, _ = big_ferry()
    init = " ".join(sorted(statics()) + near_goal()[0])
    return re.sub(r"\(:init .*?\)\n \(:goal", f"(:init {init})\n (:goal", problem, count=1, flags=re.S)


def applicable(atoms) -> list[str]:
    """The actions pyperplan finds applicable in a state (its fluent atoms), sorted."""
    task, ops = simulator.strips_task(*big_ferry()[:2])
    state = frozenset(atoms) | statics()
    return sorted(name for name, op in ops.items() if {p.lower() for p in op.preconditions} <= state)


def first_inapplicable(plan, atoms) -> int | None:
    """The index of the first action of `plan` pyperplan cannot apply from a state (None: all apply)."""
    domain, problem, _ = big_ferry()
    for k in range(len(plan) + 1):
        if simulator.trajectory(domain, problem, plan[:k], frozenset(atoms) | statics()) is None:
            return k - 1
    return None


def reaches_goal(plan, atoms) -> bool:
    """Whether `plan` applies from a state and ends in a goal state, by pyperplan."""
    domain, problem, _ = big_ferry()
    states = simulator.trajectory(domain, problem, list(plan), frozenset(atoms) | statics())
    return states is not None and simulator.goal_reached(domain, problem, states[-1])


def _bundled_ferry(task: str) -> dict:
    return next(r for r in records("dev", task) if "(domain ferry)" in r["PDDL_domain"].lower())


def _quoted(question: str, plan: list[str]) -> str:
    return re.sub(r'"[^"]*"', '"' + " ".join(plan) + '"', question, count=1)


def acpbench_records() -> list[dict]:
    """One ACPBench Hard record per task on the big task started near its goal: the bundled ferry
    records' questions, about this state; answers found by pyperplan or by how the plan was built."""
    atoms, rest = near_goal()
    sail = rest[0]  # the last car is on the ferry: sail to its goal, debark, out and back
    start, target = sail.strip("()").split()[1:]
    detour = rest + [f"(sail {target} {start})", f"(sail {start} {target})"]
    sequence = [rest[1], *rest]  # debark before sailing: inapplicable at once
    pair = next(k for k in range(len(detour) - 1) if reaches_goal(detour[:k] + detour[k + 2 :], atoms))
    answers = {
        "app": applicable(atoms),
        "prog": {"pos": [f"(at-ferry {target})"], "neg": [f"(at-ferry {start})"]},
        "reach": [],
        "areach": [f"(sail {start} {start})"],
        "val": first_inapplicable(sequence, atoms),
        "just": [[detour[pair], detour[pair + 1], "-1"]],
        "land": {"yes": [f"(at-ferry {target})"], "no": []},
        "nexta": {"yes": [sail], "no": [], "maybe": [], "opt": str(NEAR - 2)},
    }
    questions = {
        "prog": f'Break down the outcomes of performing the action "sail from location {start} to '
        f'location {target}" into two lists, positive effects and negative effects.',
        "val": _quoted(_bundled_ferry("val")["question"], sequence),
        "just": _quoted(_bundled_ferry("just")["question"], detour),
    }
    out = []
    for k, task in enumerate(answers):
        record = _bundled_ferry(task)
        record.update(
            id=9_000_000 + k,
            PDDL_domain=FERRY_DOMAIN,
            PDDL_problem=near_goal_problem(),
            answer=answers[task],
            question=questions.get(task, record["question"]),
        )
        out.append(record)
    return out


def write_big_files(folder: Path) -> dict[str, Path]:
    """The big task as files (domain.pddl, p1.pddl: a folder rollout reads) and its records (records.jsonl)."""
    folder.mkdir(parents=True, exist_ok=True)
    domain, problem, _ = big_ferry()
    (folder / "domain.pddl").write_text(domain)
    (folder / "p1.pddl").write_text(problem)
    recs = acpbench_records()
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return {
        "folder": folder,
        "domain": folder / "domain.pddl",
        "problem": folder / "p1.pddl",
        "records": folder / "records.jsonl",
    }

"""Satisficing plans from ENHSP (the numeric planner that `up-enhsp` ships as a jar) for any task,
numeric ones included, replayed under acptools' exact semantics before they are returned.

ENHSP reads the task's own domain text and a problem text whose `:init` is the given state (its
atoms, the static facts, the numeric values and the static function values). It runs as a planner
process under the Budget (`process.run`: killed when the budget is spent or cancelled, and with
this process). ENHSP computes in floating point, so its plan is a proposal: it is kept only when
it applies step by step from the state and reaches the goal under Fraction arithmetic; otherwise
it is logged and dropped.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Literal

from ..budget import Budget
from ..errors import BudgetExceeded
from . import process

log = logging.getLogger(__name__)
MEMORY_MB = 4096
HEAP = "-Xmx1g"
SHARE = 0.75  # of a raced search's budget, for ENHSP
HEAD_START = 0.2  # seconds the own search runs alone before ENHSP starts
DIGITS = 40  # significant digits of a value with no finite decimal (ENHSP reads doubles anyway)


def enhsp_jar() -> tuple[str | None, str]:
    """(path of ENHSP's jar, "") or (None, why it cannot run here)."""
    try:
        from up_enhsp.enhsp_planner import ENHSP_JAR  # type: ignore[import-untyped]
    except ImportError as e:
        return None, f"up-enhsp is not installed ({e}); pip install up-enhsp"
    if not os.path.exists(ENHSP_JAR):
        return None, f"up-enhsp's jar is missing at {ENHSP_JAR}"
    if shutil.which("java") is None:
        return None, "no Java runtime on PATH (ENHSP needs one, e.g. Debian's default-jre-headless)"
    return ENHSP_JAR, ""


def enhsp_plan(task, state: int, budget: Budget | float) -> list[int] | None:
    """Action ids of a plan from `state` that ENHSP found and acptools replayed to the goal, or None
    (ENHSP missing, out of budget, no plan, or a plan that does not hold; the reason is logged).
    `task`: a GroundedTask or a Task wrapping one."""
    task = getattr(task, "grounded", task)
    names = enhsp_names(task, state, budget)
    return None if names is None else checked_plan(task, state, names)


def race(
    task, state: int, budget: Budget, search: Callable[[int, Budget], list[int] | None], share: float
) -> list[int] | None | Literal[False]:
    """Run acptools' own `search(state, budget)` on `share` of the budget while ENHSP (when
    installed; a separate process, so the two use both cores) races it on SHARE of the budget,
    starting after HEAD_START seconds so that the many tasks the own search solves at once never
    start a JVM. Whichever plan comes first stops the other. Returns the own search's answer (a
    plan, or None: proven unsolvable), else ENHSP's plan replayed (checked_plan), else False."""
    task = getattr(task, "grounded", task)
    found, done = threading.Event(), threading.Event()
    outside: list[list[str] | None] = [None]

    def run_enhsp() -> None:
        if done.wait(HEAD_START):
            return
        outside[0] = enhsp_names(task, state, budget.share(SHARE).child(cancel=done))
        if outside[0] is not None:
            found.set()

    racer = threading.Thread(target=run_enhsp, name="acptools-enhsp", daemon=True)
    racer.start()
    plan: list[int] | None | Literal[False] = False
    try:
        plan = search(state, budget.share(share).child(cancel=found))
    except BudgetExceeded:
        pass  # its share is spent, or ENHSP found a plan first: ENHSP's answer is awaited below
    except BaseException:
        done.set()
        raise
    finally:
        if plan is not False:
            done.set()
        racer.join()
    if plan is False and outside[0] is not None:
        return checked_plan(task, state, outside[0]) or False
    return plan


def enhsp_names(task, state: int, budget: Budget | float) -> list[str] | None:
    """ENHSP's plan from `state` as action names, not yet checked (checked_plan does that), or None
    with the reason logged. Reads the task and writes only its own work folder, so it may run in a
    thread beside a search over the same task."""
    task = getattr(task, "grounded", task)
    budget = budget if isinstance(budget, Budget) else Budget(budget)
    jar, why = enhsp_jar()
    if jar is None:
        log.info("ENHSP not used: %s", why)
        return None
    folder = process.work_folder("enhsp")
    try:
        return _run(task, state, budget, jar, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(task, state: int, budget: Budget, jar: str, folder: str) -> list[str] | None:
    """ENHSP's plan as action names, or None (logged)."""
    domain, problem = os.path.join(folder, "domain.pddl"), os.path.join(folder, "problem.pddl")
    plan, out = os.path.join(folder, "plan.txt"), os.path.join(folder, "out.txt")
    with open(domain, "w") as f:
        f.write(task.domain_text)
    with open(problem, "w") as f:
        f.write(problem_text(task, state))
    argv = ["java", HEAP, "-jar", jar, "-o", domain, "-f", problem, "-sp", plan, "-npm"]
    code, why = process.run(argv, budget, folder, stdout_path=out, memory_mb=MEMORY_MB)
    if code is None:
        log.info("ENHSP stopped: %s", why)
        return None
    if code != 0 or not os.path.exists(plan):
        log.info("ENHSP found no plan (exit %s): %s", code, process._last_line(out))
        return None
    with open(plan) as f:
        return [line.strip().lower() for line in f if line.strip().startswith("(")]


def checked_plan(task, state: int, names: list[str]) -> list[int] | None:
    """The ids of `names` when they form a plan from `state` under the task's exact semantics; else
    None, with the reason logged."""
    try:
        actions = [task.parse_action(name, "ENHSP plan") for name in names]
    except Exception as e:  # an action acptools does not know: the plan is not ours to return
        log.warning("ENHSP plan dropped: %s", e)
        return None
    bad, last = task.run(actions, state)
    if bad is not None:
        log.warning("ENHSP plan dropped: step %d %s does not apply", bad + 1, names[bad])
        return None
    if not task.is_goal(last):
        log.warning("ENHSP plan dropped: it does not reach the goal")
        return None
    return actions


def problem_text(task, state: int) -> str:
    """The task's problem text with `state` (plus static facts and values) as its `:init`."""
    text = _without_comments(task.problem_text)
    start = re.search(r"\(\s*:init\b", text, re.IGNORECASE)
    if start is None:
        raise ValueError("the problem text has no :init section")
    end = _closing(text, start.start())
    return text[: start.start()] + "(:init\n  " + "\n  ".join(init_entries(task, state)) + ")" + text[end + 1 :]


def init_entries(task, state: int) -> list[str]:
    """`state` as PDDL init entries: its atoms and values, the static facts, the static function
    values and the cost accumulators' initial values (derived atoms left out: ENHSP derives them)."""
    derived = set(task.names(task.derived)) if getattr(task, "derived", 0) else set()
    out = [e for e in task.names(state) if e not in derived]
    out = [_pddl_entry(e) for e in out]
    out += sorted(f"({' '.join((pred, *args))})" for pred, args in task.static_true)
    num = getattr(task, "numeric", None)
    # values that are not state: static functions and cost accumulators (every one without numeric state)
    kept = [(k, v) for k, v in task.problem.num_init.items() if num is None or k[0] in num.static | num.accumulators]
    out += sorted(f"(= ({' '.join((f, *args))}) {_number(v)})" for (f, args), v in kept)
    return out


def _pddl_entry(entry: str) -> str:
    """An entry of `names`, with a value n/d (no finite decimal) written as a decimal."""
    m = re.fullmatch(r"\(= (\(.*\)) (-?\d+)/(\d+)\)", entry)
    if m is None:
        return entry
    return f"(= {m.group(1)} {_number(Fraction(int(m.group(2)), int(m.group(3))))})"


def _number(v: Fraction) -> str:
    """A value as a PDDL number: exact when it has a finite decimal, else DIGITS significant digits."""
    if v.denominator == 1:
        return str(v.numerator)
    with localcontext() as ctx:
        ctx.prec = DIGITS
        text = format(Decimal(v.numerator) / Decimal(v.denominator), "f")
    return text


def _without_comments(text: str) -> str:
    return re.sub(r";[^\n]*", "", text)


def _closing(text: str, start: int) -> int:
    """Index of the parenthesis closing the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced parentheses in the problem text")

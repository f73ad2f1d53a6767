"""Where the numeric test corpus lives and what each problem is meant to be.

Each problem's opening comment states its kind: "unsolvable", "infinite state" (no search finishes),
"larger" (beyond a quick exact search) or, by default, a small solvable task. unified-planning's own
numeric PDDL examples are read from the installed package at test time (Apache-2.0, not copied here)."""

from __future__ import annotations

import os
import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "pddl" / "numeric"
COST_FAMILIES = ("transport-cost", "visit-cost", "elevators-cost")

# (folder under unified_planning/test/pddl, domain file, problem file): the level-2 numeric and
# action-cost examples; car_nl (processes), parking_action_cost, matchcellar, robot_fastener (durative)
# and the propositional ones are left out
UP_EXAMPLES = (
    ("counters", "domain.pddl", "problem.pddl"),
    ("counters", "domain.pddl", "problem2.pddl"),
    ("sailing", "domain.pddl", "problem.pddl"),
    ("tpp_metric", "domain.pddl", "problem.pddl"),
    ("citycar", "domain.pddl", "problem.pddl"),
)


def families() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if (p / "domain.pddl").is_file())


def numeric_families() -> list[str]:
    return [f for f in families() if f not in COST_FAMILIES]


def problems(family: str) -> list[Path]:
    return sorted((CORPUS / family).glob("p*.pddl"))


def all_problems() -> list[tuple[str, Path]]:
    return [(f, p) for f in families() for p in problems(f)]


def kind(problem: Path) -> str:
    """ "unsolvable", "infinite", "larger" or "solvable", from the problem's opening comment."""
    comment = " ".join(re.findall(r"^\s*;;(.*)$", problem.read_text().split("(define")[0], re.M)).lower()
    if "unsolvable" in comment.split(":")[0]:
        return "unsolvable"
    if "infinite state" in comment:
        return "infinite"
    if comment.strip().startswith("larger"):
        return "larger"
    return "solvable"


def up_example_folder() -> Path:
    import unified_planning

    return Path(os.path.dirname(unified_planning.__file__)) / "test" / "pddl"


def up_examples() -> list[tuple[str, Path, Path]]:
    """(name, domain, problem) of the numeric examples unified-planning ships, where installed."""
    base = up_example_folder()
    return [
        (f"{folder}/{problem}", base / folder / domain, base / folder / problem)
        for folder, domain, problem in UP_EXAMPLES
        if (base / folder / problem).is_file()
    ]

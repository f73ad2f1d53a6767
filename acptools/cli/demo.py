"""`acptools demo`: ask all eight ACPBench Hard questions about a bundled example and print proofs;
`acptools examples`: list the bundled examples."""

from __future__ import annotations

import time

from .. import examples, load_task
from ..errors import AcpError
from .common import EXIT_OK, fail


def add_parser(sub):
    """Register `acptools demo`."""
    d = sub.add_parser("demo", help="answer all eight questions about a bundled example task")
    d.add_argument(
        "--example", default=examples.DEFAULT, metavar="NAME", help="a bundled example (see `acptools examples`)"
    )
    d.add_argument("--budget", type=float, default=60.0, metavar="S", help="seconds per question")
    return d


def run(args) -> int:
    """Run the demo on --example; 2 for an unknown example."""
    try:
        return int(answer_all(args.example, args.budget) or 0)
    except AcpError as e:
        return fail(e)


def answer_all(name: str = examples.DEFAULT, budget: float = 60.0) -> int:
    """Print every question's answer about one bundled example, with how each is known."""
    domain, problem = examples.texts(name)
    t0 = time.perf_counter()
    task = load_task(domain, problem)
    q = task.questions
    print(
        f"example {name}: {len(task.atoms)} propositions, {task.num_possible_actions} ground actions "
        f"({task.num_actions} type-correct), loaded in {(time.perf_counter() - t0) * 1e3:.1f} ms"
    )
    app = q.applicable()
    print(f"\napp    applicable in the initial state: {', '.join(app)}")
    if app:
        p = q.progress(app[0])
        print(f"prog   {app[0]}: + {', '.join(p.positive_effects) or '-'}   - {', '.join(p.negative_effects) or '-'}")
    nxt = q.optimal_next(budget=budget, table=True)
    print(f"nexta  h* = {nxt.h_star} ({nxt.how}); optimal next actions: {', '.join(nxt.optimal_actions)}")
    for v in nxt.actions:
        print(f"         {v.action:<32} h* after = {v.h_star_after}  regret = {v.regret}")
    plan = nxt.plan or []
    val = q.validate(plan)
    print(
        f"val    the optimal plan ({len(plan)} steps) is valid: {val.first_inapplicable is None}, "
        f"goal reached: {val.goal_reached}"
    )
    padded = plan[:1] + app[:1] + plan[1:] if plan and app else plan
    rem = q.simplify(padded)
    print(f"just   removable from a padded plan: {[r.indices for r in rem] or 'nothing'}")
    un = q.unreachable_atoms(budget=budget)
    print(
        f"reach  {un.total} propositions can never hold (complete: {un.complete})"
        + (f", e.g. {un.items[0].name} by {un.items[0].how}" if un.items else "")
    )
    ua = q.unreachable_actions(budget=budget)
    print(
        f"areach {ua.total} ground actions can never apply (complete: {ua.complete})"
        + (f", e.g. {ua.items[0].name} by {ua.items[0].how}" if ua.items else "")
    )
    lm = q.landmarks(budget=budget)
    print(
        "land   non-trivial fact landmarks: "
        + (", ".join(f"{i.name} [{i.how}]" for i in lm.items) or "none")
        + f" (complete: {lm.complete})"
    )
    print(f"\nall answers in {time.perf_counter() - t0:.2f} s")
    return 0


class Examples:
    """`acptools examples`: the bundled example names, one per line."""

    @staticmethod
    def add_parser(sub):
        """Register `acptools examples`."""
        return sub.add_parser("examples", help="list the bundled example tasks")

    @staticmethod
    def run(args) -> int:
        """Print every bundled example name."""
        for name in examples.names():
            print(name)
        return EXIT_OK

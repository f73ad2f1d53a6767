"""Quantified formulas are sized before they are expanded (issue 39): a precondition `exists`, a derived
predicate's `exists` and a `forall/when` effect over 30 objects are refused from their estimate with the
figures, without expanding a binding; with no memory limit the expansion stops at the budget; the
estimate bounds what real quantified tasks expand to, and refuses none of the real tasks at the
server's default limits."""

from __future__ import annotations

import threading
import time

import pytest

from acptools import AcpError, Budget, BudgetExceeded, examples, load_task
from acptools.dataset import SPLITS, TASKS, acpbench_hard
from acptools.ground.grounding import Grounder
from tests.support.data import PDDL, SUITE, pddl_texts
from tests.support.effort import cpu_effort
from tests.support.load import slack
from tests.support.quantified import CASES, problem

GB = 1_000_000_000
SERVER_LIMITS = dict(max_bytes=2 * GB, max_actions=500_000)  # acptools-server's defaults
BINDINGS = {
    "precondition exists": "729,000,000",
    "derived-predicate exists": "729,000,000",
    "forall/when effect": "24,300,000",
}


@pytest.mark.parametrize("case", CASES)
def test_a_quantified_formula_is_refused_from_its_estimate_before_expanding(case: str, monkeypatch) -> None:
    domain = CASES[case]()
    monkeypatch.setattr(Grounder, "_expand", lambda *_: pytest.fail("a quantifier was expanded"))
    with cpu_effort() as spent, pytest.raises(AcpError) as refused:
        load_task(domain, problem(domain, 30), **SERVER_LIMITS)
    message = str(refused.value)
    print(f"\n{case}: {spent.seconds:.3f} s CPU; {message}")
    assert refused.value.where == "memory" and "refused before grounding" in message, message
    assert BINDINGS[case] in message and "2,000 MB" in message, message
    assert spent.seconds < 1.0


@pytest.mark.parametrize("case", CASES)
def test_without_a_memory_limit_the_expansion_stops_at_the_budget(case: str) -> None:
    """The derived predicate's axioms are grounded whole at load, so their 729 million bindings are
    refused against the budget's time at once; the other two expand until the budget is spent."""
    domain = CASES[case]()
    t0 = time.perf_counter()
    with pytest.raises((AcpError, BudgetExceeded)) as stopped:
        load_task(domain, problem(domain, 30), budget=Budget(1.0))
    elapsed = time.perf_counter() - t0
    print(f"\n{case}: stopped after {elapsed:.2f} s: {stopped.value}")
    assert elapsed < 1.0 + slack(1.0), elapsed
    if case == "derived-predicate exists":
        assert stopped.value.where == "budget" and "729,000,000" in str(stopped.value)


def test_a_cancelled_load_stops_in_the_middle_of_an_expansion() -> None:
    domain = CASES["forall/when effect"]()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    t0 = time.perf_counter()
    with pytest.raises(BudgetExceeded, match="cancelled"):
        load_task(domain, problem(domain, 30), budget=Budget(600, cancel=cancel))
    assert time.perf_counter() - t0 < 0.3 + slack(1.0)


def _quantified_tasks() -> list[tuple[str, str, str]]:
    tasks = [(name, *pddl_texts(name)) for name in ("doors", "join", "blocks-derived", "rooms-derived", "household")]
    for name in ("rubiks-cube", "briefcaseworld", "assembly", "schedule", "miconic-fulladl"):
        folder = SUITE / name
        tasks.append((name, (folder / "domain.pddl").read_text(), (folder / "small.pddl").read_text()))
    for case, make in CASES.items():
        domain = make()
        tasks.append((case, domain, problem(domain, 5)))
    return tasks


QUANTIFIED = _quantified_tasks()


@pytest.mark.parametrize("name, domain, problem_text", QUANTIFIED, ids=[name for name, _, _ in QUANTIFIED])
def test_the_estimate_bounds_what_the_formulas_expand_to(name: str, domain: str, problem_text: str) -> None:
    """Per ground action: its operators (precondition disjuncts) and their conditional effects; the axiom
    rules and the goal's disjuncts; and the bytes of the whole task."""
    task = load_task(domain, problem_text, ground_all=True)
    found = task.footprint
    sizes = {s.name: s for s in found.schemas}
    for aid, ops in enumerate(task.ops_of_action):
        schema = sizes[task.action_names[aid].strip("()").split()[0]]
        assert len(ops) <= schema.operators, (task.action_names[aid], len(ops), schema)
        assert all(len(op.conds) <= schema.conds for op in ops), (task.action_names[aid], schema)
    rules = len(task.axioms.rules) if task.axioms else 0
    assert rules + len(task.goal) <= found.fixed.width
    assert found.bytes >= task.approx_bytes - len(domain) - len(problem_text)


def _real_tasks() -> list[tuple[str, str]]:
    texts = {examples.texts(name) for name in examples.names()}
    texts |= {
        (r["PDDL_domain"], r["PDDL_problem"]) for split in SPLITS for kind in TASKS for r in acpbench_hard(split, kind)
    }
    for domain in sorted(PDDL.glob("*/domain.pddl")):
        texts |= {(domain.read_text(), p.read_text()) for p in sorted(domain.parent.glob("*.pddl")) if p != domain}
    return sorted(texts)


def test_no_real_task_is_refused_at_the_server_limits() -> None:
    """The bundled examples, every ACPBench Hard record's task and the test PDDL: the estimate (with the
    count of possible actions where the bound is over) refuses none of them."""
    tasks = _real_tasks()
    for domain, problem_text in tasks:
        load_task(domain, problem_text, budget=Budget(60), **SERVER_LIMITS)
    print(f"\n{len(tasks)} tasks loaded under the server's limits")
    assert len(tasks) > 500

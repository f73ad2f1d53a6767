"""acptools' ENHSP route (acptools.planners.enhsp): every plan it returns replays in unified-planning's
PlanValidator (an independent oracle), a plan exact arithmetic rejects is never returned, and a spent or
cancelled budget stops ENHSP with no java process left behind."""

from __future__ import annotations

import os
import threading
import time

import pytest

from acptools import load_task
from acptools.budget import Budget
from acptools.planners import enhsp, process
from tests.support import numeric_oracle
from tests.support.load import slack
from tests.support.numeric_corpus import CORPUS, all_problems, kind, up_examples
from tests.support.numeric_planners import enhsp_available, up_validates

pytestmark = [
    pytest.mark.skipif(not enhsp_available(), reason="ENHSP needs up-enhsp and a Java runtime (java on PATH)"),
    pytest.mark.usefixtures("no_cache"),
]
QUICK = [c for c in all_problems() if c[1].name == "p01.pddl"]


@pytest.fixture
def no_cache(monkeypatch):
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")


def _plan(domain, problem, seconds: float = 60):
    t = load_task(domain.read_text(), problem.read_text())
    plan = enhsp.enhsp_plan(t, t.grounded.init, Budget(seconds))
    return t, plan


def _up_checks(domain, problem, names: list[str]) -> None:
    oracle = numeric_oracle.load_task(domain, problem)
    assert oracle.validate(names) == (None, True)
    if "UNDEFINED_INITIAL_NUMERIC" not in oracle.up_problem.kind.features:  # else UP refuses the kind
        assert up_validates(oracle, names)


def _java_children() -> list[int]:
    """Pids of java processes whose parent is this process."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and comm == "java":
            out.append(int(pid))
    return out


@pytest.mark.parametrize("family,problem", QUICK, ids=[f for f, _ in QUICK])
def test_plans_replay_in_unified_planning(family, problem):
    t, plan = _plan(CORPUS / family / "domain.pddl", problem)
    if plan is None:
        return
    _up_checks(CORPUS / family / "domain.pddl", problem, t.grounded.action_list(plan))


def test_most_families_get_a_plan():
    solved = [f for f, p in QUICK if kind(p) == "solvable" and _plan(CORPUS / f / "domain.pddl", p)[1] is not None]
    assert len(solved) >= 8, solved


@pytest.mark.slow
@pytest.mark.parametrize("family,problem", all_problems(), ids=[f"{f}-{p.stem}" for f, p in all_problems()])
def test_every_corpus_plan_replays(family, problem):
    t, plan = _plan(CORPUS / family / "domain.pddl", problem, 30)
    if plan is not None:
        assert kind(problem) != "unsolvable"
        _up_checks(CORPUS / family / "domain.pddl", problem, t.grounded.action_list(plan))


@pytest.mark.parametrize("name,domain,problem", up_examples(), ids=[e[0] for e in up_examples()])
def test_unified_plannings_examples(name, domain, problem):
    try:
        t, plan = _plan(domain, problem)
    except Exception as e:  # acptools refuses part of the example (reported by load_task)
        pytest.skip(f"acptools does not load {name}: {e}")
    if plan is not None:
        _up_checks(domain, problem, t.grounded.action_list(plan))


def test_from_a_later_state_the_plan_starts_there():
    domain, problem = CORPUS / "zenotravel" / "domain.pddl", CORPUS / "zenotravel" / "p02.pddl"
    t = load_task(domain.read_text(), problem.read_text())
    g = t.grounded
    first = g.applicable(g.init)[0]
    later = g.apply_op(g.op_for(first, g.init), g.init)
    plan = enhsp.enhsp_plan(t, later, Budget(60))
    assert plan is not None and g.is_plan(plan, later)
    _up_checks(domain, problem, g.action_list([first, *plan]))


def test_a_plan_exact_arithmetic_rejects_is_dropped():
    """On sharing-divzero p04 ENHSP's tolerant equality yields a 'plan' that never reaches the goal."""
    problem = CORPUS / "sharing-divzero" / "p04.pddl"
    t, plan = _plan(CORPUS / "sharing-divzero" / "domain.pddl", problem, 20)
    assert plan is None or t.grounded.is_plan(plan, t.grounded.init)


def test_a_wrong_plan_is_never_returned():
    t = load_task((CORPUS / "zenotravel" / "domain.pddl").read_text(), (CORPUS / "zenotravel" / "p01.pddl").read_text())
    g = t.grounded
    assert enhsp.checked_plan(g, g.init, ["(refuel plane1 c1)"]) is None  # applies, misses the goal
    assert enhsp.checked_plan(g, g.init, ["(debark bob plane1 c1)"]) is None  # does not apply
    assert enhsp.checked_plan(g, g.init, ["(fly plane9 c1 c2)"]) is None  # no such action


# ENHSP searches this for ever: x and y move by 2 from 0 and the goal wants them odd
PARITY_DOMAIN = """(define (domain parity) (:requirements :numeric-fluents) (:functions (x) (y))
  (:action up :parameters () :precondition (<= (x) 1000000000) :effect (increase (x) 2))
  (:action down :parameters () :precondition (>= (x) 2) :effect (decrease (x) 2))
  (:action side :parameters () :precondition (<= (y) 1000000000) :effect (increase (y) 2)))"""
PARITY_PROBLEM = """(define (problem parity-1) (:domain parity) (:init (= (x) 0) (= (y) 0))
  (:goal (and (= (x) 1) (= (y) 1))))"""


def _stopped_in_time(budget: Budget, at_least: float, seconds: float) -> None:
    t = load_task(PARITY_DOMAIN, PARITY_PROBLEM)
    started = time.perf_counter()
    assert enhsp.enhsp_plan(t, t.grounded.init, budget) is None
    assert at_least <= time.perf_counter() - started < slack(seconds)
    assert process.running() == 0 and _java_children() == []


def test_a_spent_budget_stops_java():
    _stopped_in_time(Budget(0.5), 0.4, 5)


def test_a_cancel_stops_java():
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    _stopped_in_time(Budget(120, cancel=cancel), 0.9, 10)


def test_missing_java_returns_none_with_a_reason(monkeypatch, caplog):
    monkeypatch.setattr(enhsp.shutil, "which", lambda name: None)
    t = load_task((CORPUS / "zenotravel" / "domain.pddl").read_text(), (CORPUS / "zenotravel" / "p01.pddl").read_text())
    with caplog.at_level("INFO", logger=enhsp.__name__):
        assert enhsp.enhsp_plan(t, t.grounded.init, Budget(10)) is None
    assert "Java" in caplog.text


# the race of acptools' own search with ENHSP (enhsp.race), as `plan(optimal=False)` runs it


def _stuck(state, budget):
    """An own search that never finds a plan: it spends its budget until stopped."""
    while True:
        budget.spend()


def _zenotravel():
    t = load_task((CORPUS / "zenotravel" / "domain.pddl").read_text(), (CORPUS / "zenotravel" / "p01.pddl").read_text())
    return t.grounded


def test_a_stuck_search_is_stopped_by_enhsps_plan():
    g = _zenotravel()
    started = time.perf_counter()
    plan = enhsp.race(g, g.init, Budget(120), _stuck, 1.0)
    assert plan and g.is_plan(plan, g.init)
    assert time.perf_counter() - started < slack(60)  # far below the 120 s the stuck search had
    assert process.running() == 0 and _java_children() == []
    _up_checks(CORPUS / "zenotravel" / "domain.pddl", CORPUS / "zenotravel" / "p01.pddl", g.action_list(plan))


def test_a_quick_own_answer_never_starts_java(monkeypatch):
    calls = []
    monkeypatch.setattr(enhsp, "enhsp_names", lambda *a: calls.append(a))
    g = _zenotravel()
    assert enhsp.race(g, g.init, Budget(60), lambda s, b: [], 1.0) == []
    assert enhsp.race(g, g.init, Budget(60), lambda s, b: None, 1.0) is None  # own proof of unsolvability
    assert calls == []


def test_a_wrong_enhsp_plan_in_the_race_is_dropped(monkeypatch):
    monkeypatch.setattr(enhsp, "enhsp_names", lambda *a: ["(refuel plane1 c1)"])
    g = _zenotravel()
    assert enhsp.race(g, g.init, Budget(2), _stuck, 1.0) is False


@pytest.mark.parametrize("name", ["counters/problem2.pddl", "citycar/problem.pddl"])
def test_satisficing_plans_on_hard_examples_replay(name):
    """counters' numeric goals and citycar's costs are where greedy search struggles; ENHSP races it."""
    [(_, domain, problem)] = [e for e in up_examples() if e[0] == name]
    t = load_task(domain.read_text(), problem.read_text())
    v = t.questions.plan(optimal=False, budget=60)
    assert v.answer is True, v.how
    _up_checks(domain, problem, v.witness)

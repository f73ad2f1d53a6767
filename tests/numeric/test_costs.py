"""Action costs as data (acptools.ground.costs): every ground operator's cost equals the independent
numeric oracle's on the :action-costs corpus, the task's metric says "cost" only for a sum of fixed
non-negative costs (else "length" and why), unit-cost tasks keep cost 1, bad cost effects are errors
with line and column, and a kept (snapshot) task keeps its costs."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from acptools import examples, load_task
from acptools.errors import PddlError
from acptools.ground import snapshot
from tests.support.numeric_compile import evaluate
from tests.support.numeric_corpus import CORPUS, COST_FAMILIES, problems
from tests.support.numeric_oracle import load_task as load_oracle

COST_PROBLEMS = [(f, p) for f in COST_FAMILIES for p in problems(f)]

DOMAIN = """(define (domain hops)
  (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (link ?a ?b - place))
  (:functions (hop-cost ?a ?b - place) - number (total-cost) - number)
  (:action hop :parameters (?a ?b - place)
    :precondition (and (at ?a) (link ?a ?b))
    :effect (and (not (at ?a)) (at ?b) COST)))
"""
PROBLEM = """(define (problem hops1) (:domain hops)
  (:objects p q r - place)
  (:init (at p) (link p q) (link q r) (link p r)
         (= (hop-cost p q) 2.5) (= (hop-cost q r) 1) INIT (= (total-cost) 0))
  (:goal (at r))
  METRIC)
"""


def hops(cost="(increase (total-cost) (hop-cost ?a ?b))", init="(= (hop-cost p r) 7)", metric=None):
    metric = "(:metric minimize (total-cost))" if metric is None else metric
    return DOMAIN.replace("COST", cost), PROBLEM.replace("INIT", init).replace("METRIC", metric)


def costs_by_action(task) -> dict[str, set]:
    g = task.grounded
    return {name: {op.cost for op in g.ops_of_action[g.parse_action(name)]} for name in g.possible_actions()}


@pytest.mark.parametrize("family, problem", COST_PROBLEMS, ids=[f"{f}/{p.stem}" for f, p in COST_PROBLEMS])
def test_costs_equal_the_oracles(family, problem):
    domain = CORPUS / family / "domain.pddl"
    task, oracle = load_task(domain, problem), load_oracle(domain, problem)
    assert oracle.metric == "action-costs" and task.metric == "cost" and task.metric_reason == ""
    ours = costs_by_action(task)
    assert set(ours) == set(oracle.actions)
    for name, ground in oracle.actions.items():
        assert ours[name] == {evaluate(ground.cost, oracle.init.atoms, oracle.init.values)}, name


@pytest.mark.parametrize("family", COST_FAMILIES)
def test_each_cost_family_has_costs_other_than_one(family):
    task = load_task(CORPUS / family / "domain.pddl", problems(family)[0])
    assert {c for found in costs_by_action(task).values() for c in found} - {1}


def test_a_unit_cost_task_keeps_cost_one_and_the_length_metric():
    task = load_task(*examples.texts("ferry"))
    assert task.metric == "length" and task.metric_reason == "" and task.grounded._grounder.costs is None
    assert all(op.cost == 1 for op in task.grounded.operators)
    assert all(len(op.__reduce__()[1]) == 6 for op in task.grounded.operators)  # pickled as before


def test_decimal_costs_are_exact_and_an_undefined_static_cost_rules_the_action_out():
    task = load_task(*hops(init=""))  # (hop-cost p r) has no value: (hop p r) is never applicable
    costs = costs_by_action(task)
    assert costs == {"(hop p q)": {Fraction(5, 2)}, "(hop q r)": {1}}
    assert type(next(iter(costs["(hop q r)"]))) is int


def test_constant_costs_and_costs_that_add_up():
    task = load_task(*hops(cost="(increase (total-cost) 3) (increase (total-cost) (* 2 (hop-cost ?a ?b)))"))
    assert costs_by_action(task) == {"(hop p q)": {8}, "(hop q r)": {5}, "(hop p r)": {17}}


@pytest.mark.parametrize(
    "cost, metric, reason",
    [
        ("(increase (total-cost) 1)", "(:metric maximize (total-cost))", "maximizes"),
        ("(increase (total-cost) (- (hop-cost ?a ?b) 2))", None, "may be negative"),
        ("(when (at ?b) (increase (total-cost) 1))", None, "inside a when"),
        ("(forall (?c - place) (increase (total-cost) 1))", None, "inside a forall"),
        ("(increase (total-cost) 1)", "(:metric minimize (* 2 (total-cost)))", "not the sum of fixed action costs"),
    ],
)
def test_an_unusable_metric_falls_back_to_length_and_says_why(cost, metric, reason):
    task = load_task(*hops(cost=cost, metric=metric))
    assert task.metric == "length" and reason in task.metric_reason
    assert all(c == {1} for c in costs_by_action(task).values())


def test_no_metric_is_plan_length_without_a_reason():
    task = load_task(*hops(metric=""))
    assert task.metric == "length" and task.metric_reason == ""


@pytest.mark.parametrize(
    "cost, message",
    [
        ("(increase total-cost 1)", r"\(increase \.\.\.\) changes a function term such as \(total-cost\)"),
        ("(increase (total-cost) ?b)", r"variable \?b stands for an object, not a number"),
        ("(increase (total-cost))", r"\(increase function-term expression\) expected"),
        ("(increase (total-costs) 1)", r"undeclared function 'total-costs'.*did you mean 'total-cost'"),
        ("(increase (hop-cost ?a) 1)", r"\(hop-cost \.\.\.\) takes 2 arguments, got 1"),
        ("(increase (at ?a) 1)", r"\(increase \.\.\.\) changes 'at', a predicate"),
        ("(increase (total-cost) (+ 1))", r"\(\+ \.\.\.\) takes two or more expressions"),
    ],
)
def test_a_bad_cost_effect_is_an_error_with_line_and_column(cost, message):
    d, p = hops(cost=cost)
    with pytest.raises(PddlError) as e:
        load_task(d, p)
    text = str(e.value)
    assert re.search(message, text), text
    line, col = map(int, re.search(r"line (\d+), column (\d+)", text).groups())
    assert line == 8 and d.splitlines()[line - 1][col - 1] in "(?t", text


@pytest.mark.parametrize(
    "init, message",
    [
        ("(= (hop-cost p) 3)", r"takes 2 arguments, got 1 in :init"),
        ("(= (hop-cost p r) x)", r"must be a number, found 'x'"),
        ("(= (hop-cost p r) 1) (= (hop-cost p r) 2)", r"a second initial value for \(hop-cost p r\)"),
        ("(= (hop-costs p r) 1)", r"undeclared function 'hop-costs'"),
    ],
)
def test_a_bad_initial_value_is_an_error_with_line_and_column(init, message):
    with pytest.raises(PddlError, match=r"problem line 4, column \d+: .*" + message):
        load_task(*hops(init=init))


def test_a_kept_task_keeps_its_costs_and_metric():
    family, problem = COST_PROBLEMS[0]
    task = load_task(CORPUS / family / "domain.pddl", problem).grounded
    restored = snapshot.loads(snapshot.dumps(task), task.domain_text)
    assert snapshot.fingerprint(restored) == snapshot.fingerprint(task)
    assert restored.metric == "cost" and [op.cost for op in restored.operators] == [op.cost for op in task.operators]
    assert restored.problem.num_init == task.problem.num_init and restored._grounder.costs is not None

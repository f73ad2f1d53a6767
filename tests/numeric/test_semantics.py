"""Numeric state (acptools.ground.numeric, numeric_semantics) against the independent oracle
(tests/support/numeric_oracle.py) on every numeric family of the corpus: along seeded walks the
applicable actions, the successor states (atoms, derived atoms and exact values), the goal test and the
reasons an action cannot apply (undefined values, division by zero) agree; states read back from their
text; plans validate the same way, also when broken at a step; propositional tasks keep their methods."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from acptools import examples, load_task
from acptools.errors import AcpError
from acptools.ground.grounded import GroundedTask
from tests.support.numeric_corpus import CORPUS, kind, numeric_families, problems, up_examples
from tests.support.numeric_oracle import load_task as load_oracle
from tests.support.numeric_oracle import parse_number

CASES = [(f, p) for f in numeric_families() for p in problems(f)]
IDS = [f"{f}/{p.stem}" for f, p in CASES]


def both(family, problem):
    domain = CORPUS / family / "domain.pddl"
    return load_task(domain, problem).grounded, load_oracle(domain, problem)


def as_oracle(task, state) -> set[str]:
    """Our state as the oracle's strings (its numbers are read back exactly)."""
    out = set()
    for entry in task.names(state):
        if entry.startswith("(= "):
            term, value = entry[3:-1].rsplit(" ", 1)
            out.add((term, Fraction(value)))
        else:
            out.add(entry)
    return out


def oracle_view(task, ostate, oracle) -> set:
    """The oracle's state restricted to what a state of ours holds: fluent and derived atoms and the
    numeric variables (static facts and values live in the task, the cost accumulator nowhere)."""
    atoms = {a for a in ostate.atoms | oracle.derived_atoms(ostate) if a in task.atom_name_index}
    values = {(k, v) for k, v in ostate.numbers if k in set(task.numeric.var_names)}
    return atoms | values


def walk(task, oracle, seed: int, steps: int = 25):
    """(our state, the oracle's) along a seeded random walk over the oracle's applicable actions."""
    rng = random.Random(seed)
    ours, theirs = task.init, oracle.init
    for _ in range(steps):
        yield ours, theirs
        choices = sorted(oracle.applicable(theirs))
        if not choices:
            return
        action = rng.choice(choices)
        ours = task.apply_op(task.op_for(task.parse_action(action), ours), ours)
        theirs = oracle.apply(theirs, action)


@pytest.mark.parametrize("family, problem", CASES, ids=IDS)
def test_walks_agree_with_the_oracle(family, problem):
    task, oracle = both(family, problem)
    assert task.numeric is not None and task.metric in ("cost", "length")
    for seed in range(3):
        for ours, theirs in walk(task, oracle, seed):
            assert {task.action_names[a] for a in task.applicable(ours)} == oracle.applicable(theirs)
            assert as_oracle(task, ours) == oracle_view(task, theirs, oracle)
            assert task.is_goal(ours) == oracle.is_goal(theirs)
            assert task.parse_state(task.names(ours)) == ours
            assert task.atoms_of(ours) == ours & task.atom_mask and len(task.values(ours)) == len(task.numeric.terms)


@pytest.mark.parametrize("family, problem", CASES, ids=IDS)
def test_reasons_name_undefined_values_and_division_by_zero(family, problem):
    task, oracle = both(family, problem)
    for ours, theirs in walk(task, oracle, 0, steps=10):
        for name in sorted(task.possible_actions()):
            why = oracle.explain(theirs, name)
            aid = task.parse_action(name)
            assert (task.op_for(aid, ours) is None) == (why is not None), name
            if why is not None and ("undefined" in why or "division" in why.lower()):
                said = " ".join(task.unsatisfied(aid, ours).describe())
                assert "has no value" in said or "division by zero" in said, (name, why, said)


SOLVED = [(f, p) for f, p in CASES if kind(p) == "solvable"]


@pytest.mark.parametrize("family, problem", SOLVED, ids=[f"{f}/{p.stem}" for f, p in SOLVED])
def test_plans_validate_like_the_oracle_also_when_broken(family, problem):
    task, oracle = both(family, problem)
    plan = oracle.search(node_limit=50_000).plan
    if plan is None:
        pytest.skip("the oracle's search did not finish")
    ids = task.parse_plan(plan)
    assert task.is_plan(ids, task.init)
    rng = random.Random(1)
    for _ in range(5):
        cut = rng.randrange(len(plan))
        broken = plan[:cut] + plan[cut + 1 :]
        check = oracle.validate(broken)
        bad, last = task.run(task.parse_plan(broken), task.init)
        assert bad == check.failed_at
        assert (bad is None and task.is_goal(last)) == (check.failed_at is None and check.goal_reached)


def test_a_state_lists_values_and_reads_them_back():
    task, _ = both("jugs-decimal", problems("jugs-decimal")[0])
    text = task.names(task.init)
    assert any(e.startswith("(= (") for e in text)
    assert task.parse_state(" ".join(text)) == task.init
    name = task.numeric.var_names[0]
    changed = task.parse_state([e for e in text if not e.startswith(f"(= {name} ")] + [f"(= {name} (/ 1 3))"])
    assert task.values(changed)[0] == Fraction(1, 3) and f"(= {name} 1/3)" in task.names(changed)
    without = task.parse_state([e for e in text if not e.startswith(f"(= {name} ")])
    assert task.values(without)[0] is None
    with pytest.raises(AcpError, match="not a numeric variable"):
        task.parse_state(text + ["(= (nosuch x) 1)"])
    with pytest.raises(AcpError, match="not a number"):
        task.parse_state([e for e in text if not e.startswith(f"(= {name} ")] + [f"(= {name} lots)"])


def test_a_propositional_task_keeps_its_methods():
    task = load_task(*examples.texts("ferry")).grounded
    assert task.numeric is None and task.atom_mask == -1 and task.values(task.init) == ()
    for name in ("apply_op", "op_for", "applicable_ops", "is_goal", "names", "parse_state"):
        assert getattr(type(task), name) is getattr(GroundedTask, name)
        assert name not in task.__dict__


def test_exact_values_survive_where_floats_drift():
    task, oracle = both("jugs-decimal", problems("jugs-decimal")[0])
    values = {v for ours, _ in walk(task, oracle, 2, steps=30) for v in task.values(ours) if v is not None}
    assert all(isinstance(v, Fraction) for v in values)
    assert parse_number("0.1") == Fraction(1, 10)


UP = up_examples()


@pytest.mark.parametrize("name, domain, problem", UP, ids=[n for n, _, _ in UP])
def test_unified_plannings_numeric_examples_agree_with_the_oracle(name, domain, problem):
    task, oracle = load_task(domain, problem).grounded, load_oracle(domain, problem)
    for ours, theirs in walk(task, oracle, 0, steps=20):
        assert {task.action_names[a] for a in task.applicable(ours)} == oracle.applicable(theirs)
        if task.numeric is not None:
            assert as_oracle(task, ours) == oracle_view(task, theirs, oracle)
        assert task.is_goal(ours) == oracle.is_goal(theirs)


def test_a_type_written_against_its_dash_is_read():
    domain = (
        "(define (domain d) (:types boat -object) (:predicates (at ?b -boat))"
        " (:action a :parameters (?b -boat) :precondition (at ?b) :effect (not (at ?b))))"
    )
    problem = "(define (problem p) (:domain d) (:objects b1 -boat) (:init (at b1)) (:goal (not (at b1))))"
    task = load_task(domain, problem)
    assert task.types.objects["b1"] == ("boat",) and task.action_names[task.applicable(task.init)[0]] == "(a b1)"


def test_a_comparison_of_constants_is_decided_at_grounding():
    domain = (
        "(define (domain c) (:predicates (p) (q))"
        " (:action yes :parameters () :precondition (> 2.5 (/ 1 2)) :effect (p))"
        " (:action no :parameters () :precondition (< 1 (- 1)) :effect (q))"
        " (:action never :parameters () :precondition (= 1 (/ 1 0)) :effect (q)))"
    )
    task = load_task(domain, "(define (problem c1) (:domain c) (:init) (:goal (p)))")
    assert task.grounded.numeric is None
    assert [task.action_names[a] for a in task.applicable(task.init)] == ["(yes)"]


@pytest.mark.parametrize(
    "ask",
    [lambda q, t: t.grounded.problem_for(t.init), lambda q, t: t.grounded.written_domain_text],
    ids=["problem_for", "writer"],
)
def test_outside_planners_never_see_a_numeric_task(ask):
    task = load_task(CORPUS / "zenotravel" / "domain.pddl", problems("zenotravel")[0])
    with pytest.raises(AcpError, match="unsupported on a task with numeric fluents"):
        ask(task.questions, task)

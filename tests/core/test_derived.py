"""Derived predicates (PDDL axioms): errors located where a domain breaks the rules, states that
carry the derived atoms, and the engine's parts on axiom tasks (relaxation, Fast Downward, SymK, the
written domain) against the independent oracle (tests/support/oracle.py evaluates axioms itself).
The eight questions on these domains are compared with the oracle in test_properties.py."""

from __future__ import annotations

import random
from functools import cache

import pytest

from acptools import AcpError, load_task
from acptools.budget import Budget
from acptools.errors import PddlError
from acptools.planners import fd, symk
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle

DERIVED = ("blocks-derived", "rooms-derived")
ROOMS = pddl_texts("rooms-derived")
EMPTY_PROBLEM = "(define (problem p) (:domain d) (:objects a b - thing) (:init) (:goal (and)))"


def _domain(body: str) -> str:
    return (
        "(define (domain d) (:requirements :derived-predicates :typing) (:types thing)\n"
        " (:predicates (p ?x - thing) (q ?x - thing) (r) (s) (e ?x ?y - thing))\n" + body + ")"
    )


def _where(text: str, needle: str, occurrence: int = 1) -> str:
    """'line L, column C' of the n-th occurrence of `needle` in `text`."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return f"line {line}, column {at - (text.rfind(chr(10), 0, at) + 1) + 1}"


@pytest.mark.parametrize(
    "body, needle, occurrence, what",
    [
        # a cycle through negation: the negated atom of the axiom that closes it is pointed at
        (
            " (:derived (p ?x) (not (q ?x)))\n (:derived (q ?x) (p ?x))\n (:action a :parameters () :effect (r))",
            "(q ?x)",
            1,
            "not stratified",
        ),
        (" (:derived (r) (not (r)))\n (:action a :parameters () :effect (s))", "(r)", 3, "not stratified"),
        (
            " (:derived (r) (s))\n (:action a :parameters () :effect (r))",
            "(r)",
            3,
            "derived predicate 'r' in an action's effect",
        ),
        (" (:derived (t) (s))\n (:action a :parameters () :effect (s))", "(t)", 1, "undeclared derived predicate 't'"),
        (" (:derived (p ?x ?x) (s))\n (:action a :parameters () :effect (s))", "(p ?x ?x)", 1, "takes 1 arguments"),
        (" (:derived (e ?x ?x) (s))\n (:action a :parameters () :effect (s))", "(e ?x ?x)", 1, "appears twice"),
        (" (:derived (p ?x) (q ?y))\n (:action a :parameters () :effect (s))", "?y", 2, "unbound variable ?y"),
        (
            " (:derived (p ?x) (and))\n (:derived (p) (s))\n (:action a :parameters () :effect (s))",
            "(p)",
            1,
            "takes 1 arguments",
        ),
    ],
)
def test_broken_axioms_are_errors_at_their_line_and_column(body, needle, occurrence, what):
    text = _domain(body)
    with pytest.raises(PddlError) as e:
        load_task(text, EMPTY_PROBLEM)
    assert what in str(e.value) and _where(text, needle, occurrence) in str(e.value), str(e.value)
    assert e.value.suggestion


def test_negation_across_strata_is_accepted_and_a_derived_atom_in_init_is_an_error():
    text = _domain(
        " (:derived (p ?x) (s))\n (:derived (q ?x) (not (p ?x)))\n (:derived (r) (exists (?x - thing) (q ?x)))\n"
        " (:action a :parameters () :effect (s))"
    )
    task = load_task(text, EMPTY_PROBLEM.replace("(:goal (and))", "(:goal (r))"))
    assert task.names(task.init) == ["(q a)", "(q b)", "(r)"]
    assert task.questions.optimal_next().h_star == 0
    after = task.questions.progress("(a)")
    assert set(after.positive_effects) == {"(p a)", "(p b)", "(s)"}
    assert set(after.negative_effects) == {"(q a)", "(q b)", "(r)"}
    problem = EMPTY_PROBLEM.replace("(:init)", "(:init\n  (q a))")
    with pytest.raises(PddlError) as e:
        load_task(text, problem)
    assert "derived predicate 'q' in :init" in str(e.value) and _where(problem, "(q a)") in str(e.value)


def test_states_get_their_derived_atoms_and_a_listed_one_must_follow():
    task = load_task(*ROOMS)
    state = task.parse_state(["(at hall)", "(on s2)"])
    assert {"(lit study)", "(lit attic)", "(dark hall)", "(dark kitchen)"} <= set(task.names(state))
    assert task.parse_state(["(at hall)", "(on s2)", "(lit attic)"]) == state
    with pytest.raises(AcpError) as e:
        task.parse_state(["(at hall)", "(lit hall)"])
    assert "(lit hall)" in str(e.value) and "state" in str(e.value)
    # a negated derived precondition: nobody walks into a dark room
    v = task.questions.validate(["(walk hall kitchen)"])
    assert v.first_inapplicable == 0 and v.unsatisfied_preconditions == ["(not (dark kitchen))"]


@cache
def _space(name: str):
    d, p = pddl_texts(name)
    task, oracle = load_task(d, p), Oracle(d, p)
    init = oracle.init_atoms()
    return task, oracle, oracle.graph(init), oracle.distances(init)


def _state(task, oracle, atoms):
    return task.parse_state(sorted(atoms - oracle.derived))


def _below(graph, start) -> set:
    """The states reachable from `start` in the oracle's graph (which holds every state below init)."""
    seen, todo = {start}, [start]
    while todo:
        for _, t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


@pytest.mark.parametrize("name", DERIVED)
def test_relaxation_with_axioms_over_approximates_and_h_max_is_admissible(name):
    task, oracle, graph, dist = _space(name)
    engine = task.questions.engine
    for k, atoms in enumerate(sorted(graph, key=sorted)):
        s = _state(task, oracle, atoms)
        assert set(task.names(s)) == atoms & oracle.fluent_atoms()
        h = engine.relax.hmax(s, task.goal)
        assert h <= dist.get(atoms, float("inf")), (sorted(atoms), h, dist.get(atoms))
        if k % 8 == 0:  # every atom of a state reachable from s is relaxed-reachable from s
            reached, _ = engine.relax.reachable(s)
            below = set().union(*_below(graph, atoms))
            assert below & oracle.fluent_atoms() <= set(task.names(reached))


@pytest.mark.parametrize("name", ["rooms-derived", pytest.param("blocks-derived", marks=pytest.mark.slow)])
def test_fast_downward_and_symk_get_the_axioms(name):
    task, oracle, graph, dist = _space(name)
    states = sorted(graph, key=sorted)
    random.Random(3).shuffle(states)
    for k, atoms in enumerate(states[:5]):
        s = _state(task, oracle, atoms)
        best = fd.solve(len(task.atoms), task.operators, s, task.goal, 60, axioms=task.axioms)
        assert best.heuristic == "blind" or best.plan == []
        assert (None if best.plan is None else len(best.plan)) == dist.get(atoms)
        assert best.proven_none == (atoms not in dist)
        some = fd.solve(len(task.atoms), task.operators, s, task.goal, 60, optimal=False, axioms=task.axioms)
        if some.plan is not None:
            end = oracle.run(atoms, [task.action_names[task.operators[i].action] for i in some.plan])
            assert end is not None and oracle.is_goal(end)
        else:
            assert some.proven_none and atoms not in dist
        if k < 2 and symk.available():
            res = symk.optimal_plan(task.written_domain_text, task.problem_for(s), Budget(60))
            assert (None if res.plan is None else len(res.plan)) == dist.get(atoms)


@pytest.mark.parametrize("name", DERIVED)
def test_the_written_domain_keeps_the_axioms(name):
    task, oracle, graph, dist = _space(name)
    again = load_task(task.written_domain_text, pddl_texts(name)[1])
    assert again.names(again.init) == task.names(task.init)
    assert again.questions.applicable() == task.questions.applicable()
    assert again.questions.optimal_next().h_star == dist.get(oracle.init_atoms())


def test_a_stratum_is_final_before_the_one_above_reads_it():
    """rooms-derived/chain.pddl: light spreads from a3 through two chains of windows, so the lower
    stratum (lit) needs several passes whatever the order of its ground axioms; dark, the stratum
    above, negates lit. Every state acptools reaches by its own progression holds what the oracle
    derives (never both (lit r) and (dark r)), the two state graphs are equal, and h* and the plan
    match the oracle."""
    texts = pddl_texts("rooms-derived", "chain.pddl")
    task, oracle = load_task(*texts), Oracle(*texts)
    init, fluent = oracle.init_atoms(), oracle.fluent_atoms()
    graph, dist = oracle.graph(init), oracle.distances(init)
    want = {atoms & fluent: {(a, t & fluent) for a, t in out} for atoms, out in graph.items()}
    got, todo = {}, [task.init]
    while todo:
        s = todo.pop()
        names = frozenset(task.names(s))
        if names in got:
            continue
        assert not any(f"(dark {a[5:]}" in names for a in names if a.startswith("(lit ")), sorted(names)
        got[names] = set()
        for a in task.applicable(s):
            t = task.apply_op(task.op_for(a, s), s)
            got[names].add((task.action_names[a], frozenset(task.names(t))))
            todo.append(t)
    assert got == want
    for atoms in graph:  # a state given by its basic atoms gets the same derived atoms
        assert set(task.names(_state(task, oracle, atoms))) == atoms & fluent
    nxt = task.questions.optimal_next(budget=30)
    assert nxt.h_star == dist[init] == 3 and len(nxt.plan) == 3 and oracle.is_goal(oracle.run(init, nxt.plan))


def test_too_many_ground_axioms_is_an_error_before_grounding_them():
    with pytest.raises(AcpError) as e:
        load_task(*pddl_texts("blocks-derived"), max_operators=20)
    assert "ground axioms" in str(e.value) and e.value.suggestion

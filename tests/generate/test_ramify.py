"""How the ARB variants are proven: ramification definitions hold in every reachable state (checked
here in the independent oracle's state space), a false candidate is refused, the compiled domain
has the same reachable states as the original (derived atoms included), and the at-most-one
invariants behind 'constrained' fluents hold in every state the oracle reaches."""

from __future__ import annotations

import pytest

from acptools import examples, load_task
from acptools.generate.fluent_kinds import classify
from acptools.generate.ramify import Definition, holds_everywhere, proven_definitions
from acptools.generate.ramify_pddl import compile_domain, compile_problem
from acptools.generate.states import reachable_states
from tests.support.oracle import Oracle

RAMIFIED = {"ferry": ["empty-ferry"], "gripper-strips": ["free"], "blocksworld-4ops": ["handempty"]}


def task(name):
    return load_task(*examples.texts(name))


def compiled(t, defs):
    return load_task(compile_domain(t.written_domain_text, defs), compile_problem(t.problem_for(t.init), defs))


@pytest.mark.parametrize("name", ["ferry", pytest.param("gripper-strips", marks=pytest.mark.exhaustive)])
def test_definitions_are_proven_and_compile_to_the_same_states(name):
    t = task(name)
    defs = proven_definitions([t])
    assert [d.predicate for d in defs] == RAMIFIED[name]
    c = compiled(t, defs)
    assert sorted(c.domain.derived) == RAMIFIED[name]
    assert "(:derived" in c.domain_text
    original = {tuple(t.names(s)) for s in reachable_states(t, 10**5)}
    assert {tuple(c.names(s)) for s in reachable_states(c, 10**5)} == original
    # the oracle (its own axiom evaluation) reaches the same states from the compiled PDDL
    o = Oracle(c.domain_text, c.problem_for(c.init))
    fluent = o.fluent_atoms()
    assert {tuple(sorted(s & fluent)) for s in o.graph(o.init_atoms())} == {tuple(sorted(s)) for s in original}


def test_a_false_candidate_is_refused():
    t = task("ferry")
    params = t.domain.predicates["empty-ferry"].params
    on = t.domain.predicates["on"].params
    states = reachable_states(t, 10**5)
    true = Definition("empty-ferry", params, "on", on, (), False)
    assert holds_everywhere(t, true, states)
    assert not holds_everywhere(t, Definition("empty-ferry", params, "on", on, (), True), states)
    assert true.text() == "(empty-ferry) holds exactly when (on ?y0) holds for no ?y0"


def test_nothing_is_compiled_beyond_the_state_limit(monkeypatch):
    import acptools.generate.ramify as ramify

    monkeypatch.setattr(ramify, "MAX_STATES", 10)
    assert proven_definitions([task("ferry")]) == []


def test_effects_lose_the_compiled_literals():
    t = task("ferry")
    text = compile_domain(t.written_domain_text, proven_definitions([t]))
    actions = text[text.index("(:action") :]
    assert "empty-ferry" in actions  # still a precondition of board
    assert "(not (empty-ferry))" not in actions and ":effect (and (on ?car) (not (at ?car ?loc)))" in actions


@pytest.mark.parametrize("name", ["ferry", pytest.param("gripper-strips", marks=pytest.mark.exhaustive)])
def test_constrained_invariants_hold_in_every_oracle_state(name):
    t = task(name)
    kinds = classify(t)
    assert kinds.constraints
    o = Oracle(*examples.texts(name))
    for pred, c in kinds.constraints.items():
        for s in o.graph(o.init_atoms()):
            seen = {}
            for atom in s:
                p, *args = atom[1:-1].split()
                if p == pred:
                    rest = tuple(args[: c.position] + args[c.position + 1 :])
                    assert rest not in seen, (pred, atom, seen[rest])
                    seen[rest] = atom


def test_constrained_on_a_compiled_task_by_exhaustive_search():
    t = task("ferry")
    kinds = classify(compiled(t, proven_definitions([t])))
    assert kinds.kind["empty-ferry"] == "derived"
    assert {c.how for c in kinds.constraints.values()} == {"exhaustive-search"}
    assert set(kinds.constraints) == set(classify(t).constraints)

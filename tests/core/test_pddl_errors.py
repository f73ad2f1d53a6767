"""Bad PDDL is refused with the line and column where the problem is written: semantic errors
(undeclared names found after parsing), duplicated sections and fields, a '(' with no ')'. And
`progress` on an action that static facts rule out names those facts."""

from __future__ import annotations

import re

import pytest

from acptools import PddlError, load_task
from acptools.examples import texts
from acptools.questions import Questions

DOMAIN, PROBLEM = texts("ferry")


def _error(domain: str = DOMAIN, problem: str = PROBLEM) -> str:
    with pytest.raises(PddlError) as e:
        load_task(domain, problem)
    return str(e.value)


def _position(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, column), 1-based, of the nth occurrence of needle in text."""
    at = [m.start() for m in re.finditer(re.escape(needle), text)][nth]
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def test_an_undeclared_predicate_in_an_action_is_located():
    domain = DOMAIN.replace("(not (at ?car ?loc))", "(not (att ?car ?loc))")
    line, col = _position(domain, "(att ?car")
    msg = _error(domain)
    assert f"domain line {line}, column {col}" in msg and "undeclared predicate 'att'" in msg
    assert "action board" in msg and "did you mean 'at'" in msg


def test_an_unbound_variable_and_an_undeclared_type_are_located():
    domain = DOMAIN.replace("(on ?car))", "(on ?cr))", 1)
    line, col = _position(domain, "?cr)")
    assert f"domain line {line}, column {col}: unbound variable ?cr" in _error(domain)
    for old in ("(at ?c - car ?l - location)", "(?car - car ?loc - location)"):  # a predicate's, an action's
        domain = DOMAIN.replace(old, old.replace("location", "locaton"), 1)
        line, col = _position(domain, "locaton")
        msg = _error(domain)
        assert f"domain line {line}, column {col}" in msg and "undeclared type 'locaton'" in msg


@pytest.mark.parametrize(
    "old, new, second, first",
    [
        (
            ":parameters (?from - location ?to - location)",
            ":parameters (?from - location ?to - location) :parameters (?x)",
            ":parameters (?x)",
            ":parameters (?from",
        ),
        (
            "(:action debark",
            "(:action board :parameters () :effect (and))\n    (:action debark",
            "(:action board :par",
            "(:action board\n",
        ),
        (
            "(:requirements :strips :typing)",
            "(:requirements :strips :typing) (:requirements :strips)",
            "(:requirements :strips)",
            "(:requirements :strips :typing)",
        ),
    ],
)
def test_a_duplicated_section_or_field_is_refused_where_it_repeats(old, new, second, first):
    assert old in DOMAIN
    domain = DOMAIN.replace(old, new, 1)
    line, col = _position(domain, second)
    line1, col1 = _position(domain, first)
    msg = _error(domain)
    assert f"domain line {line}, column {col}: a second" in msg and f"line {line1}, column {col1}" in msg


@pytest.mark.parametrize(
    "flag, message",
    [
        (":stirps", "unknown requirement ':stirps' (did you mean :strips?)"),
        (":fancy-stuff", "unknown requirement ':fancy-stuff'"),
        (":probabilistic-effects", "unsupported requirement :probabilistic-effects"),
        (":open-world", "unsupported requirement :open-world"),
    ],
)
def test_an_unknown_or_unhonourable_requirement_is_refused_where_it_is_written(flag, message):
    """A flag no PDDL version defines (a typo, another planner's extension) or one that changes what
    every state means is refused at its word, in the domain and in the problem; PDDL's own flags load."""
    domain = DOMAIN.replace("(:requirements :strips :typing)", f"(:requirements :strips {flag} :typing)", 1)
    line, col = _position(domain, flag)
    assert f"domain line {line}, column {col}: {message}" in _error(domain)
    problem = PROBLEM.replace("(:domain ferry)", f"(:domain ferry) (:requirements {flag})", 1)
    line, col = _position(problem, flag)
    assert f"problem line {line}, column {col}: {message}" in _error(problem=problem)
    every = "(:requirements :adl :derived-predicates :action-costs :numeric-fluents :timed-initial-literals :typing)"
    assert load_task(DOMAIN.replace("(:requirements :strips :typing)", every, 1), PROBLEM).key


@pytest.mark.parametrize(
    "types, first",
    [
        ("car location - thing thing - vehicle vehicle - car", "car location"),
        ("car - car2 car2 - car location", "car - car2"),
        ("object - car car location", "object - car"),
    ],
)
def test_a_cycle_of_types_is_refused_at_its_first_declaration(types, first):
    domain = re.sub(r"\(:types [^)]*\)", f"(:types {types})", DOMAIN, count=1)
    assert domain != DOMAIN
    line, col = _position(domain, first)
    msg = _error(domain)
    assert f"domain line {line}, column {col}: the types form a cycle: " in msg and "own ancestor" in msg, msg


def test_a_surplus_parenthesis_is_reported_where_it_opens():
    problem = PROBLEM.replace("(at c1 l1)", "((at c1 l1)", 1)
    line, col = _position(problem, "((at c1")
    msg = _error(problem=problem)
    assert f"problem line {line}, column {col}" in msg and "unclosed" in msg
    problem = PROBLEM.replace("(:goal (and", "(:goal (and (and", 1)  # the final ')' closes (:goal ...)
    line, col = _position(problem, "(:goal")
    msg = _error(problem=problem)
    assert f"problem line {line}, column {col}" in msg and "too many inside this (:goal" in msg
    domain = DOMAIN.replace("(empty-ferry))", "(empty-ferry)", 1)  # the first action's effect left open
    line, col = _position(domain, "(:action board")
    msg = _error(domain)
    assert f"domain line {line}, column {col}" in msg and "never closed" in msg


def test_progress_on_a_statically_impossible_action_names_the_false_static_facts():
    q = Questions(load_task(DOMAIN, PROBLEM).grounded)
    p = q.progress("(sail l1 l1)")
    assert not p.applicable and p.unsatisfied_preconditions
    static = {m.group(1) for m in re.finditer(r"\((\S+)", DOMAIN.split(":effect", 1)[0])}
    effects = " ".join(part.split(")\n", 1)[0] for part in DOMAIN.split(":effect")[1:])
    for atom in p.unsatisfied_preconditions:  # each is a static fact that the problem lacks
        pred = atom.strip("()").split()[0]
        assert pred in static and f"({pred}" not in effects and atom not in PROBLEM
    assert p.unsatisfied_preconditions == ["(not-eq l1 l1)"]

"""Tiny domains whose quantified formulas expand to hundreds of millions of cases (issue 39): an
action with no parameters, so the size is all in an `exists` of its precondition, an `exists` of a
derived predicate's body, or a `forall ... (when ...)` of its effect. Nothing but the formula is
large: a handful of fluent atoms over ``objects`` objects (`q` is fluent: `mark` sets it)."""

from __future__ import annotations


def _variables(k: int) -> str:
    return " ".join(f"?v{i}" for i in range(k))


MARK = "(:action mark :parameters (?x - obj) :precondition (and) :effect (q ?x))"


def _all_q(k: int) -> str:
    return " ".join(f"(q ?v{i})" for i in range(k))


def precondition_exists(k: int = 6) -> str:
    """An action whose precondition is `exists` over ``k`` variables of a conjunction of ``k`` atoms."""
    return (
        "(define (domain qpre) (:requirements :typing :existential-preconditions) (:types obj) "
        "(:predicates (q ?x - obj) (done)) (:action a :parameters () "
        f":precondition (exists ({_variables(k)} - obj) (and {_all_q(k)})) :effect (done)) " + MARK + ")"
    )


def derived_exists(k: int = 6) -> str:
    """A derived predicate whose body is `exists` over ``k`` variables; the one action needs it."""
    return (
        "(define (domain qder) (:requirements :typing :derived-predicates :existential-preconditions) "
        "(:types obj) (:predicates (q ?x - obj) (ok) (done)) "
        f"(:derived (ok) (exists ({_variables(k)} - obj) (and {_all_q(k)}))) "
        "(:action a :parameters () :precondition (ok) :effect (done)) " + MARK + ")"
    )


def forall_when_effect(k: int = 5) -> str:
    """An action whose effect is `forall` over ``k`` variables of a conditional effect."""
    return (
        "(define (domain qeff) (:requirements :typing :conditional-effects) (:types obj) "
        "(:predicates (q ?x - obj) (r ?x - obj) (done)) (:action a :parameters () :precondition (and) "
        f":effect (and (done) (forall ({_variables(k)} - obj) (when (and {_all_q(k)}) (r ?v0))))) " + MARK + ")"
    )


def problem(domain: str, objects: int = 30) -> str:
    """A problem of ``domain`` (one of the above) over ``objects`` objects: (q o0) holds, (done) is the goal."""
    name = domain.split("(domain ", 1)[1].split(")", 1)[0]
    objs = " ".join(f"o{i}" for i in range(objects))
    return f"(define (problem p) (:domain {name}) (:objects {objs} - obj) (:init (q o0)) (:goal (done)))"


CASES = {
    "precondition exists": precondition_exists,
    "derived-predicate exists": derived_exists,
    "forall/when effect": forall_when_effect,
}

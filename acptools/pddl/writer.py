"""Lifted model -> PDDL text, so outside planners can be asked about any state (and about the
task compiled so that only some ground actions may come first)."""

from __future__ import annotations

from fractions import Fraction


def typed_list(params) -> str:
    """Typed names (variables, objects or constants): `a - t b - (either t1 t2)`."""
    return " ".join(f"{v} - {t[0]}" if len(t) == 1 else f"{v} - (either {' '.join(t)})" for v, t in params)


def formula(f: tuple) -> str:
    """A formula as PDDL text."""
    tag = f[0]
    if tag == "atom":
        return "(" + " ".join((f[1],) + tuple(f[2])) + ")"
    if tag == "=":
        return f"(= {f[1]} {f[2]})"
    if tag == "true":
        return "(and)"
    if tag == "not":
        return f"(not {formula(f[1])})"
    if tag in ("and", "or"):
        return f"({tag} {' '.join(formula(g) for g in f[1])})"
    if tag == "imply":
        return f"(imply {formula(f[1])} {formula(f[2])})"
    if tag in ("forall", "exists"):
        return f"({tag} ({typed_list(f[1])}) {formula(f[2])})"
    if tag == "cmp":
        return f"({f[1]} {expression(f[2])} {expression(f[3])})"
    raise ValueError(f"cannot write formula {tag!r}")


def expression(e: tuple) -> str:
    """A numeric expression as PDDL text (a constant with no finite decimal as a division)."""
    tag = e[0]
    if tag == "num":
        return _number(e[1])
    if tag == "fn":
        return "(" + " ".join((e[1],) + tuple(e[2])) + ")"
    if tag == "neg":
        return f"(- {expression(e[1])})"
    return f"({tag} {expression(e[1])} {expression(e[2])})"


def _number(v: Fraction) -> str:
    """An exact decimal (2.5, -0.125) when the value has one, else `(/ n d)`."""
    places = 0
    while (v * 10**places).denominator != 1:
        places += 1
        if places > v.denominator.bit_length():  # not a finite decimal
            return f"(/ {v.numerator} {v.denominator})"
    scaled = abs(v.numerator) * 10**places // v.denominator
    whole, frac = divmod(scaled, 10**places)
    sign = "-" if v < 0 else ""
    return f"{sign}{whole}" if not places else f"{sign}{whole}.{str(frac).rjust(places, '0')}"


def effect(e: tuple, numeric: bool = False) -> str:
    """An effect as PDDL text. Numeric effects only with `numeric` (text for reading): a domain
    written for outside planners must never carry them, so there they raise ValueError."""
    tag = e[0]
    if tag == "add":
        return "(" + " ".join((e[1],) + tuple(e[2])) + ")"
    if tag == "del":
        return "(not (" + " ".join((e[1],) + tuple(e[2])) + "))"
    if tag == "and":
        return f"(and {' '.join(effect(x, numeric) for x in e[1])})"
    if tag == "forall":
        return f"(forall ({typed_list(e[1])}) {effect(e[2], numeric)})"
    if tag == "when":
        return f"(when {formula(e[1])} {effect(e[2], numeric)})"
    if tag == "num-eff" and numeric:
        return f"({e[1]} {expression(e[2])} {expression(e[3])})"
    raise ValueError(f"cannot write effect {tag!r}")


STARTED = "acptools-started"


def allowed_predicate(schema: str) -> str:
    """The gate predicate of a schema in the first-action-gated domain (which of its ground actions may come first)."""
    return f"acptools-allowed-{schema}"


def write_domain(domain, first_action_gate: bool = False) -> str:
    """The domain as PDDL (costs dropped: plan length is the cost). With `first_action_gate`, a plan
    may start only with a ground action listed as an `acptools-allowed-<schema>` fact: every action
    marks the plan started, and an unstarted plan needs the allowed fact."""
    if any(len(parents) > 1 for parents in domain.supertypes.values()):
        # an outside translator might read `either` supertypes differently: never risk a wrong task
        raise ValueError("a type with several parent types cannot be written for outside planners")
    types = " ".join(
        f"{t} - {parents[0]}" for t, parents in sorted(domain.supertypes.items()) if t != "object" and parents
    )
    constants = typed_list(sorted(domain.constants.items()))
    predicates = [f"({p.name} {typed_list(p.params)})" for p in domain.predicates.values()]
    actions = []
    for a in domain.actions.values():
        pre, eff = formula(a.precondition), effect(a.effect)
        if first_action_gate:
            variables = " ".join(v for v, _ in a.params)
            predicates.append(f"({allowed_predicate(a.name)} {typed_list(a.params)})")
            pre = f"(and {pre} (or ({STARTED}) ({allowed_predicate(a.name)} {variables})))"
            eff = f"(and {eff} ({STARTED}))"
        actions.append(
            f" (:action {a.name}\n  :parameters ({typed_list(a.params)})\n  :precondition {pre}\n  :effect {eff})"
        )
    if first_action_gate:
        predicates.append(f"({STARTED})")
    axioms = [f" (:derived ({a.predicate} {typed_list(a.params)})\n  {formula(a.body)})" for a in domain.axioms]
    return (
        f"(define (domain {domain.name})\n (:requirements :typing :negative-preconditions :equality "
        f":disjunctive-preconditions :existential-preconditions :universal-preconditions "
        f":conditional-effects{' :derived-predicates' if axioms else ''})\n (:types {types})\n"
        f" (:constants {constants})\n (:predicates {' '.join(predicates)})\n" + "\n".join(axioms + actions) + ")\n"
    )


def write_problem(problem, domain_name: str, true_atoms) -> str:
    """The problem with `true_atoms` (pairs of predicate and arguments) as its initial state."""
    objects = typed_list(sorted(problem.objects.items()))
    init = " ".join("(" + " ".join((p,) + tuple(a)) + ")" for p, a in sorted(true_atoms))
    return (
        f"(define (problem {problem.name})\n (:domain {domain_name})\n (:objects {objects})\n"
        f" (:init {init})\n (:goal {formula(problem.goal)}))\n"
    )

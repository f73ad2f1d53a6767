"""Lifted model -> PDDL problem text, so outside planners can be asked about any state."""

from __future__ import annotations


def _params(params) -> str:
    return " ".join(f"{v} - {t[0]}" if len(t) == 1 else f"{v} - (either {' '.join(t)})" for v, t in params)


def formula(f: tuple) -> str:
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
        return f"({tag} ({_params(f[1])}) {formula(f[2])})"
    raise ValueError(f"cannot write formula {tag!r}")


def write_problem(problem, domain_name: str, true_atoms) -> str:
    """The problem with `true_atoms` (pairs of predicate and arguments) as its initial state."""
    objects = " ".join(f"{o} - {t[0]}" if len(t) == 1 else f"{o} - (either {' '.join(t)})"
                       for o, t in sorted(problem.objects.items()))
    init = " ".join("(" + " ".join((p,) + tuple(a)) + ")" for p, a in sorted(true_atoms))
    return (f"(define (problem {problem.name})\n (:domain {domain_name})\n (:objects {objects})\n"
            f" (:init {init})\n (:goal {formula(problem.goal)}))\n")

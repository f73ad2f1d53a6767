"""Grounding for the numeric oracle: every type-correct instance of every action schema, compiled with
numeric_compile.Compiler; instances whose precondition folds to False on static facts are dropped."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from unified_planning.model import OperatorKind as Op

from tests.support.numeric_compile import Compiler, fluent_key, is_constant
from tests.support.numeric_pddl import probe_action_name

PROBE_PREFIX = probe_action_name("")


@dataclass(frozen=True)
class GroundEffect:
    target: str  # "(f a)"
    kind: str  # "bool", "assign", "increase" or "decrease"
    value: object  # compiled
    condition: object  # compiled


@dataclass(frozen=True)
class GroundAction:
    name: str  # "(move a b)"
    pre: object  # compiled
    effects: tuple[GroundEffect, ...]
    cost: object  # compiled, or None where the metric gives actions no cost expression
    trigger: str | None = None  # an atom the precondition requires (successor generation's index)


def _bindings(problem, parameters):
    names = [p.name for p in parameters]
    domains = [[o.name.lower() for o in problem.objects(p.type)] for p in parameters]
    for combo in itertools.product(*domains):
        yield combo, dict(zip(names, combo))


def conjuncts(nodes):
    """The conjuncts of a list of conditions, top-level `and`s flattened."""
    for node in nodes:
        if node.node_type == Op.AND:
            yield from conjuncts(node.args)
        else:
            yield node


def _precondition(compiler: Compiler, action, binding):
    """The compiled precondition, or False as soon as one conjunct folds to False."""
    parts = []
    for pre in conjuncts(action.preconditions):
        compiled = compiler.compile(pre, binding)
        if is_constant(compiled) and not compiled:
            return False
        parts.append(compiled)
    return Compiler._junction(True, parts)


def _effects(compiler: Compiler, problem, action, binding) -> tuple[GroundEffect, ...]:
    out = []
    for e in action.effects:
        variables = list(e.forall)
        domains = [[o.name.lower() for o in problem.objects(v.type)] for v in variables]
        for combo in itertools.product(*domains):
            inner = dict(binding)
            inner.update({v.name: o for v, o in zip(variables, combo)})
            condition = compiler.compile(e.condition, inner)
            if is_constant(condition) and not condition:
                continue
            target = fluent_key(e.fluent.fluent().name, [compiler.compile(a, inner) for a in e.fluent.args])
            kind = (
                "bool"
                if e.fluent.fluent().type.is_bool_type()
                else "assign"
                if e.is_assignment()
                else "increase"
                if e.is_increase()
                else "decrease"
            )
            out.append(GroundEffect(target, kind, compiler.compile(e.value, inner), condition))
    return tuple(out)


def ground_actions(problem, compiler: Compiler, cost_of) -> dict[str, GroundAction]:
    """Ground action name -> GroundAction, for every schema but the derived-predicate probes."""
    out = {}
    for action in problem.actions:
        if action.name.startswith(PROBE_PREFIX):
            continue
        cost_node = cost_of(action)
        for combo, binding in _bindings(problem, action.parameters):
            pre = _precondition(compiler, action, binding)
            if is_constant(pre) and not pre:
                continue
            name = fluent_key(action.name, combo)
            cost = None if cost_node is None else compiler.compile(cost_node, binding)
            out[name] = GroundAction(
                name, pre, _effects(compiler, problem, action, binding), cost, _trigger(compiler, action, binding)
            )
    return out


def _trigger(compiler: Compiler, action, binding) -> str | None:
    for pre in conjuncts(action.preconditions):
        if pre.is_fluent_exp() and pre.fluent().type.is_bool_type() and pre.fluent().name not in compiler.static:
            return fluent_key(pre.fluent().name, [compiler.compile(a, binding) for a in pre.args])
    return None


def ground_derived(problem, compiler: Compiler) -> dict[str, object]:
    """Derived atom "(p a)" -> its compiled body (from the probe actions numeric_pddl adds)."""
    out = {}
    for action in problem.actions:
        if action.name.startswith(PROBE_PREFIX):
            predicate = action.name[len(PROBE_PREFIX) :]
            for combo, binding in _bindings(problem, action.parameters):
                out[fluent_key(predicate, combo)] = _precondition(compiler, action, binding)
    return out


def fluents_in(node) -> set[str]:
    """Names of the fluents an expression reads."""
    found, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.is_fluent_exp():
            found.add(n.fluent().name)
        stack.extend(n.args)
    return found


def read_fluents(problem) -> set[str]:
    """Fluents read by a precondition, an effect's condition or value, or the goal."""
    found: set[str] = set()
    for action in problem.actions:
        for pre in action.preconditions:
            found |= fluents_in(pre)
        for e in action.effects:
            found |= fluents_in(e.condition) | fluents_in(e.value)
            for a in e.fluent.args:
                found |= fluents_in(a)
    for g in problem.goals:
        found |= fluents_in(g)
    return found


def linear(node) -> bool:
    """A sum of constant multiples of fluents (so its change along a step does not depend on the
    values of the fluents it sums)."""
    if node.is_int_constant() or node.is_real_constant() or node.is_fluent_exp():
        return True
    if node.node_type in (Op.PLUS, Op.MINUS):
        return all(linear(a) for a in node.args)
    if node.node_type == Op.TIMES:
        variable = [a for a in node.args if fluents_in(a)]
        return len(variable) <= 1 and all(linear(a) for a in variable)
    if node.node_type == Op.DIV:
        return not fluents_in(node.arg(1)) and linear(node.arg(0))
    return False

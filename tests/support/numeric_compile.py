"""Unified-planning expressions compiled into exact Python evaluators for the numeric oracle.

A compiled expression is either a constant (bool, Fraction, object name) or a function of a state's
(atoms, values) pair. Action parameters and quantified variables are bound at compile time, quantifiers
are expanded over the problem's objects, and static predicates and functions (never the target of an
effect) are read from the initial state, so a ground action whose precondition folds to False is never
built. Every number is a Fraction: no float ever enters an evaluation. Reading a fluent that has no value,
or dividing by zero, raises Undefined (PDDL 2.1: the value is undefined). Shares no code with acptools."""

from __future__ import annotations

import itertools
from fractions import Fraction

from unified_planning.model import OperatorKind as Op


class Undefined(ArithmeticError):
    """An expression read a fluent without a value or divided by zero."""


def fluent_key(name: str, args) -> str:
    return "(" + " ".join([name.lower(), *[str(a).lower() for a in args]]) + ")"


def is_constant(compiled) -> bool:
    return not callable(compiled)


def evaluate(compiled, atoms, values):
    return compiled if is_constant(compiled) else compiled(atoms, values)


def _undefined(reason: str):
    def fail(atoms, values):
        raise Undefined(reason)

    return fail


def _read_number(key: str):
    def read(atoms, values):
        value = values.get(key)
        if value is None:
            raise Undefined(f"{key} has no value")
        return value

    return read


def _arith(op, parts):
    if all(is_constant(p) for p in parts):
        return op([*parts])
    return lambda atoms, values: op([evaluate(p, atoms, values) for p in parts])


def _divide(args):
    if args[1] == 0:
        raise Undefined("division by zero")
    return args[0] / args[1]


def _safe_divide(parts):
    if all(is_constant(p) for p in parts) and parts[1] == 0:
        return _undefined("division by zero")
    return _arith(_divide, parts)


def _sum(args):
    return sum(args, Fraction(0))


def _product(args):
    out = Fraction(1)
    for a in args:
        out *= a
    return out


COMPARISONS = {Op.LE: lambda a, b: a <= b, Op.LT: lambda a, b: a < b, Op.EQUALS: lambda a, b: a == b}


class Compiler:
    """Compiles the FNodes of one problem, given its objects, init and which fluents are static."""

    def __init__(
        self, problem, init_atoms: frozenset[str], init_values: dict[str, Fraction], static: set[str], number=Fraction
    ):
        self.problem = problem
        self.number = number  # how constants are read: Fraction (exact); float only to show what floats get wrong
        self.init_atoms = init_atoms
        self.init_values = init_values
        self.static = static

    def compile(self, node, binding: dict[str, str]):
        kind = node.node_type
        if kind in (Op.AND, Op.OR):
            return self._junction(kind == Op.AND, [self.compile(a, binding) for a in node.args])
        if kind == Op.NOT:
            return self._negation(node.arg(0), binding)
        if kind == Op.IMPLIES:
            return self._junction(False, [self._negation(node.arg(0), binding), self.compile(node.arg(1), binding)])
        if kind == Op.IFF:
            left, right = (self.compile(a, binding) for a in node.args)
            return self._comparison_of(lambda a, b: bool(a) == bool(b), left, right)
        if kind in (Op.EXISTS, Op.FORALL):
            return self._quantifier(node, binding)
        if kind in COMPARISONS:
            return self._comparison(COMPARISONS[kind], node, binding)
        if kind in (Op.PLUS, Op.MINUS, Op.TIMES, Op.DIV):
            return self._arithmetic(kind, [self.compile(a, binding) for a in node.args])
        return self._leaf(node, binding)

    def _leaf(self, node, binding):
        if node.is_bool_constant():
            return node.bool_constant_value()
        if node.is_int_constant() or node.is_real_constant():
            return self.number(node.constant_value())
        if node.is_object_exp():
            return node.object().name.lower()
        if node.is_parameter_exp():
            return binding[node.parameter().name]
        if node.is_variable_exp():
            return binding[node.variable().name]
        if node.is_fluent_exp():
            return self._fluent(node, binding)
        raise NotImplementedError(f"the numeric oracle does not evaluate {node.node_type}: {node}")

    def _fluent(self, node, binding):
        fluent = node.fluent()
        key = fluent_key(fluent.name, [self.compile(a, binding) for a in node.args])
        if fluent.type.is_bool_type():
            if fluent.name in self.static:
                return key in self.init_atoms
            return lambda atoms, values: key in atoms
        if fluent.name in self.static:
            value = self.init_values.get(key)
            return _undefined(f"{key} has no value") if value is None else value
        return _read_number(key)

    @staticmethod
    def _junction(is_and: bool, parts):
        kept = []
        for p in parts:
            if is_constant(p):
                if bool(p) != is_and:
                    return not is_and
            else:
                kept.append(p)
        if not kept:
            return is_and
        if len(kept) == 1:
            return kept[0]
        # every part is evaluated (no short cut), so a part reading an undefined value fails the whole
        # condition whatever the order of the parts
        if is_and:
            return lambda atoms, values: all([p(atoms, values) for p in kept])
        return lambda atoms, values: any([p(atoms, values) for p in kept])

    def _quantifier(self, node, binding):
        variables = node.variables()
        domains = [[o.name.lower() for o in self.problem.objects(v.type)] for v in variables]
        parts = []
        for combo in itertools.product(*domains):
            inner = dict(binding)
            inner.update({v.name: o for v, o in zip(variables, combo)})
            parts.append(self.compile(node.arg(0), inner))
        return self._junction(node.node_type == Op.FORALL, parts)

    def _negation(self, node, binding):
        inner = self.compile(node, binding)
        return (not inner) if is_constant(inner) else (lambda atoms, values: not inner(atoms, values))

    def _comparison(self, test, node, binding):
        left, right = (self.compile(a, binding) for a in node.args)
        return self._comparison_of(test, left, right)

    @staticmethod
    def _comparison_of(test, left, right):
        if is_constant(left) and is_constant(right):
            return test(left, right)
        return lambda atoms, values: test(evaluate(left, atoms, values), evaluate(right, atoms, values))

    @staticmethod
    def _arithmetic(kind, parts):
        if kind == Op.PLUS:
            return _arith(_sum, parts)
        if kind == Op.TIMES:
            return _arith(_product, parts)
        if kind == Op.MINUS:
            return _arith(lambda a: a[0] - a[1], parts)
        return _safe_divide(parts)

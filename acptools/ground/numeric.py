"""Numeric state (PDDL 2.1 level 2): numeric variables, ground comparisons, exact values in the state int.

- A function no effect changes is static: its ground terms are read from :init and substituted at
  grounding. A cost accumulator (costs.py) is not state. Every other ground function term is a numeric
  variable, numbered 0..V-1 (functions by name, arguments in type order).
- A ground comparison `(< (fuel t1) 5)` is an atom of the task whose truth the values decide: it is set
  in a state exactly when its value is defined and true, so preconditions, goals, `when` conditions and
  axiom bodies keep their DNF over atom bits. No operator adds one; the values set them.
- A state is an int: the low `n_atoms` bits are the atoms (comparison atoms included), the values are
  packed above them as the little-endian bytes of "v0;v1;...;\\x01" (each value `n` or `n/d` in lowest
  terms, empty when undefined): canonical, so equal states are equal ints.
- PDDL 2.1's undefined values: an operator that reads a variable without a value (in its precondition,
  an effect's condition or value, or the target of increase/decrease) is not applicable; nor is one whose
  effect divides by zero. Effects read the old state; increases and decreases of one variable add up; an
  assign together with another update of the same variable is an error of the domain (`NumericError`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ..errors import AcpError
from ..pddl.model import Domain, Problem
from .costs import accumulators, changed_functions
from .names import render

COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}
NEGATED = {"<": ">=", "<=": ">", "=": None, ">=": "<", ">": "<="}
CACHE_SIZE = 4096  # decoded value vectors kept per task


class Undefined(Exception):
    """A numeric variable (or static term) without a value was read."""


class NumericError(AcpError):
    """An action's effects contradict each other in a state (two updates of one variable, one an assign)."""


@dataclass(frozen=True, slots=True)
class NumericOp:
    """The numeric part of a ground operator: the variables it reads (all must be defined for it to apply),
    its unconditional numeric effects (var, kind, expression) and conditional ones ((DNF, (var, kind, expr)))."""

    reads: frozenset
    effects: tuple
    conds: tuple


def _fold(op: str, a, b):
    if a[0] == "c" and b[0] == "c":
        x, y = a[1], b[1]
        if op == "/" and y == 0:
            return (op, a, b)  # kept: evaluating it makes the action inapplicable
        return ("c", x + y if op == "+" else x - y if op == "-" else x * y if op == "*" else x / y)
    return (op, a, b)


def evaluate(e: tuple, values) -> Fraction:
    """The exact value of a compiled expression; Undefined or ZeroDivisionError when it has none."""
    tag = e[0]
    if tag == "c":
        return e[1]
    if tag == "v":
        v = values[e[1]]
        if v is None:
            raise Undefined(e[1])
        return v
    if tag == "neg":
        return -evaluate(e[1], values)
    a, b = evaluate(e[1], values), evaluate(e[2], values)
    if tag == "+":
        return a + b
    if tag == "-":
        return a - b
    if tag == "*":
        return a * b
    return a / b


def variables_of(e: tuple, out: set) -> set:
    tag = e[0]
    if tag == "v":
        out.add(e[1])
    elif tag != "c":
        for part in e[1:]:
            variables_of(part, out)
    return out


def number_text(v: Fraction) -> str:
    """An exact decimal when the value has one (3, 2.5, -0.125), else n/d (1/3)."""
    if v.denominator == 1:
        return str(v.numerator)
    d, twos, fives = v.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return f"{v.numerator}/{v.denominator}"
    places = max(twos, fives)
    scaled = abs(v.numerator) * (10**places // v.denominator)
    whole, frac = divmod(scaled, 10**places)
    return f"{'-' if v < 0 else ''}{whole}.{str(frac).rjust(places, '0').rstrip('0')}"


def has_numeric_state(domain: Domain, problem: Problem) -> bool:
    """Whether the task has numeric variables or comparisons (more than action costs)."""
    if not domain.functions:
        return False
    acc = accumulators(domain, problem)
    return bool(set(changed_functions(domain)) - acc) or _reads_any(domain, problem)


def _reads_any(domain: Domain, problem: Problem) -> bool:
    from .costs import read_functions

    return bool(read_functions(domain, problem, effects=False))


class NumericTask:
    """The numeric model of one task: variables, static values, comparison atoms and the state encoding."""

    def __init__(self, domain: Domain, problem: Problem, types):
        changed = changed_functions(domain)
        self.accumulators = accumulators(domain, problem)
        self.static = frozenset(f for f in domain.functions if f not in changed)
        self.static_values = {k: v for k, v in problem.num_init.items() if k[0] in self.static}
        terms = []
        for fname in sorted(domain.functions):
            if fname in self.static or fname in self.accumulators:
                continue
            for args in itertools.product(*(types.of(t) for _, t in domain.functions[fname].params)):
                terms.append((fname, args))
        self.terms = terms
        self.var_ids = {t: i for i, t in enumerate(terms)}
        self.var_names = [render(f, a) for f, a in terms]
        self.init_values = tuple(problem.num_init.get(t) for t in terms)
        self.comparisons: dict[int, tuple] = {}  # atom id -> (op, lhs, rhs) compiled
        self.n_atoms = 0  # set once the atoms are numbered
        self.comparison_mask = 0  # the comparison atoms' bits, set with n_atoms
        self._decoded: dict[int, tuple] = {}

    # ---- grounding ----------------------------------------------------------------------------
    def compile(self, e: tuple, binding: dict) -> tuple:
        """A lifted expression under a binding: ("c", value) / ("v", id) / (op, a, b) / ("neg", a);
        raises Undefined for a static term without a value."""
        tag = e[0]
        if tag == "num":
            return ("c", e[1])
        if tag == "fn":
            key = (e[1], tuple(binding.get(a, a) for a in e[2]))
            if e[1] in self.static:
                v = self.static_values.get(key)
                if v is None:
                    raise Undefined(key)
                return ("c", v)
            i = self.var_ids.get(key)
            if i is None:
                raise AcpError(f"{render(*key)} is not a numeric variable of the task", "grounding")
            return ("v", i)
        if tag == "neg":
            inner = self.compile(e[1], binding)
            return ("c", -inner[1]) if inner[0] == "c" else ("neg", inner)
        return _fold(tag, self.compile(e[1], binding), self.compile(e[2], binding))

    def undefined_statics(self, node, binding: dict, out: list[str]) -> list[str]:
        """The static function terms without a value that a formula or effect reads under a binding."""
        if isinstance(node, tuple) and node:
            if node[0] == "fn" and len(node) == 3 and isinstance(node[2], tuple):
                key = (node[1], tuple(binding.get(a, a) for a in node[2]))
                if (
                    node[1] in self.static
                    and key not in self.static_values
                    and not any(str(a).startswith("?") for a in key[1])
                ):
                    out.append(f"{render(*key)} has no value")
                return out
            for part in node:
                self.undefined_statics(part, binding, out)
        return out

    def render_expr(self, e: tuple) -> str:
        tag = e[0]
        if tag == "c":
            return number_text(e[1])
        if tag == "v":
            return self.var_names[e[1]]
        if tag == "neg":
            return f"(- {self.render_expr(e[1])})"
        return f"({tag} {self.render_expr(e[1])} {self.render_expr(e[2])})"

    def comparison(self, f: tuple, binding: dict):
        """A ground comparison: True/False when the values cannot change it (None: it reads an
        undefined static value), else (atom, compiled) with atom the (op, (lhs, rhs)) naming it."""
        try:
            lhs, rhs = self.compile(f[2], binding), self.compile(f[3], binding)
        except Undefined:
            return None
        if lhs[0] == "c" and rhs[0] == "c":
            return COMPARE[f[1]](lhs[1], rhs[1])
        return (f[1], (self.render_expr(lhs), self.render_expr(rhs))), (f[1], lhs, rhs)

    def effect(self, e: tuple, binding: dict):
        """(var id, kind, compiled value) of a numeric effect on a variable; for a cost increase, the
        variables its value reads (they must be defined, though the increase changes no state)."""
        term = e[2]
        if term[1] in self.accumulators:
            return variables_of(self.compile(e[3], binding), set())
        key = (term[1], tuple(binding.get(a, a) for a in term[2]))
        return (self.var_ids[key], e[1], self.compile(e[3], binding))

    # ---- states -------------------------------------------------------------------------------
    @property
    def atom_mask(self) -> int:
        return (1 << self.n_atoms) - 1

    def encode(self, values) -> int:
        text = ";".join("" if v is None else f"{v.numerator}/{v.denominator}" for v in values)
        return int.from_bytes(text.encode() + b"\x01", "little") << self.n_atoms

    def values(self, state: int) -> tuple:
        packed = state >> self.n_atoms
        hit = self._decoded.get(packed)
        if hit is None:
            raw = packed.to_bytes((packed.bit_length() + 7) // 8, "little")[:-1].decode()
            hit = tuple(None if not w else Fraction(w) for w in raw.split(";")) if self.terms else ()
            if len(self._decoded) >= CACHE_SIZE:
                self._decoded.clear()
            self._decoded[packed] = hit
        return hit

    def comparison_bits(self, values) -> int:
        """The comparison atoms that hold (defined and true) under `values`."""
        out = 0
        for i, (op, lhs, rhs) in self.comparisons.items():
            try:
                if COMPARE[op](evaluate(lhs, values), evaluate(rhs, values)):
                    out |= 1 << i
            except (Undefined, ZeroDivisionError):
                pass
        return out

    def reads_of(self, atoms_mask: int) -> set:
        """The variables the comparison atoms in a mask read."""
        out: set = set()
        for i, (_, lhs, rhs) in self.comparisons.items():
            if atoms_mask >> i & 1:
                variables_of(lhs, out)
                variables_of(rhs, out)
        return out

    def updated(self, op: NumericOp, state: int, values) -> tuple:
        """The values after `op`'s numeric effects (read in the old state); raises Undefined,
        ZeroDivisionError or NumericError when the action cannot apply."""
        for v in op.reads:
            if values[v] is None:
                raise Undefined(v)
        active = list(op.effects)
        for dnf, eff in op.conds:
            if any(state & p == p and not state & n for p, n in dnf):
                active.append(eff)
        if not active:
            return values
        assigned: dict[int, Fraction] = {}
        delta: dict[int, Fraction] = {}
        for var, kind, expr in active:
            value = evaluate(expr, values)
            if kind == "assign":
                if var in assigned or var in delta:
                    raise NumericError(f"two updates of {self.var_names[var]} in one step, one an assign", "effects")
                assigned[var] = value
                continue
            if var in assigned:
                raise NumericError(f"two updates of {self.var_names[var]} in one step, one an assign", "effects")
            if values[var] is None:
                raise Undefined(var)
            if kind in ("increase", "decrease"):
                delta[var] = delta.get(var, 0) + (value if kind == "increase" else -value)
            else:
                if var in delta or var in assigned:
                    raise NumericError(f"two updates of {self.var_names[var]} in one step", "effects")
                assigned[var] = values[var] * value if kind == "scale-up" else values[var] / value
        out = list(values)
        for var, value in assigned.items():
            out[var] = value
        for var, d in delta.items():
            out[var] = values[var] + d
        return tuple(out)

    def why_not(self, op: NumericOp, state: int, values) -> str | None:
        """Why the numeric part of `op` cannot apply in the state, None when it can."""
        try:
            self.updated(op, state, values)
        except Undefined as e:
            return f"{self.var_names[e.args[0]]} has no value" if isinstance(e.args[0], int) else "an undefined value"
        except ZeroDivisionError:
            return "a division by zero"
        except NumericError as e:
            return e.what
        return None

    def entries(self, values) -> list[str]:
        """`(= (f o) v)` for each defined variable, in variable order."""
        return [f"(= {n} {number_text(v)})" for n, v in zip(self.var_names, values, strict=True) if v is not None]

    def changes(self, before, after) -> list[str]:
        """`(f o): old -> new` for each variable whose value differs ("undefined" for no value)."""
        show = lambda v: "undefined" if v is None else number_text(v)  # noqa: E731
        return [
            f"{self.var_names[i]}: {show(a)} -> {show(b)}"
            for i, (a, b) in enumerate(zip(before, after, strict=True))
            if a != b
        ]


def constant_comparison(f: tuple) -> bool | None:
    """A comparison that reads no function: its truth (None when it divides by zero)."""

    def value(e: tuple) -> Fraction:
        tag = e[0]
        if tag == "num":
            return e[1]
        if tag == "neg":
            return -value(e[1])
        a, b = value(e[1]), value(e[2])
        return a + b if tag == "+" else a - b if tag == "-" else a * b if tag == "*" else a / b

    try:
        return COMPARE[f[1]](value(f[2]), value(f[3]))
    except ZeroDivisionError:
        return None

"""Action costs: the cost accumulators, each ground operator's cost, and the task's metric.

A numeric function that actions only ever increase, and that no condition, goal or other effect reads
(`total-cost` in :action-costs domains), is not part of the state: its increases are the operators'
costs. An operator's cost is the sum of its unconditional increases of the accumulator the metric
minimizes, each a constant or an expression over static functions (no effect changes them), evaluated
exactly at grounding. A static value the expression reads but :init leaves undefined makes that ground
action inapplicable (PDDL 2.1), so its binding is ruled out like one a static fact rules out.

The metric is "cost" when the problem minimizes one accumulator and every cost is fixed and can never be
negative; otherwise "length" (plan length), with `reason` saying why a written metric is not used.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import PddlError
from ..pddl.model import Domain, Problem

UNDEFINED = None  # the cost of a binding whose cost expression reads an undefined static value


class _Undefined(Exception):
    """A static function term without an initial value."""


def _effect_parts(e: tuple, inside: str = ""):
    """(numeric effect, "when" / "forall" / "" for what it stands inside) for every numeric effect."""
    tag = e[0]
    if tag == "num-eff":
        yield e, inside
    elif tag == "and":
        for g in e[1]:
            yield from _effect_parts(g, inside)
    elif tag == "forall":
        yield from _effect_parts(e[2], inside or "forall")
    elif tag == "when":
        yield from _effect_parts(e[2], "when")


def _functions_in(node, out: set[str]) -> set[str]:
    """The functions a formula or numeric expression reads, added to `out`."""
    if isinstance(node, tuple) and node:
        if node[0] == "fn":
            out.add(node[1])
            return out
        for part in node[1:]:
            _functions_in(part, out)
    return out


def _conditions(e: tuple):
    """The `when` conditions of an effect tree."""
    tag = e[0]
    if tag == "and":
        for g in e[1]:
            yield from _conditions(g)
    elif tag == "forall":
        yield from _conditions(e[2])
    elif tag == "when":
        yield e[1]
        yield from _conditions(e[2])


def changed_functions(domain: Domain) -> dict[str, set[str]]:
    """Function -> the numeric effect operators (assign, increase, ...) that change it somewhere."""
    changed: dict[str, set[str]] = {}
    for a in domain.actions.values():
        for eff, _ in _effect_parts(a.effect):
            changed.setdefault(eff[2][1], set()).add(eff[1])
    return changed


def read_functions(domain: Domain, problem: Problem, effects: bool = True) -> set[str]:
    """Functions read by a precondition, a `when` condition, an axiom body, the goal or (with
    `effects`) an effect's value."""
    read: set[str] = set()
    for a in domain.actions.values():
        _functions_in(a.precondition, read)
        for cond in _conditions(a.effect):
            _functions_in(cond, read)
        for eff, _ in _effect_parts(a.effect) if effects else ():
            _functions_in(eff[3], read)
    for ax in domain.axioms:
        _functions_in(ax.body, read)
    _functions_in(problem.goal, read)
    return read


def accumulators(domain: Domain, problem: Problem) -> frozenset[str]:
    """Functions that are only increased and never read (see the module docstring)."""
    read = read_functions(domain, problem)
    return frozenset(f for f, ops in changed_functions(domain).items() if ops == {"increase"} and f not in read)


class CostModel:
    """The cost of each ground action (by schema and binding) and the task's metric, made once per task."""

    def __init__(self, domain: Domain, problem: Problem):
        self.accumulators = accumulators(domain, problem)
        changed = changed_functions(domain)
        self.static = frozenset(f for f in domain.functions if f not in changed)
        self.values = problem.num_init
        target = _metric_target(problem, self.accumulators)
        # schema -> (parameter names, [cost expression of each unconditional increase of the target])
        self.increases: dict[str, tuple[tuple[str, ...], list[tuple]]] = {}
        # schema -> the expressions of every increase of an accumulator, read for definedness alone
        self.checked: dict[str, list[tuple]] = {}
        self.metric, self.reason = _metric_name(problem, target)
        for name, schema in domain.actions.items():
            params = tuple(v for v, _ in schema.params)
            parts = [(e, inside) for e, inside in _effect_parts(schema.effect) if e[2][1] in self.accumulators]
            self.checked[name] = [e[3] for e, inside in parts if not inside]
            mine = [(e, inside) for e, inside in parts if e[2][1] == target]
            for _, inside in mine:
                if inside:
                    self._refuse(f"action {name} increases {target} inside a {inside}, so its cost is not fixed")
            fluent = set().union(*(_functions_in(e[3], set()) for e, _ in mine)) - self.static
            if fluent:
                self._refuse(f"the cost of action {name} reads {', '.join(sorted(fluent))}, which actions change")
            self.increases[name] = (params, [e[3] for e, _ in mine])
        if self.metric == "cost":
            self._check_signs(domain)

    def _refuse(self, reason: str) -> None:
        if self.metric == "cost":
            self.metric, self.reason = "length", f"the metric is not a sum of fixed action costs: {reason}"

    def _check_signs(self, domain: Domain) -> None:
        """Refuse the metric when some binding's cost could be negative (by the static values' ranges)."""
        ranges: dict[str, tuple[Fraction, Fraction]] = {}
        for (f, _), v in self.values.items():
            lo, hi = ranges.get(f, (v, v))
            ranges[f] = (min(lo, v), max(hi, v))
        for name, (_, exprs) in self.increases.items():
            for expr in exprs:
                low = _lower_bound(expr, ranges)
                if low is None or low < 0:
                    self._refuse(f"the cost of action {name} may be negative")
                    return

    def cost(self, schema: str, args: tuple):
        """The cost of a ground action (1 under the length metric); UNDEFINED when an increase of an
        accumulator reads an undefined static value (the action is then never applicable)."""
        params, exprs = self.increases.get(schema, ((), []))
        binding = dict(zip(params, args, strict=False))
        try:
            for expr in self.checked.get(schema, ()):
                if not (_functions_in(expr, set()) - self.static):
                    self.evaluate(expr, binding)
            if self.metric != "cost":
                return 1
            total = sum((self.evaluate(e, binding) for e in exprs), Fraction(0))
        except (_Undefined, ZeroDivisionError):
            return UNDEFINED
        return int(total) if total.denominator == 1 else total

    def evaluate(self, expr: tuple, binding: dict) -> Fraction:
        """The exact value of an expression over static functions under a binding."""
        tag = expr[0]
        if tag == "num":
            return expr[1]
        if tag == "fn":
            key = (expr[1], tuple(binding.get(a, a) for a in expr[2]))
            value = self.values.get(key)
            if value is None:
                raise _Undefined(key)
            return value
        if tag == "neg":
            return -self.evaluate(expr[1], binding)
        a, b = self.evaluate(expr[1], binding), self.evaluate(expr[2], binding)
        return a + b if tag == "+" else a - b if tag == "-" else a * b if tag == "*" else a / b


def _metric_target(problem: Problem, accumulators: frozenset[str]) -> str | None:
    """The accumulator a `minimize` metric names alone, else None."""
    if problem.metric is None:
        return None
    direction, expr = problem.metric
    if direction == "minimize" and expr[0] == "fn" and not expr[2] and expr[1] in accumulators:
        return expr[1]
    return None


def _metric_name(problem: Problem, target: str | None) -> tuple[str, str]:
    """("cost" | "length", why a written metric is not used)."""
    if problem.metric is None:
        return "length", ""
    direction, expr = problem.metric
    if target is not None:
        return "cost", ""
    if expr == ("total-time",):
        return "length", "" if direction == "minimize" else "the metric maximizes total-time"
    if direction == "maximize":
        return "length", "the metric maximizes an expression; acptools minimizes plan length instead"
    return "length", "the metric is not the sum of fixed action costs (a function only actions increase)"


def _lower_bound(expr: tuple, ranges: dict) -> Fraction | None:
    """A lower bound of an expression over static values in the given ranges (None: unknown)."""
    low_high = _interval(expr, ranges)
    return None if low_high is None else low_high[0]


def _interval(expr: tuple, ranges: dict):
    tag = expr[0]
    if tag == "num":
        return expr[1], expr[1]
    if tag == "fn":
        return ranges.get(expr[1], (Fraction(0), Fraction(0)))  # no value at all: no binding is possible
    if tag == "neg":
        inner = _interval(expr[1], ranges)
        return None if inner is None else (-inner[1], -inner[0])
    a, b = _interval(expr[1], ranges), _interval(expr[2], ranges)
    if a is None or b is None:
        return None
    if tag == "+":
        return a[0] + b[0], a[1] + b[1]
    if tag == "-":
        return a[0] - b[1], a[1] - b[0]
    if tag == "/":
        if b[0] <= 0 <= b[1]:
            return None
        b = (1 / b[1], 1 / b[0])
    corners = [x * y for x in a for y in b]
    return min(corners), max(corners)


def cost_model(domain: Domain, problem: Problem) -> CostModel | None:
    """The task's cost model; None when the domain declares no function (every cost is 1). Numeric
    state (a function some condition reads, or that an effect other than a cost increase changes)
    is refused: only action costs are grounded."""
    if not domain.functions:
        return None
    state = read_functions(domain, problem, effects=False) | (
        set(changed_functions(domain)) - accumulators(domain, problem)
    )
    if state:
        raise PddlError(
            f"unsupported: numeric fluents ({', '.join(sorted(state))})",
            "grounding",
            "acptools grounds action costs (increases of total-cost) but not numeric state",
        )
    return CostModel(domain, problem)

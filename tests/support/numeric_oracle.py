"""An exact oracle for PDDL 2.1 numeric tasks (level 2: numeric fluents, no durative actions) and
:action-costs tasks, independent of acptools.

unified-planning parses the PDDL (tests/support/numeric_pddl.py first rewrites the constructs its reader
lacks); everything after parsing is computed here, exactly, over Fractions (numeric_compile.py):
grounding, applicability, progression, plan validation, goal tests, optimal search under the task's
metric, and exhaustive exploration of small state spaces. UP's own SequentialSimulator is not the engine
because it cannot take tasks with undefined numeric fluents, raises on a division by zero instead of
making the action inapplicable, and its simplifier divides integers as floats (`int(a / b)`), which is
wrong past 2**53; tests/numeric/test_oracle.py replays this oracle's trajectories in it where it applies.

Semantics (PDDL 2.1, Fox & Long 2003):
- a state is a set of atoms plus the values of the defined numeric fluents (an undefined one is absent);
- an action is applicable when its precondition holds and its effects are defined: reading a fluent
  without a value, or dividing by zero, anywhere in the precondition, an effect's condition or value, or
  the action's cost, makes it inapplicable (an `assign` may give an undefined fluent its first value);
- effects read the state before the action; deletes apply before adds; several increase/decrease
  effects on one fluent add up; an `assign` together with another update of the same fluent is an error;
- a goal that reads an undefined value does not hold.

Strings: actions "(name a b)", atoms "(p a b)", numeric facts "(= (f a) 3.5)" (format_number)."""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from unified_planning.io import PDDLReader
from unified_planning.model.metrics import (
    MinimizeActionCosts,
    MinimizeExpressionOnFinalState,
    MinimizeSequentialPlanLength,
)
from unified_planning.shortcuts import get_environment

from tests.support.numeric_compile import Compiler, Undefined, evaluate, fluent_key
from tests.support.numeric_ground import ground_actions, ground_derived, linear, read_fluents
from tests.support.numeric_pddl import rewrite_domain, rewrite_problem

get_environment().credits_stream = None
get_environment().error_used_name = False


class OracleError(RuntimeError):
    """The task is outside what the oracle decides (ill-defined effects, an unsupported metric, ...)."""


class NotApplicable(ValueError):
    """The action cannot be applied in the state; the message says why."""


@dataclass(frozen=True)
class State:
    """A state: true atoms and the values of the defined numeric fluents (sorted by fluent)."""

    atoms: frozenset[str]
    numbers: tuple[tuple[str, Fraction], ...] = ()

    @property
    def values(self) -> dict[str, Fraction]:
        return dict(self.numbers)

    def value(self, fluent: str) -> Fraction | None:
        return self.values.get(normalize(fluent))

    def strings(self) -> frozenset[str]:
        """Atoms and numeric facts as strings: "(p a)", "(= (f a) 3.5)"."""
        return self.atoms | {f"(= {k} {format_number(v)})" for k, v in self.numbers}


def make_state(atoms, values: dict[str, Fraction]) -> State:
    return State(frozenset(atoms), tuple(sorted(values.items())))


def state_of(fluent_values, number=Fraction) -> State:
    """The State of unified-planning (fluent expression, constant FNode) pairs."""
    atoms, values = set(), {}
    for fluent_exp, value in fluent_values:
        key = fluent_key(fluent_exp.fluent().name, fluent_exp.args)
        if value.is_bool_constant():
            if value.bool_constant_value():
                atoms.add(key)
        else:
            values[key] = number(value.constant_value())
    return make_state(atoms, values)


def normalize(text: str) -> str:
    """ "( Move  A B )" -> "(move a b)" """
    return "(" + " ".join(text.strip().lower().strip("()").split()) + ")"


def format_number(value: Fraction) -> str:
    """An exact PDDL rendering: 3, -2.5, 0.1, or (/ 1 3) where no finite decimal exists."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return f"(/ {value.numerator} {value.denominator})"
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    scaled = abs(value.numerator * 10**digits // value.denominator)
    text = str(scaled).rjust(digits + 1, "0")
    return ("-" if value < 0 else "") + text[:-digits] + "." + text[-digits:]


def parse_number(text: str) -> Fraction:
    """The inverse of format_number (also reads plain decimals and p/q)."""
    text = text.strip()
    if text.startswith("("):
        _, num, den = text.strip("()").split()
        return Fraction(int(num), int(den))
    return Fraction(text)


class PlanCheck(NamedTuple):
    failed_at: int | None  # index of the first step that is unknown or not applicable
    goal_reached: bool  # the goal holds after the whole plan (False when a step failed)


@dataclass
class SearchResult:
    status: str  # "solved", "unsolvable" (the whole space was explored) or "limit"
    cost: Fraction | None = None
    plan: list[str] | None = None
    expanded: int = 0


@dataclass
class Exploration:
    states: list[State] = field(default_factory=list)
    complete: bool = False  # False: the state limit stopped the enumeration


class NumericTask:
    """One grounded task. Build with load_task (cached) or NumericTask(domain_text, problem_text)."""

    def __init__(self, domain_text: str, problem_text: str, number=Fraction):
        """`number=float` builds the same task over binary floating point instead of Fractions: only for
        tests that show which verdicts exact arithmetic decides."""
        self.domain_text, self.problem_text = domain_text, problem_text
        reader = PDDLReader()
        # the planning problem (for UP's validator and planners) and the oracle's own copy, which also
        # holds one effect-free probe action per derived predicate
        self.up_problem = reader.parse_problem_string(
            rewrite_domain(domain_text), rewrite_problem(domain_text, problem_text)
        )
        probed = PDDLReader().parse_problem_string(
            rewrite_domain(domain_text, probe_derived=True), rewrite_problem(domain_text, problem_text)
        )
        self.init = self._initial_state(probed, number)
        static = {f.name for f in probed.fluents} - self._written(probed)
        compiler = Compiler(probed, self.init.atoms, self.init.values, static, number)
        self.metric, cost_of = self._metric(probed)
        self.actions = ground_actions(probed, compiler, cost_of)
        self._by_trigger: dict[str | None, list] = {}
        for ground in self.actions.values():
            self._by_trigger.setdefault(ground.trigger, []).append(ground)
        self.derived = ground_derived(probed, compiler)
        goal = [compiler.compile(g, {}) for g in probed.goals]
        self.goal = Compiler._junction(True, goal)
        self.metric_expression = None
        if self.metric == "final-value":
            self.metric_expression = compiler.compile(probed.quality_metrics[0].expression, {})
        self.accumulators = self._accumulators(probed)

    @staticmethod
    def _initial_state(problem, number) -> State:
        return state_of(problem.initial_values.items(), number)

    @staticmethod
    def _written(problem) -> set[str]:
        return {e.fluent.fluent().name for a in problem.actions for e in a.effects}

    def _metric(self, problem):
        """("length" | "action-costs" | "final-value" | "unsupported: ...", action -> cost FNode or None)."""
        metrics = problem.quality_metrics
        if not metrics or isinstance(metrics[0], MinimizeSequentialPlanLength):
            return "length", lambda action: None
        if isinstance(metrics[0], MinimizeActionCosts):
            return "action-costs", metrics[0].get_action_cost
        if isinstance(metrics[0], MinimizeExpressionOnFinalState):
            return "final-value", lambda action: None
        return f"unsupported: {metrics[0]}", lambda action: None

    def _accumulators(self, problem) -> frozenset[str]:
        """Keys of fluents that only grow the metric (increased, read nowhere): left out of the search's
        state identity, as total-cost is, so that costs do not make the state space infinite."""
        if self.metric != "final-value" or not linear(problem.quality_metrics[0].expression):
            return frozenset()
        increased, other = set(), read_fluents(problem)
        for action in problem.actions:
            for e in action.effects:
                (increased if e.is_increase() else other).add(e.fluent.fluent().name)
        names = increased - other
        return frozenset(k for k, _ in self.init.numbers if k[1:].split()[0].rstrip(")") in names)

    # ---------------------------------------------------------------- applicability and progression

    def successor(self, state: State, action: str) -> State:
        """The state after `action`; raises NotApplicable (saying why) when it cannot be applied."""
        ground = self.actions.get(normalize(action))
        if ground is None:
            raise NotApplicable(f"{normalize(action)} is not a ground action of this task")
        return self._successor(ground, state, state.values)

    def _successor(self, ground, state: State, values: dict) -> State:
        atoms = state.atoms
        try:
            if not evaluate(ground.pre, atoms, values):
                raise NotApplicable(f"the precondition of {ground.name} does not hold")
            if ground.cost is not None:
                evaluate(ground.cost, atoms, values)
            return self._effects(ground, state, values)
        except Undefined as e:
            raise NotApplicable(f"{ground.name} reads an undefined value: {e}") from None

    def _effects(self, ground, state: State, values: dict) -> State:
        atoms = state.atoms
        adds, deletes, assigned, delta = set(), set(), {}, {}
        for eff in ground.effects:
            if not evaluate(eff.condition, atoms, values):
                continue
            value = evaluate(eff.value, atoms, values)
            if eff.kind == "bool":
                (adds if value else deletes).add(eff.target)
            elif eff.kind == "assign":
                if eff.target in assigned or eff.target in delta:
                    raise OracleError(f"{ground.name} updates {eff.target} twice, once by assign")
                assigned[eff.target] = value
            else:
                if eff.target in assigned:
                    raise OracleError(f"{ground.name} updates {eff.target} twice, once by assign")
                if eff.target not in values:
                    raise Undefined(f"{eff.target} has no value")
                delta[eff.target] = delta.get(eff.target, 0) + (value if eff.kind == "increase" else -value)
        changed = dict(assigned)
        for key, d in delta.items():
            changed[key] = values[key] + d
        new_atoms = (atoms - deletes) | adds if adds or deletes else atoms
        if not changed:
            return State(new_atoms, state.numbers)
        if all(k in values for k in changed):
            return State(new_atoms, tuple((k, changed.get(k, v)) for k, v in state.numbers))
        return make_state(new_atoms, {**values, **changed})

    def is_applicable(self, state: State, action: str) -> bool:
        try:
            self.successor(state, action)
            return True
        except NotApplicable:
            return False

    def applicable(self, state: State) -> set[str]:
        return {name for name, _ in self.transitions(state)}

    def transitions(self, state: State) -> list[tuple[str, State]]:
        out, values = [], state.values
        candidates = [g for atom in (None, *state.atoms) for g in self._by_trigger.get(atom, ())]
        for ground in sorted(candidates, key=lambda g: g.name):
            try:
                out.append((ground.name, self._successor(ground, state, values)))
            except NotApplicable:
                pass
        return out

    def apply(self, state: State, action: str) -> State:
        return self.successor(state, action)

    def step_cost(self, state: State, action: str, after: State | None = None) -> Fraction:
        """The action's cost in the task's metric (1 when the metric is plan length)."""
        ground = self.actions[normalize(action)]
        if self.metric == "length":
            return Fraction(1)
        if self.metric == "action-costs":
            return Fraction(0) if ground.cost is None else evaluate(ground.cost, state.atoms, state.values)
        if self.metric == "final-value":
            after = after or self.successor(state, action)
            return self.metric_value(after) - self.metric_value(state)
        raise OracleError(f"no step costs for the metric {self.metric}")

    def metric_value(self, state: State) -> Fraction:
        return evaluate(self.metric_expression, state.atoms, state.values)

    # ---------------------------------------------------------------- goals, derived atoms, plans

    def is_goal(self, state: State) -> bool:
        try:
            return bool(evaluate(self.goal, state.atoms, state.values))
        except Undefined:
            return False

    def holds(self, state: State, atom: str) -> bool:
        """An atom (basic or derived) holds in the state."""
        atom = normalize(atom)
        probe = self.derived.get(atom)
        if probe is None:
            return atom in state.atoms
        try:
            return bool(evaluate(probe, state.atoms, state.values))
        except Undefined:
            return False

    def derived_atoms(self, state: State) -> frozenset[str]:
        return frozenset(a for a in self.derived if self.holds(state, a))

    def validate(self, plan: list[str], state: State | None = None) -> PlanCheck:
        state = self.init if state is None else state
        for i, action in enumerate(plan):
            try:
                state = self.successor(state, action)
            except NotApplicable:
                return PlanCheck(i, False)
        return PlanCheck(None, self.is_goal(state))

    def explain(self, state: State, action: str) -> str | None:
        """Why the action cannot be applied in the state, or None when it can."""
        try:
            self.successor(state, action)
            return None
        except NotApplicable as e:
            return str(e)

    def trajectory(self, plan: list[str], state: State | None = None) -> list[State]:
        states = [self.init if state is None else state]
        for action in plan:
            states.append(self.successor(states[-1], action))
        return states

    def plan_cost(self, plan: list[str], state: State | None = None) -> Fraction:
        states = self.trajectory(plan, state)
        return sum((self.step_cost(s, a, t) for s, a, t in zip(states, plan, states[1:])), Fraction(0))

    # ---------------------------------------------------------------- search and exploration

    def key(self, state: State):
        if not self.accumulators:
            return state
        return state.atoms, tuple(kv for kv in state.numbers if kv[0] not in self.accumulators)

    def search(self, start: State | None = None, node_limit: int = 200_000) -> SearchResult:
        """Uniform-cost search for an optimal plan under the task's metric (blind A*)."""
        if self.metric.startswith("unsupported"):
            raise OracleError(f"no optimal search for the metric {self.metric}")
        start = self.init if start is None else start
        best = {self.key(start): Fraction(0)}
        parent: dict = {self.key(start): None}
        frontier = [(Fraction(0), 0, start)]
        tie = expanded = 0
        while frontier:
            g, _, state = heapq.heappop(frontier)
            k = self.key(state)
            if g > best[k]:
                continue
            if self.is_goal(state):
                return SearchResult("solved", g, _plan_to(parent, k), expanded)
            expanded += 1
            if expanded > node_limit:
                return SearchResult("limit", expanded=expanded)
            for name, succ in self.transitions(state):
                cost = self.step_cost(state, name, succ)
                if cost < 0:
                    raise OracleError(f"{name} has the negative cost {cost}: uniform-cost search does not apply")
                sk, new_g = self.key(succ), g + cost
                if sk not in best or new_g < best[sk]:
                    best[sk], parent[sk] = new_g, (k, name)
                    tie += 1
                    heapq.heappush(frontier, (new_g, tie, succ))
        return SearchResult("unsolvable", expanded=expanded)

    def h_star(self, state: State | None = None, node_limit: int = 200_000) -> Fraction | None:
        """The optimal cost to the goal, math.inf-free: None when unsolvable; raises at the limit."""
        result = self.search(state, node_limit)
        if result.status == "limit":
            raise OracleError(f"the search stopped at its limit of {node_limit} expanded states")
        return result.cost

    def find(
        self,
        found: Callable[[State], bool],
        start: State | None = None,
        limit: int = 100_000,
        avoid: Callable[[State], bool] | None = None,
    ) -> bool | None:
        """Breadth-first: does some state reachable through states not `avoid`ed satisfy `found`?
        None when `limit` states were seen without an answer."""
        start = self.init if start is None else start
        if avoid is not None and avoid(start):
            return False
        seen, queue = {self.key(start)}, deque([start])
        while queue:
            state = queue.popleft()
            if found(state):
                return True
            for _, succ in self.transitions(state):
                k = self.key(succ)
                if k not in seen and not (avoid is not None and avoid(succ)):
                    if len(seen) >= limit:
                        return None
                    seen.add(k)
                    queue.append(succ)
        return False

    def explore(self, start: State | None = None, limit: int = 100_000) -> Exploration:
        """The reachable states (one per search identity), or the first `limit` of them."""
        out = Exploration()

        def collect(state: State) -> bool:
            out.states.append(state)
            return False

        out.complete = self.find(collect, start, limit) is False
        return out

    def atom_reachable(self, atom: str, limit: int = 100_000) -> bool | None:
        return self.find(lambda s: self.holds(s, atom), limit=limit)

    def action_reachable(self, action: str, limit: int = 100_000) -> bool | None:
        """Is the action applicable in some reachable state?"""
        return self.find(lambda s: self.is_applicable(s, action), limit=limit)

    def is_landmark(self, atom: str, limit: int = 100_000) -> bool | None:
        """Does every plan pass through a state where the atom holds? (Vacuously True when the task is
        unsolvable.) Decided by searching for a goal state through states where it does not hold."""
        reached = self.find(self.is_goal, limit=limit, avoid=lambda s: self.holds(s, atom))
        return None if reached is None else not reached


def _plan_to(parent: dict, key) -> list[str]:
    plan = []
    while parent[key] is not None:
        key, name = parent[key]
        plan.append(name)
    return plan[::-1]


@lru_cache(maxsize=256)
def task_from_text(domain_text: str, problem_text: str) -> NumericTask:
    return NumericTask(domain_text, problem_text)


def load_task(domain: str | Path, problem: str | Path) -> NumericTask:
    """The task of two PDDL files (cached by their text)."""
    return task_from_text(Path(domain).read_text(), Path(problem).read_text())

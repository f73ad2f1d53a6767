"""Numeric unified-planning Problems built in code: acptools loads them, and its simulator and
validator agree with unified-planning's own (SequentialSimulator, PlanValidator) on every state
reached and on valid and broken plans; its planner's plans validate in unified-planning's validator."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest

pytest.importorskip("unified_planning")

from unified_planning import shortcuts as S  # noqa: E402
from unified_planning.engines import OptimalityGuarantee  # noqa: E402
from unified_planning.engines.results import PlanGenerationResultStatus, ValidationResultStatus  # noqa: E402
from unified_planning.plans import ActionInstance, SequentialPlan  # noqa: E402

import acptools.up  # noqa: E402,F401  registers the engine
from acptools import load_task  # noqa: E402
from tests.support.numeric_planners import enhsp_available  # noqa: E402


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")


def fuel_problem():
    """Drive between places: fuel (real) falls by the distance, refuelling adds 2.5 up to a cap; an
    int counter of trips; action costs by distance."""
    Loc = S.UserType("Loc")
    at = S.Fluent("at", S.BoolType(), l=Loc)
    fuel, trips = S.Fluent("fuel", S.RealType()), S.Fluent("trips", S.IntType())
    dist = S.Fluent("dist", S.RealType(), a=Loc, b=Loc)
    go = S.InstantaneousAction("go", a=Loc, b=Loc)
    a, b = go.parameters
    go.add_precondition(at(a))
    go.add_precondition(S.GE(fuel, dist(a, b)))
    go.add_effect(at(a), False)
    go.add_effect(at(b), True)
    go.add_decrease_effect(fuel, dist(a, b))
    go.add_increase_effect(trips, 1)
    refuel = S.InstantaneousAction("refuel")
    refuel.add_precondition(S.LE(fuel, 3))
    refuel.add_increase_effect(fuel, Fraction(5, 2))
    p = S.Problem("fuel")
    p.add_fluent(at, default_initial_value=False)
    p.add_fluent(fuel)
    p.add_fluent(trips)
    p.add_fluent(dist, default_initial_value=Fraction(3, 2))
    p.add_actions([go, refuel])
    places = [S.Object(f"l{i}", Loc) for i in range(3)]
    p.add_objects(places)
    p.set_initial_value(at(places[0]), True)
    p.set_initial_value(fuel, Fraction(2))
    p.set_initial_value(trips, 0)
    p.set_initial_value(dist(places[0], places[2]), 4)
    p.add_goal(at(places[2]))
    p.add_goal(S.LE(trips, 3))
    p.add_quality_metric(S.MinimizeActionCosts({go: dist(a, b), refuel: 1}))
    return p


def _key(problem, state) -> tuple:
    return tuple(str(state.get_value(f)) for f in problem.initial_values)


def test_a_numeric_problem_loads_with_its_costs():
    task = load_task(fuel_problem())
    assert task.metric == "cost"
    assert "(= (fuel) 2)" in task.names(task.init) and "(= (trips) 0)" in task.names(task.init)


def test_the_simulator_agrees_with_unified_plannings_on_every_reachable_state():
    problem = fuel_problem()
    theirs = S.SequentialSimulator(problem, name="sequential_simulator")
    ours = S.SequentialSimulator(problem, name="acptools")
    assert _states_where_they_agree(problem, ours, theirs, limit=200) > 10


def _states_where_they_agree(problem, ours, theirs, limit: int) -> int:
    """Walk the states `theirs` reaches (up to `limit`), asserting at each that `ours` gives the same goal
    test, applicable actions and successors (from its own state and from theirs); returns the count."""
    frontier = [(theirs.get_initial_state(), ours.get_initial_state())]
    seen = {_key(problem, frontier[0][0])}
    assert _key(problem, frontier[0][1]) == _key(problem, frontier[0][0])
    while frontier and len(seen) < limit:
        t, o = frontier.pop()
        assert theirs.is_goal(t) == ours.is_goal(o)
        moves_t = sorted(str(ActionInstance(a, p)) for a, p in theirs.get_applicable_actions(t))
        moves_o = sorted(str(ActionInstance(a, p)) for a, p in ours.get_applicable_actions(o))
        assert moves_t == moves_o
        for action, params in theirs.get_applicable_actions(t):
            t2, o2 = theirs.apply(t, action, params), ours.apply(o, action, params)
            assert _key(problem, o2) == _key(problem, t2)
            assert _key(problem, ours.apply(t, action, params)) == _key(problem, t2)  # from UP's own state
            if _key(problem, t2) not in seen:
                seen.add(_key(problem, t2))
                frontier.append((t2, o2))
    return len(seen)


def _plan(problem, *steps) -> SequentialPlan:
    objects = {o.name: o for o in problem.all_objects}
    return SequentialPlan([ActionInstance(problem.action(a), [objects[x] for x in args]) for a, *args in steps])


@pytest.mark.parametrize(
    "steps",
    [
        [("refuel",), ("refuel",), ("go", "l0", "l2")],  # 2 + 2.5 = 4.5 >= 4
        [("go", "l0", "l1"), ("refuel",), ("go", "l1", "l2")],
        [("go", "l0", "l2")],  # fuel 2 < 4
        [("go", "l0", "l1")],  # misses the goal
        [("refuel",), ("refuel",), ("refuel",)],  # fuel 7 > 3: the third refuel does not apply
    ],
)
def test_the_validator_agrees_with_unified_plannings(steps):
    problem = fuel_problem()
    plan = _plan(problem, *steps)
    with S.PlanValidator(name="sequential_plan_validator") as theirs, S.PlanValidator(name="acptools") as ours:
        expected, got = theirs.validate(problem, plan), ours.validate(problem, plan)
    assert got.status == expected.status
    if expected.status == ValidationResultStatus.INVALID:
        assert got.reason == expected.reason
        assert str(got.inapplicable_action) == str(expected.inapplicable_action)


@pytest.mark.parametrize("optimal", [True, False])
def test_the_planner_plans_numeric_problems_and_unified_planning_validates_them(optimal):
    problem = fuel_problem()
    with S.OneshotPlanner(name="acptools", params={"optimal": optimal}) as planner:
        result = planner.solve(problem, timeout=60)
    assert result.plan is not None, result.log_messages
    with S.PlanValidator(name="sequential_plan_validator") as theirs:
        assert theirs.validate(problem, result.plan).status == ValidationResultStatus.VALID
    if optimal:  # the action costs (distances) are the Problem's metric: h* is proven in them
        assert result.status == PlanGenerationResultStatus.SOLVED_OPTIMALLY
        assert Fraction(result.metrics["h_star"]) == _cost(problem, result.plan)
    else:
        assert result.status == PlanGenerationResultStatus.SOLVED_SATISFICING


def _cost(problem, plan) -> Fraction:
    """The plan's action costs under the Problem's metric, summed by unified-planning's own terms."""
    metric = problem.quality_metrics[0]
    total = Fraction(0)
    for step in plan.actions:
        cost = metric.get_action_cost(step.action)
        subst = dict(zip(step.action.parameters, step.actual_parameters, strict=True))
        value = problem.initial_value(cost.substitute(subst)) if not cost.is_constant() else cost
        total += Fraction(str(value.constant_value()))
    return total


def with_an_undefined_fluent():
    """The fuel problem plus a real fluent with no initial value that no action reads: unified-planning's
    own simulator and validator do not declare undefined initial values, so they answer only by name."""
    problem = fuel_problem()
    problem.add_fluent(S.Fluent("spare", S.RealType()))
    return problem


def test_the_factory_picks_acptools_for_an_optimal_numeric_plan():
    problem = fuel_problem()
    optimal = OptimalityGuarantee.SOLVED_OPTIMALLY
    with S.OneshotPlanner(problem_kind=problem.kind, optimality_guarantee=optimal) as planner:
        assert planner.name == "acptools"
        result = planner.solve(problem, timeout=60)
    assert result.status == PlanGenerationResultStatus.SOLVED_OPTIMALLY
    assert Fraction(result.metrics["h_star"]) == _cost(problem, result.plan)
    with S.PlanValidator(name="sequential_plan_validator") as theirs:
        assert theirs.validate(problem, result.plan).status == ValidationResultStatus.VALID


@pytest.mark.parametrize("make", [fuel_problem, with_an_undefined_fluent])
def test_a_planner_chosen_by_kind_plans_numeric_problems(make):
    problem = make()
    with S.OneshotPlanner(problem_kind=problem.kind) as planner:
        assert planner.name in {"acptools", "enhsp"}  # the numeric planners installed, in the factory's order
        if planner.name == "enhsp" and not enhsp_available():
            pytest.skip("the factory prefers ENHSP, which needs Java here")
        result = planner.solve(problem, timeout=60)
    assert result.plan is not None, result.log_messages
    with warnings.catch_warnings():  # named, UP's validator only warns on the undefined (unread) fluent
        warnings.simplefilter("ignore", UserWarning)
        with S.PlanValidator(name="sequential_plan_validator") as theirs:
            assert theirs.validate(problem, result.plan).status == ValidationResultStatus.VALID


def test_a_simulator_chosen_by_kind_answers_like_unified_plannings():
    problem = with_an_undefined_fluent()
    chosen = S.SequentialSimulator(problem)
    assert chosen.name == "acptools"  # unified-planning's own simulator does not declare the kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs = S.SequentialSimulator(problem, name="sequential_simulator")
    assert _states_where_they_agree(problem, chosen, theirs, limit=40) > 10


def test_for_a_plain_numeric_problem_the_factory_keeps_unified_plannings_own_simulator():
    assert S.SequentialSimulator(fuel_problem()).name == "sequential_simulator"

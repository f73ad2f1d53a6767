"""unified-planning Problems built in Python: load_task(problem) and the acptools engine agree with
unified-planning's own simulator state by state, names map back to the Problem's items, and what
acptools does not support is refused as unified-planning engines refuse it.

The engine is compared with UPSequentialSimulator (which shares no code with acptools) over the
whole reachable state space of a small Problem that uses every supported feature at once:
hierarchical types, a constant, negative, disjunctive, existential and universal conditions,
equality, conditional and universal effects, a non-constant boolean assignment, names PDDL must
rewrite (upper case, an object named like an action).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque

import pytest

from acptools import AcpError, load_task
from tests.support.data import ROOT

up = pytest.importorskip("unified_planning")

from unified_planning import shortcuts as S  # noqa: E402
from unified_planning.engines.results import PlanGenerationResultStatus, ValidationResultStatus  # noqa: E402
from unified_planning.exceptions import (  # noqa: E402
    UPNoSuitableEngineAvailableException,
    UPUnsupportedProblemTypeError,
    UPUsageError,
)
from unified_planning.model.walkers import StateEvaluator  # noqa: E402
from unified_planning.plans import SequentialPlan  # noqa: E402

import acptools.up  # noqa: E402  registers the engine

S.get_environment().credits_stream = None


def rooms_problem() -> S.Problem:
    """A robot carries boxes between rooms: every feature acptools reads, in one small Problem."""
    Locatable = S.UserType("Locatable")
    Robot, Box, Room = S.UserType("Robot", Locatable), S.UserType("Box", Locatable), S.UserType("Room")
    At = S.Fluent("At", S.BoolType(), x=Locatable, r=Room)
    connected = S.Fluent("connected", S.BoolType(), a=Room, b=Room)
    locked, light = S.Fluent("locked", S.BoolType(), r=Room), S.Fluent("light", S.BoolType(), r=Room)
    carrying = S.Fluent("carrying", S.BoolType(), rb=Robot, b=Box)
    hall = S.Object("Hall", Room)
    move = S.InstantaneousAction("move", rb=Robot, a=Room, b=Room)
    rb, a, b = move.parameters
    move.add_precondition(At(rb, a))
    move.add_precondition(S.Or(connected(a, b), connected(b, a)))
    move.add_precondition(S.Not(locked(b)))
    move.add_precondition(S.Not(S.Equals(a, b)))
    move.add_effect(At(rb, a), False)
    move.add_effect(At(rb, b), True)
    x = S.Variable("x", Box)
    move.add_effect(At(x, b), True, condition=carrying(rb, x), forall=[x])  # carried boxes come along
    move.add_effect(At(x, a), False, condition=carrying(rb, x), forall=[x])
    pick = S.InstantaneousAction("pick", rb=Robot, bx=Box, r=Room)
    rb, bx, r = pick.parameters
    y = S.Variable("y", Box)
    pick.add_precondition(At(rb, r))
    pick.add_precondition(At(bx, r))
    pick.add_precondition(light(r))
    pick.add_precondition(S.Forall(S.Not(carrying(rb, y)), y))  # one box at a time
    pick.add_effect(carrying(rb, bx), True)
    drop = S.InstantaneousAction("drop", rb=Robot, bx=Box)
    drop.add_precondition(carrying(drop.parameter("rb"), drop.parameter("bx")))
    drop.add_effect(carrying(drop.parameter("rb"), drop.parameter("bx")), False)
    switch = S.InstantaneousAction("switch", rb=Robot, r=Room)
    switch.add_precondition(At(switch.parameter("rb"), switch.parameter("r")))
    switch.add_effect(light(switch.parameter("r")), S.Not(light(switch.parameter("r"))))  # f := not f
    unlock = S.InstantaneousAction("unlock", rb=Robot, r=Room)
    unlock.add_precondition(At(unlock.parameter("rb"), hall))  # a constant
    unlock.add_precondition(locked(unlock.parameter("r")))
    unlock.add_precondition(S.Exists(At(y, hall), y))  # some box in the hall
    unlock.add_effect(locked(unlock.parameter("r")), False)
    p = S.Problem("Rooms")
    for f in (At, connected, locked, light, carrying):
        p.add_fluent(f, default_initial_value=False)
    for act in (move, pick, drop, switch, unlock):
        p.add_action(act)
    robot, b1, clash = S.Object("R1", Robot), S.Object("B1", Box), S.Object("Move", Box)
    r2, r3 = S.Object("R2", Room), S.Object("R3", Room)
    p.add_objects([robot, b1, clash, hall, r2, r3])
    for fact in (
        At(robot, hall),
        At(b1, r2),
        At(clash, hall),
        connected(hall, r2),
        connected(r2, r3),
        locked(r3),
        light(hall),
    ):
        p.set_initial_value(fact, True)
    p.add_goal(At(b1, r3))
    p.add_goal(S.Not(light(r2)))
    return p


@pytest.fixture(scope="module")
def rooms():
    return rooms_problem()


def up_name(action, params) -> str:
    return "(" + " ".join([action.name] + [str(p) for p in params]) + ")"


def values(fluents, state) -> dict:
    """The value of every ground fluent (a list of fluent expressions) in a state."""
    return {f: state.get_value(f).bool_constant_value() for f in fluents}


def test_importing_acptools_does_not_import_unified_planning():
    code = (
        "import sys, acptools\nfrom acptools import examples, load_task\nload_task(*examples.texts('ferry'))\n"
        "print('unified_planning' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_load_task_maps_every_name_back_to_the_problem(rooms):
    task = load_task(rooms)
    names = task.up
    assert names.problem is rooms
    atoms = task.atom_names
    assert len(atoms) == len([f for f in rooms.initial_values if f.fluent().name != "connected"])
    for atom in atoms:
        exp = names.fluent_exp(atom)
        assert exp in rooms.initial_values and names.atom_name(exp) == atom
    for a in task.questions.applicable():
        ai = names.action_instance(a)
        assert ai.action in rooms.actions and names.action_name(ai) == a
    # the writer renamed what PDDL cannot spell: the box "Move" and the action "move" stay apart
    assert names.item("move") is rooms.action("move")
    assert names.pddl_name(rooms.object("Move")) not in ("move", "Move")


def lockstep(fluents, ours, theirs):
    """Breadth-first over every reachable state, with both simulators side by side; yields
    (our state, their state, h* distance from init) in BFS order."""
    start = (ours.get_initial_state(), theirs.get_initial_state())
    seen, queue = {start[0]}, deque([(start, 0)])
    while queue:
        (s, t), depth = queue.popleft()
        yield s, t, depth
        mine = {up_name(a, p): (a, p) for a, p in ours.get_applicable_actions(s)}
        assert sorted(mine) == sorted(up_name(a, p) for a, p in theirs.get_applicable_actions(t)), s
        for name, (a, params) in mine.items():
            s2, t2 = ours.apply(s, a, params), theirs.apply(t, a, params)
            assert values(fluents, s2) == values(fluents, t2), (s, name)
            if s2 not in seen:
                seen.add(s2)
                queue.append(((s2, t2), depth + 1))


def test_the_simulator_agrees_with_unified_plannings_on_every_reachable_state(rooms):
    ours = S.SequentialSimulator(rooms, name="acptools")
    theirs = S.SequentialSimulator(rooms, name="sequential_simulator")
    fluents = list(rooms.initial_values)
    assert values(fluents, ours.get_initial_state()) == values(fluents, theirs.get_initial_state())
    first_goal, n = None, 0
    for s, t, depth in lockstep(fluents, ours, theirs):
        n += 1
        assert ours.is_goal(s) == theirs.is_goal(t)
        if ours.is_goal(s) and first_goal is None:
            first_goal = depth
    assert n > 50 and first_goal is not None
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(rooms)
    assert result.status == PlanGenerationResultStatus.SOLVED_SATISFICING  # no quality metric: no optimality claim
    assert len(result.plan.actions) == first_goal == int(result.metrics["h_star"])
    with S.PlanValidator(name="sequential_plan_validator") as validator:
        assert validator.validate(rooms, result.plan).status == ValidationResultStatus.VALID


def test_a_plan_length_metric_makes_the_shortest_plan_solved_optimally(rooms):
    problem = rooms.clone()
    problem.add_quality_metric(S.MinimizeSequentialPlanLength())
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)
    assert result.status == PlanGenerationResultStatus.SOLVED_OPTIMALLY
    with S.OneshotPlanner(name="acptools", params={"optimal": False}) as planner:
        witness = planner.solve(problem)
    assert witness.status == PlanGenerationResultStatus.SOLVED_SATISFICING and "h_star" not in witness.metrics
    assert len(witness.plan.actions) >= len(result.plan.actions)


def test_the_validator_names_the_failing_step_and_its_unsatisfied_preconditions(rooms):
    with S.OneshotPlanner(name="acptools") as planner:
        plan = planner.solve(rooms).plan
    theirs = S.PlanValidator(name="sequential_plan_validator")
    ours = S.PlanValidator(name="acptools")
    for k in range(len(plan.actions)):
        broken = SequentialPlan(plan.actions[:k] + plan.actions[k + 1 :])
        mine, ref = ours.validate(rooms, broken), theirs.validate(rooms, broken)
        assert (mine.status, mine.reason, mine.inapplicable_action) == (ref.status, ref.reason, ref.inapplicable_action)
        if mine.inapplicable_action is not None:
            step = int(mine.metrics["first_inapplicable"])
            assert broken.actions[step] is mine.inapplicable_action
            assert len(mine.trace) == step + 1 and mine.metrics["unsatisfied_preconditions"]
            assert f"of {step + 1}-th action instance" in mine.log_messages[0].message
            # every condition reported is false in the state the step starts from
            sim = S.SequentialSimulator(rooms, name="sequential_simulator")
            state = sim.get_initial_state()
            for ai in broken.actions[:step]:
                state = sim.apply(state, ai)
            conditions = ours_conditions(rooms, state, mine.inapplicable_action)
            assert conditions and str(conditions) in mine.log_messages[0].message
            for cond in conditions:
                assert not StateEvaluator(rooms).evaluate(cond, state).bool_constant_value()


def ours_conditions(problem, up_state, action_instance) -> list:
    """The unsatisfied conditions our simulator reports for an action in a UPState."""
    with S.SequentialSimulator(problem, name="acptools") as sim:
        return sim.get_unsatisfied_conditions(up_state, action_instance)


def test_unsolvable_is_proven(rooms):
    problem = rooms.clone()
    problem.add_goal(problem.fluent("locked")(problem.object("Hall")))  # nothing locks a room
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)
    assert result.status == PlanGenerationResultStatus.UNSOLVABLE_PROVEN and result.plan is None


def numeric_problem():
    Loc = S.UserType("Loc")
    at, fuel = S.Fluent("at", S.BoolType(), l=Loc), S.Fluent("fuel", S.IntType())
    go = S.InstantaneousAction("go", a=Loc, b=Loc)
    go.add_precondition(at(go.parameter("a")))
    go.add_precondition(S.GE(fuel, 1))
    go.add_effect(at(go.parameter("a")), False)
    go.add_effect(at(go.parameter("b")), True)
    go.add_decrease_effect(fuel, 1)
    p = S.Problem("fuel")
    p.add_fluent(at, default_initial_value=False)
    p.add_fluent(fuel, default_initial_value=3)
    p.add_action(go)
    l0, l1 = S.Object("l0", Loc), S.Object("l1", Loc)
    p.add_objects([l0, l1])
    p.set_initial_value(at(l0), True)
    p.add_goal(at(l1))
    return p


def durative_problem():
    p = S.Problem("timed")
    done = S.Fluent("done")
    p.add_fluent(done, default_initial_value=False)
    work = S.DurativeAction("work")
    work.set_fixed_duration(3)
    work.add_effect(S.EndTiming(), done, True)
    p.add_action(work)
    p.add_goal(done)
    return p


def bounded_problem():
    p = numeric_problem()
    p.add_fluent(S.Fluent("level", S.IntType(0, 10)), default_initial_value=0)
    return p


@pytest.mark.parametrize(
    "make, words", [(bounded_problem, "bounded numeric types"), (durative_problem, "durative actions")]
)
def test_unsupported_problems_are_refused_by_name(make, words):
    problem = make()
    with pytest.raises(AcpError, match=words):
        load_task(problem)
    assert not acptools.up.AcptoolsEngine.supports(problem.kind)
    # the factory never picks acptools for such a problem: it picks another installed engine (ENHSP comes with
    # the test extra for numeric tasks) or lists acptools among its refusals ...
    try:
        with S.OneshotPlanner(problem_kind=problem.kind) as picked:
            assert picked.name != "acptools"
    except UPNoSuitableEngineAvailableException as refused:
        assert "acptools" in str(refused)
    engine = acptools.up.AcptoolsEngine()
    with pytest.raises(UPUsageError, match="cannot establish"):  # ... and, with checks on, refuses as UP engines do
        engine.solve(problem)
    with pytest.raises(UPUsageError, match="cannot establish"):
        engine.validate(problem, SequentialPlan([]))
    # named explicitly, unified-planning only warns: the engine itself then refuses
    with pytest.warns(UserWarning):
        result = S.OneshotPlanner(name="acptools").solve(problem)
    assert result.status == PlanGenerationResultStatus.UNSUPPORTED_PROBLEM and words in result.log_messages[0].message
    with pytest.warns(UserWarning), pytest.raises(UPUnsupportedProblemTypeError, match=words):
        S.SequentialSimulator(problem, name="acptools")


def test_load_task_with_one_argument_that_is_not_a_problem():
    with pytest.raises(AcpError, match="unified-planning Problem"):
        load_task("(define (domain d))")


def test_an_up_ini_section_registers_the_engine_with_no_code(tmp_path):
    (tmp_path / ".up.ini").write_text(
        "[engine acptools]\nmodule_name: acptools.up.up_engine\nclass_name: AcptoolsEngine\n"
    )
    code = (
        "from unified_planning.shortcuts import OneshotPlanner, get_environment\n"
        "get_environment().credits_stream = None\n"
        "with OneshotPlanner(name='acptools') as p:\n    print(p.name)"
    )
    env = dict(os.environ, HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "acptools"


def road_problem(cost):
    """Three places on a line; moving costs `cost(a, b)` (an expression over the parameters)."""
    Loc = S.UserType("Loc")
    at, road = S.Fluent("at", S.BoolType(), l=Loc), S.Fluent("road", S.BoolType(), a=Loc, b=Loc)
    dist = S.Fluent("dist", S.IntType(), a=Loc, b=Loc)
    move = S.InstantaneousAction("move", a=Loc, b=Loc)
    a, b = move.parameters
    move.add_precondition(at(a))
    move.add_precondition(road(a, b))
    move.add_effect(at(a), False)
    move.add_effect(at(b), True)
    p = S.Problem("roads")
    p.add_fluent(at, default_initial_value=False)
    p.add_fluent(road, default_initial_value=False)
    p.add_fluent(dist, default_initial_value=1)
    p.add_action(move)
    places = [S.Object(f"l{i}", Loc) for i in range(3)]
    p.add_objects(places)
    p.set_initial_value(at(places[0]), True)
    for here, there in zip(places, places[1:], strict=False):
        p.set_initial_value(road(here, there), True)
        p.set_initial_value(dist(here, there), 5)
    p.add_goal(at(places[2]))
    p.add_quality_metric(S.MinimizeActionCosts({move: cost(dist, a, b)}))
    return p


@pytest.mark.parametrize("cost, total", [(lambda dist, a, b: dist(a, b), 10), (lambda dist, a, b: 3, 6)])
def test_action_costs_are_the_metric_the_plan_is_optimal_in(cost, total):
    problem = road_problem(cost)
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)
    assert len(result.plan.actions) == 2 and int(result.metrics["h_star"]) == total
    assert result.status == PlanGenerationResultStatus.SOLVED_OPTIMALLY
    with S.PlanValidator(problem_kind=problem.kind, name="sequential_plan_validator") as validator:
        assert validator.validate(problem, result.plan).metric_evaluations[problem.quality_metrics[0]] == total

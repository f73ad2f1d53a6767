"""The acptools engine on real PDDL read by unified-planning's own PDDLReader: every bundled example
and the bundled ACPBench Hard val/just records. Plans, verdicts and states agree with
unified-planning's SequentialPlanValidator and SequentialSimulator (which share no code with
acptools), up-pyperplan's plans are valid for it, and its optimal plans have the oracle's h*.

The default run samples one record per domain and task; `-m slow` runs every dev record.
"""

from __future__ import annotations

import re

import pytest

from acptools import examples, load_task
from acptools.dataset import acpbench_hard, domain_name
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle

pytest.importorskip("unified_planning")

from unified_planning import shortcuts as S  # noqa: E402
from unified_planning.engines.results import PlanGenerationResultStatus as Plan  # noqa: E402
from unified_planning.engines.results import ValidationResultStatus as Valid  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.plans import SequentialPlan  # noqa: E402

import acptools.up  # noqa: E402,F401  registers the engine

S.get_environment().credits_stream = None
S.get_environment().error_used_name = False  # ACPBench domains reuse names (an action and an object "up")
pytestmark = pytest.mark.filterwarnings("ignore:Name .* already defined")

_read: dict = {}


def read(domain: str, problem: str):
    """The Problem unified-planning's reader makes of the PDDL (read once per text)."""
    key = (domain, problem)
    if key not in _read:
        _read[key] = PDDLReader().parse_problem_string(domain, problem)
    return _read[key]


def up_plan(problem, names: list[str]) -> SequentialPlan:
    """Action names as written in the records (any case) -> the Problem's SequentialPlan."""
    actions = {a.name.lower(): a for a in problem.actions}
    objects = {o.name.lower(): o for o in problem.all_objects}
    steps = []
    for name in names:
        words = name.strip("() ").lower().split()
        steps.append(actions[words[0]](*[objects[o] for o in words[1:]]))
    return SequentialPlan(steps)


def up_name(action, params) -> str:
    return "(" + " ".join([action.name.lower()] + [str(p).lower() for p in params]) + ")"


def values(fluents, state) -> dict:
    return {f: state.get_value(f).bool_constant_value() for f in fluents}


@pytest.fixture(scope="module")
def engines():
    with S.PlanValidator(name="acptools") as ours, S.PlanValidator(name="sequential_plan_validator") as theirs:
        yield ours, theirs


def sampled(task: str) -> list:
    """The dev records of a task: the first of each domain in the default run, the rest with -m slow."""
    seen, out = set(), []
    for r in acpbench_hard("dev", task):
        first = domain_name(r) not in seen
        seen.add(domain_name(r))
        out.append(pytest.param(r, id=f"{domain_name(r)}-{r['id']}", marks=() if first else pytest.mark.slow))
    return out


def quoted_plan(r) -> list[str]:
    return re.findall(r"\([^()]*\)", re.search(r'"([^"]*)"', r["question"]).group(1))


def index_of(plan: SequentialPlan, result) -> int | None:
    if result.inapplicable_action is None:
        return None
    return next(i for i, a in enumerate(plan.actions) if a is result.inapplicable_action)


def agree(problem, plan, engines):
    """Both validators' verdicts on one plan, asserted equal; returns ours."""
    ours, theirs = engines
    mine, ref = ours.validate(problem, plan), theirs.validate(problem, plan)
    assert (mine.status, mine.reason, index_of(plan, mine)) == (ref.status, ref.reason, index_of(plan, ref))
    return mine


@pytest.mark.parametrize("name", examples.names())
def test_every_example_loads_as_its_pddl_does(name):
    domain, text = examples.texts(name)
    problem = read(domain, text)
    task, direct = load_task(problem), load_task(domain, text)
    as_up = sorted(up_name(e.fluent(), e.args) for e in map(task.up.fluent_exp, task.atom_names))
    assert as_up == direct.atom_names and len(set(as_up)) == len(as_up)
    here = [
        up_name(ai.action, ai.actual_parameters) for ai in map(task.up.action_instance, task.questions.applicable())
    ]
    assert sorted(here) == direct.questions.applicable()


@pytest.mark.parametrize("name", examples.names())
def test_every_example_is_planned_validated_and_simulated(name, engines):
    problem = read(*examples.texts(name))
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)
    assert result.status == Plan.SOLVED_SATISFICING and "h_star" in result.metrics  # shortest, no metric to claim
    assert agree(problem, result.plan, engines).status == Valid.VALID
    fluents = list(problem.initial_values)
    ours = S.SequentialSimulator(problem, name="acptools")
    theirs = S.SequentialSimulator(problem, name="sequential_simulator")
    s, t = ours.get_initial_state(), theirs.get_initial_state()
    for k, ai in enumerate(result.plan.actions):
        assert values(fluents, s) == values(fluents, t), k
        if k in (0, len(result.plan.actions) - 1):  # UP lists applicable actions slowly: first and last state
            assert sorted(up_name(*m) for m in ours.get_applicable_actions(s)) == sorted(
                up_name(*m) for m in theirs.get_applicable_actions(t)
            )
        s, t = ours.apply(s, ai), theirs.apply(t, ai)
    assert values(fluents, s) == values(fluents, t) and ours.is_goal(s) and theirs.is_goal(t)


@pytest.mark.parametrize("name", ["ferry", "briefcase", "doors", "switches"])
def test_optimal_plans_have_the_oracles_h_star(name):
    domain, text = examples.texts(name) if name in examples.names() else pddl_texts(name)
    oracle = Oracle(domain, text)
    init = oracle.init_atoms()
    h_star = oracle.distances(init)[init]
    problem = read(domain, text).clone()
    problem.add_quality_metric(S.MinimizeSequentialPlanLength())
    with S.OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)
    assert result.status == Plan.SOLVED_OPTIMALLY
    assert len(result.plan.actions) == h_star == int(result.metrics["h_star"])
    names = [up_name(ai.action, ai.actual_parameters) for ai in result.plan.actions]
    assert oracle.is_goal(oracle.run(init, names))


@pytest.mark.parametrize("r", sampled("val"))
def test_val_records_agree_with_unified_plannings_validator(r, engines):
    problem = read(r["PDDL_domain"], r["PDDL_problem"])
    plan = up_plan(problem, quoted_plan(r))
    mine = agree(problem, plan, engines)
    assert mine.status == Valid.INVALID and index_of(plan, mine) == int(r["answer"])
    assert int(mine.metrics["first_inapplicable"]) == int(r["answer"])
    # the simulators agree on every state up to the failing step, and that it fails there
    fluents = list(problem.initial_values)
    ours = S.SequentialSimulator(problem, name="acptools")
    theirs = S.SequentialSimulator(problem, name="sequential_simulator")
    s, t = ours.get_initial_state(), theirs.get_initial_state()
    for ai in plan.actions[: int(r["answer"])]:
        s, t = ours.apply(s, ai), theirs.apply(t, ai)
        assert values(fluents, s) == values(fluents, t)
    bad = plan.actions[int(r["answer"])]
    assert not ours.is_applicable(s, bad) and not theirs.is_applicable(t, bad)
    assert mine.trace[-1] == s


@pytest.mark.parametrize("r", sampled("just"))
def test_just_records_agree_with_unified_plannings_validator(r, engines):
    problem = read(r["PDDL_domain"], r["PDDL_problem"])
    plan = up_plan(problem, quoted_plan(r))
    assert agree(problem, plan, engines).status == Valid.VALID
    n = len(plan.actions)
    statuses = set()
    for k in sorted({0, n // 3, n // 2, 2 * n // 3, n - 1}):  # the plan with one action removed, at 5 places
        statuses.add(agree(problem, SequentialPlan(plan.actions[:k] + plan.actions[k + 1 :]), engines).status)
    assert Valid.INVALID in statuses  # the records' plans are not all redundant


@pytest.mark.parametrize("name", ["ferry", "gripper-strips", "blocksworld-4ops", "logistics-strips"])
def test_up_pyperplans_plans_are_valid_for_acptools(name, engines):
    problem = read(*examples.texts(name))
    with S.OneshotPlanner(name="pyperplan") as planner:
        result = planner.solve(problem)
    assert result.status in (Plan.SOLVED_SATISFICING, Plan.SOLVED_OPTIMALLY)
    assert agree(problem, result.plan, engines).status == Valid.VALID
    task = load_task(problem)
    assert task.questions.is_plan([task.up.action_name(ai) for ai in result.plan.actions])

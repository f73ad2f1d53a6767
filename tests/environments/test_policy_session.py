"""The policy session every environment plays through (no server): what a reset may ask for (PDDL,
an example, a record, a named record source, a generated family, another state) and what it refuses
(paths, unknown arguments, two sources), starts that are already over, and the tool-call limit.
States are checked against the independent unified-planning oracle."""

from __future__ import annotations

import pytest

from acptools import AcpError, examples
from acptools.environments.session import PolicySession, Settings
from acptools.environments.step_rewards import REWARDS, Rewards
from acptools.environments.task_sources import starts
from tests.support.data import PDDL, records
from tests.support.oracle import Oracle


def session(**settings) -> PolicySession:
    return PolicySession(Settings(**settings), starts("ferry"))


def fluent(oracle: Oracle, atoms) -> set[str]:
    return set(atoms) & oracle.fluent_atoms()


def test_a_reset_on_pddl_text_starts_at_the_problem_init_with_the_oracle_h_star():
    r = records("dev", "nexta")[4]
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    report = session().reset(domain=r["PDDL_domain"], problem=r["PDDL_problem"])
    init = oracle.init_atoms()
    assert set(report.state) == fluent(oracle, init)
    assert report.h_star_after == oracle.distances(init)[init] == int(r["answer"]["opt"])
    assert report.start == "pddl" and not report.done and report.reward is None and report.steps == 0


def test_each_source_a_reset_names_gives_its_start():
    recs = records("dev", "nexta")
    s = session()
    assert s.reset(example="blocksworld-4ops").start == "example:blocksworld-4ops"
    assert s.reset(domain="grid").start == "example:grid"
    assert s.reset(record=recs[12]).state == s.reset(data="acpbench-hard:dev:nexta", index=12).state
    first = s.reset(family="hard:nexta", domain="ferry", seed=5)
    again = s.reset(family="hard:nexta", domain="ferry", seed=5)
    assert first.start.startswith("family:hard:nexta:seed=5:") and (first.start, first.state) == (
        again.start,
        again.state,
    )
    assert s.reset(seed=3).start == s.reset(seed=3).start  # the environment's own starts, seeded
    assert s.reset(index=0).start == "example:ferry"


def test_a_reset_may_start_in_another_state():
    domain, problem = examples.texts("ferry")
    oracle = Oracle(domain, problem)
    state = ["(at c0 l1)", "(at c1 l1)", "(at-ferry l0)", "(empty-ferry)"]
    report = session().reset(domain=domain, problem=problem, state=state)
    atoms = oracle.close(set(state) | (oracle.init_atoms() - oracle.fluent_atoms()))
    assert set(report.state) == set(state) and report.h_star_after == oracle.distances(atoms)[atoms]


@pytest.mark.parametrize(
    "args, message",
    [
        ({"domain": "/etc/hostname", "problem": "/etc/hostname"}, "not PDDL text"),
        ({"data": "/etc/hostname"}, "not a named record source"),
        ({"family": "hard:nexta", "domain": "tests/pddl/doors"}, "bundled example's name or PDDL text"),
        ({"colour": "red"}, "unknown reset argument 'colour'"),
        ({"example": "ferry", "record": {}}, "name two sources"),
        ({"example": "ferry", "index": 1}, "'index' does not go with example"),
        ({"example": "ferrry"}, "no bundled example"),
        ({"record": "{not json"}, "not valid JSON"),
        ({"record": {"id": 1}}, "needs PDDL_domain and PDDL_problem"),
        ({"index": 5}, "no start 5"),
        ({"family": "hard:joy"}, "no family"),
        ({"domain": examples.texts("ferry")[0]}, "no problem given"),
        ({"example": "ferry", "state": ["(at c9 l0)"]}, "c9"),
    ],
)
def test_bad_reset_arguments_are_clear_errors(args, message):
    with pytest.raises(AcpError, match=message):
        session().reset(**args)


def test_steps_before_a_reset_and_after_the_end_are_refused():
    s = session(max_steps=1)
    with pytest.raises(AcpError, match="step before reset"):
        s.act("(board c0 l0)")
    assert s.reset(example="ferry").done is False
    assert s.act("nothing").done_reason == "step_limit"
    with pytest.raises(AcpError, match=r"the episode is over \(step_limit\)"):
        s.act("(board c0 l0)")


def test_a_start_in_the_goal_or_in_a_dead_end_is_over_at_once():
    domain, problem = examples.texts("ferry")
    goal = session().reset(
        domain=domain, problem=problem, state=["(at c0 l0)", "(at c1 l2)", "(at-ferry l0)", "(empty-ferry)"]
    )
    assert goal.done and goal.done_reason == "goal" and goal.solved and goal.h_star_after == 0
    dom, prob = (PDDL / "doors" / "domain.pddl").read_text(), (PDDL / "doors" / "problem.pddl").read_text()
    oracle = Oracle(dom, prob)
    s = session()
    s.reset(domain=dom, problem=prob)
    for action in oracle.path_to_a_dead_end():
        s.act(action)
    stuck = s.reset(domain=dom, problem=prob, state=s.episode.task.names(s.episode.state))
    assert stuck.done and stuck.done_reason == "dead_end" and stuck.dead_end and stuck.h_star_after is None
    assert stuck.h_star_known and stuck.proof["h_star_how"] != "unknown"


@pytest.mark.parametrize("kind", REWARDS)
def test_a_step_into_a_dead_end_is_not_optimal_and_costs_its_penalty(kind):
    """Under every reward: the step is applied, known, not optimal, with no regret and no h* after; it
    earns -dead_end_penalty and ends the episode (the oracle: no path to the goal from there)."""
    dom, prob = (PDDL / "doors" / "domain.pddl").read_text(), (PDDL / "doors" / "problem.pddl").read_text()
    oracle = Oracle(dom, prob)
    path = oracle.path_to_a_dead_end()
    s = PolicySession(Settings(rewards=Rewards(kind, dead_end_penalty=3.0)))
    s.reset(domain=dom, problem=prob)
    for action in path[:-1]:
        assert not s.act(action).done
    end = s.act(path[-1])
    assert oracle.distances(oracle.run(oracle.init_atoms(), path)) == {}
    assert (end.verdict, end.optimal, end.regret, end.h_star_after, end.h_star_known) == (
        "applied",
        False,
        None,
        None,
        True,
    )
    assert end.h_star_before is not None and end.dead_end and end.done and end.done_reason == "dead_end"
    assert end.reward == -3.0 and end.summary["optimal_steps"] < len(path) and not end.summary["solved"]
    with pytest.raises(AcpError, match=r"the episode is over \(dead_end\)"):
        s.act(path[0])


def test_tool_calls_are_counted_and_one_past_the_limit_ends_the_episode():
    s = session(max_tool_calls=2)
    assert s.tool_call() is None and s.tool_calls == 0  # no episode: not counted
    s.reset(example="ferry")
    assert s.tool_call() is None and s.tool_call() is None and s.tool_calls == 2
    over = s.tool_call()
    assert over.done and over.done_reason == "tool_limit" and over.tool_calls == 2 and over.reward == 0.0
    assert over.summary["steps"] == 0 and s.tool_call() is None


def test_rewards_of_each_kind_and_the_goal_bonus():
    domain, problem = examples.texts("ferry")
    plan = ["(sail l0 l1)", "(board c1 l1)", "(sail l1 l2)", "(debark c1 l2)"]  # optimal: h*(init) = 4
    for kind, expected in (("progress", 4.0), ("regret", 0.0), ("cost", -4.0)):
        s = PolicySession(Settings(Rewards(kind, goal_bonus=2.5)), [])
        s.reset(domain=domain, problem=problem)
        reports = [s.act(a) for a in plan]
        assert [r.regret for r in reports] == [0, 0, 0, 0]
        assert sum(r.reward for r in reports) == expected + 2.5 and reports[-1].done_reason == "goal"
    with pytest.raises(AcpError, match="unknown reward"):
        Rewards("joy")

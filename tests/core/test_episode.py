"""Episodes: every step's verdict, regret and optimality against the brute-force oracle."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acptools import AcpError, examples, load_task
from acptools.environments.step_rewards import DEAD_END, ending, entered_dead_end
from acptools.episode import APPLIED, HALLUCINATED, INAPPLICABLE, UNPARSED, Episode
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle
from tests.support.small_tasks import DOMAINS, SEEDS, SETTINGS, make, space


@pytest.mark.slow  # each example grades eight steps against a full state space
@settings(SETTINGS, max_examples=5)
@given(domain=st.sampled_from(sorted(DOMAINS)), seed=SEEDS, walk=st.integers(0, 1000))
def test_random_walk_steps_are_graded_as_the_oracle_says(domain, seed, walk):
    task, oracle = make(domain, seed)
    init, graph, dist = space(domain, seed)
    ep = Episode(task, budget=30)
    assert ep.h_star_start == dist.get(init)
    rng = random.Random(walk)
    state = frozenset(init)
    for _ in range(8):
        if task.is_goal(ep.state):
            break
        moves = graph[state]
        if not moves:
            break
        name, nxt = rng.choice(moves)
        step = ep.step(f"I will take {name} now.", budget=30)
        assert step.verdict == APPLIED and step.known and step.action == name
        before, after = dist.get(state), dist.get(nxt)
        if before is None:
            assert step.optimal is False and step.regret is None
        elif after is None:
            assert step.optimal is False and step.h_star_after is None
        else:
            assert (step.h_star_before, step.h_star_after) == (before, after)
            assert step.regret == after + 1 - before and step.optimal == (after == before - 1)
        state = nxt
        assert set(task.names(ep.state)) == set(state) & set(task.atom_names)
    s = ep.summary()
    assert s.applied_steps == len(ep.history) and s.unknown_steps == 0
    assert s.optimal_steps == sum(1 for st_ in ep.history if st_.optimal)


def test_invalid_replies_are_classified_and_leave_the_state():
    task = load_task(*examples.texts("ferry"))
    ep = Episode(task)
    start = ep.state
    assert ep.step("no idea").verdict == UNPARSED
    assert ep.step("(fly l0 l1)").verdict == HALLUCINATED
    assert ep.step("(board c7 l0)").verdict == HALLUCINATED
    bad = ep.step("(debark c0 l1)")
    assert bad.verdict == INAPPLICABLE and "(on c0)" in bad.reason
    assert ep.state == start
    s = ep.summary()
    assert s.invalid == {"inapplicable": 1, "unparsed": 1, "hallucinated": 2} and s.applied_steps == 0
    assert s.optimal_step_rate is None and s.mean_regret is None


def test_following_an_optimal_plan_solves_with_rate_one_and_no_extra_search():
    task = load_task(*examples.texts("ferry"))
    plan = task.questions.h_star().plan
    ep = Episode(task)
    for a in plan:
        assert ep.step(a).optimal
    s = ep.summary()
    assert s.solved and s.optimal_step_rate == 1.0 and s.plan_length == s.h_star_start == len(plan)
    assert s.length_ratio == 1.0 and s.excess_length == 0
    with pytest.raises(AcpError, match="finished"):
        ep.step(plan[0])


def test_undo_takes_back_the_last_attempt():
    task = load_task(*examples.texts("ferry"))
    plan = task.questions.h_star().plan
    ep = Episode(task)
    ep.step(plan[0])
    after_one = (ep.state, list(ep.plan), len(ep.history))
    for text in (plan[1], "(fly l0 l1)"):
        ep.step(text)
        taken = ep.undo()
        assert taken.action in (plan[1], "(fly l0 l1)") and (ep.state, ep.plan, len(ep.history)) == after_one
    assert ep.undo().action == plan[0] and ep.state == ep.start and ep.plan == [] and ep.history == []
    with pytest.raises(AcpError, match="no step to take back"):
        ep.undo()
    for a in plan:
        assert ep.step(a).optimal
    assert ep.over == "goal" and ep.summary().solved


def test_unknown_optimality_is_counted_apart_and_not_searched_again():
    task = load_task(*examples.texts("grid"))
    ep = Episode(task, budget=1e-9)
    assert not ep.h_star_known
    step = ep.step(task.questions.applicable()[0], budget=1e-9)
    assert step.verdict == APPLIED and not step.known and step.optimal is None
    s = ep.summary()
    assert s.unknown_steps == 1 and s.optimal_step_rate is None


def _dead_end_moves(oracle: Oracle):
    """(state, action, next state) for every move from a state with a plan into one without."""
    init = oracle.init_atoms()
    graph, dist = oracle.graph(init), oracle.distances(init)
    return (
        [
            (s, a, t)
            for s, out in sorted(graph.items(), key=lambda kv: sorted(kv[0]))
            if s in dist
            for a, t in out
            if t not in dist
        ],
        graph,
        dist,
    )


@pytest.mark.parametrize("name", ["doors", "briefcase"])
def test_every_step_into_a_dead_end_is_graded_not_optimal_and_ends_the_episode(name):
    """Every move of the task from a state with a plan into one without (the oracle's graph): applied,
    known, not optimal, no regret and no h* after; the episode is in a dead end and ends there; a
    step taken from the dead end is not optimal either."""
    task = load_task(*pddl_texts(name))
    oracle = Oracle(*pddl_texts(name))
    moves, graph, dist = _dead_end_moves(oracle)
    assert len(moves) >= 8
    fluent = oracle.fluent_atoms()
    for s, a, t in moves:
        ep = Episode(task, sorted(s & fluent), budget=30)
        assert ep.h_star_start == dist[s] and not ep.dead_end
        step = ep.step(a, budget=30)
        assert (step.verdict, step.known, step.optimal, step.regret) == (APPLIED, True, False, None), (a, step)
        assert step.h_star_before == dist[s] and step.h_star_after is None
        assert set(task.names(ep.state)) == t & fluent
        assert ep.dead_end and ep.over == DEAD_END and entered_dead_end(ep, step) and ending(ep, step, 50) == DEAD_END
        summary = ep.summary()
        assert (summary.optimal_steps, summary.optimal_step_rate, summary.mean_regret) == (0, 0.0, None)
        assert not summary.solved and summary.excess_length is None
        if graph[t]:
            again = ep.step(graph[t][0][0], budget=30)
            assert (again.applied, again.known, again.optimal, again.regret) == (True, True, False, None)
            assert again.h_star_before is None and again.h_star_after is None and ep.dead_end
        stuck = Episode(task, sorted(t & fluent), budget=30)
        assert stuck.dead_end and stuck.h_star_known and stuck.h_star_start is None

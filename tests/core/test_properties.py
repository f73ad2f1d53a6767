"""Property tests: on small generated tasks every answer equals the brute-force oracle's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.support.oracle import Oracle
from tests.support.small_tasks import DOMAINS, SEEDS, SETTINGS, make, space


@SETTINGS
@given(domain=st.sampled_from(sorted(DOMAINS)), seed=SEEDS)
def test_applicable_and_progression_match_oracle(domain, seed):
    task, oracle = make(domain, seed)
    q = task.questions
    init = oracle.init_atoms()
    assert set(task.names(task.init)) == set(init) & set(task.atom_names)
    assert q.applicable() == oracle.applicable(init)
    for a in q.applicable():
        p = q.progress(a)
        assert p.applicable
        nxt = oracle.successor(init, a)
        assert set(p.state) == nxt & set(task.atom_names)
        assert set(p.positive_effects) == (nxt - init) & set(task.atom_names)
        assert set(p.negative_effects) == (init - nxt) & set(task.atom_names)


@SETTINGS
@given(domain=st.sampled_from(sorted(DOMAINS)), seed=SEEDS)
def test_h_star_and_optimal_next_actions_match_oracle(domain, seed):
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    rep = task.questions.optimal_next(budget=30)
    assert rep.known
    assert rep.h_star == dist.get(init)
    expected = set()
    for v in rep.actions:
        nxt = oracle.successor(init, v.action)
        assert v.h_star_after == dist.get(nxt), v.action
        if init in dist and dist.get(nxt) == dist[init] - 1:
            expected.add(v.action)
    assert set(rep.optimal_actions) == expected
    if rep.plan is not None:
        end = oracle.run(init, rep.plan)
        assert end is not None and oracle.is_goal(end) and len(rep.plan) == rep.h_star


@SETTINGS
@given(domain=st.sampled_from(sorted(DOMAINS)), seed=SEEDS)
def test_reachability_matches_oracle(domain, seed):
    task, oracle = make(domain, seed)
    q = task.questions
    init, graph, _ = space(domain, seed)
    seen_atoms = set().union(*graph)
    seen_actions = {a for out in graph.values() for a, _ in out}
    props = set(task.atom_names)
    res = q.unreachable_atoms(budget=30)
    assert res.complete
    assert set(res.names) == props - seen_atoms
    acts = q.unreachable_actions(budget=30)
    assert acts.complete
    assert set(acts.names) == set(task.all_ground_actions()) - seen_actions
    for atom in sorted(props)[:6]:
        v = q.is_reachable(atom, budget=30)
        assert v.answer == (atom in seen_atoms), atom
        if v.answer:
            end_states = _trajectory(oracle, init, v.witness)
            assert any(atom in s for s in end_states)
    atoms = sorted(props)
    for pair in [atoms[i:i + 2] for i in range(0, min(len(atoms) - 1, 12), 3)]:
        v = q.is_reachable(pair, budget=30)  # two facts at once, as ACPBench's reach questions ask
        assert v.answer == any(set(pair) <= s for s in graph), pair
        if v.answer:
            assert set(pair) <= _trajectory(oracle, init, v.witness)[-1]


def _trajectory(oracle, init, plan):
    states = [frozenset(init)]
    for a in plan:
        nxt = oracle.successor(states[-1], a)
        assert nxt is not None, f"witness action {a} not applicable"
        states.append(nxt)
    return states


@SETTINGS
@given(domain=st.sampled_from(sorted(DOMAINS)), seed=SEEDS)
def test_landmarks_match_oracle(domain, seed):
    task, oracle = make(domain, seed)
    q = task.questions
    init, graph, dist = space(domain, seed)
    goals = {s for s, d in dist.items() if d == 0}
    goal_atoms = set(task.names(task.goal_atoms))
    expected = set()
    for p in sorted(set(task.atom_names) - init - goal_atoms):
        if not Oracle.goal_reachable_avoiding(graph, goals, init, p):
            expected.add(p)
    res = q.landmarks(budget=30)
    assert res.complete
    assert set(res.names) == expected
    for p in sorted(set(task.atom_names) - init - goal_atoms)[:5]:
        v = q.is_landmark(p, budget=30)
        assert v.answer == (p in expected)
        if v.answer is False:
            states = _trajectory(oracle, init, v.witness)
            assert oracle.is_goal(states[-1]) and all(p not in s for s in states)

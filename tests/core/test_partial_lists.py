"""List questions that run out of budget answer with what they proved: proven members, proven
non-members (each with how it is known) and the undecided rest. Every proven item, and every cheap
landmark proof, is checked against the brute-force oracle on the bundled and ADL test domains, under
budgets from tiny (the partial path) to ample (the complete one)."""

from __future__ import annotations

from functools import cache

import pytest

from acptools import load_task
from acptools.budget import Budget
from acptools.claims import decide
from acptools.engine.landmark_graph import fact_landmarks
from acptools.questions import ItemList
from acptools.truth import truth_for
from tests.support.oracle import Oracle
from tests.support.small_tasks import DOMAINS, make, space

PAIRS = [
    pytest.param(d, seed, id=f"{d}-{seed}", marks=() if seed == 0 else pytest.mark.slow)
    for d in sorted(DOMAINS)
    for seed in range(3)
]
BUDGETS = (0.002, 0.02, 0.2, 30.0)  # wall seconds: the smallest leave most lists partial


def budgets(seed: int) -> tuple[float, ...]:
    """A tiny and an ample budget in the default run; the whole range with -m slow."""
    return (0.005, 30.0) if seed == 0 else BUDGETS


@cache
def oracle_facts(domain: str, seed: int, state: frozenset):
    """(true non-trivial landmarks, reachable atoms, applicable-somewhere actions, candidates, whether
    a goal is reachable) of a state reachable from init: its part of the oracle's cached graph."""
    task, oracle = make(domain, seed)
    _, full, dist = space(domain, seed)
    graph, queue = {state: full[state]}, [state]
    while queue:
        for _, t in full[queue.pop()]:
            if t not in graph:
                graph[t] = full[t]
                queue.append(t)
    goals = {t for t in graph if dist.get(t) == 0}
    trivial = set(state) | set(task.names(task.goal_atoms))
    candidates = oracle.fluent_atoms() - trivial
    landmarks = {p for p in candidates if not Oracle.goal_reachable_avoiding(graph, goals, state, p)}
    reachable = set().union(*graph)
    applicable = {a for out in graph.values() for a, _ in out}
    return landmarks, reachable, applicable, candidates, bool(goals)


def states_of(domain: str, seed: int) -> list[frozenset]:
    """The initial state and reachable states of the oracle's graph (deterministic picks): one in
    the default run, three with -m slow."""
    k = 1 if seed == 0 else 3
    init, graph, _ = space(domain, seed)
    others = sorted(graph, key=lambda s: sorted(s))
    return [init] + others[:: max(1, len(others) // k)][:k]


def check_partition(res: ItemList, candidates: set[str]) -> None:
    """Members, refuted and undecided never overlap; a complete list leaves nothing undecided."""
    members, refuted, unknown = set(res.names), {i.name for i in res.refuted}, set(res.unknown)
    assert not members & refuted and not members & unknown and not refuted & unknown
    assert members | refuted | unknown <= candidates
    assert res.complete == (not unknown)
    for name in members:
        assert res.member(name)[0] is True
    for name in refuted:
        assert res.member(name)[0] is False
    for name in unknown:
        assert res.member(name)[0] is None


@pytest.mark.parametrize("domain,seed", PAIRS)
def test_cheap_landmark_proofs_are_landmarks(domain, seed):
    task, _ = make(domain, seed)
    for state in states_of(domain, seed):
        s = task.parse_state(sorted(state & set(task.atom_names)))
        task.grounded.ensure(s)
        landmarks, _, _, _, solvable = oracle_facts(domain, seed, state)
        found = fact_landmarks(task.questions.engine.relax, s, task.goal, closure=not task.axioms)
        if found is None:  # the relaxation says no plan exists: the oracle agrees
            assert not solvable
            continue
        relaxed, closure, finished = found
        assert finished
        proven = set(task.names((relaxed | closure) & ~s & ~task.goal_atoms))
        assert proven <= landmarks, (domain, seed, sorted(proven - landmarks))


@pytest.mark.parametrize("domain,seed", PAIRS)
def test_partial_landmark_lists_agree_with_oracle(domain, seed):
    task, oracle = make(domain, seed)
    q = task.questions
    for state in states_of(domain, seed):
        landmarks, _, _, candidates, _ = oracle_facts(domain, seed, state)
        s = sorted(state)
        for budget in budgets(seed):
            res = q.landmarks(s, budget=budget)
            check_partition(res, candidates)
            assert set(res.names) <= landmarks, (domain, budget, sorted(set(res.names) - landmarks))
            for it in res.refuted:
                assert it.name not in landmarks and it.witness is not None
                end = oracle.run(state, it.witness)
                assert end is not None and oracle.is_goal(end)
                walk, at = [state], state
                for a in it.witness:
                    at = oracle.successor(at, a.lower())
                    walk.append(at)
                assert all(it.name not in w for w in walk)
            if res.complete:
                assert set(res.names) == landmarks


@pytest.mark.parametrize("domain,seed", PAIRS)
def test_partial_reach_lists_agree_with_oracle(domain, seed):
    task, oracle = make(domain, seed)
    q = task.questions
    props, actions = oracle.fluent_atoms(), oracle.ground_actions()
    for state in states_of(domain, seed):
        _, reachable, applicable, _, _ = oracle_facts(domain, seed, state)
        s = sorted(state)
        for budget in budgets(seed):
            atoms = q.unreachable_atoms(s, budget=budget)
            check_partition(atoms, props)
            assert set(atoms.names) <= props - reachable
            assert {i.name for i in atoms.refuted} <= reachable
            acts = q.unreachable_actions(s, budget=budget)
            check_partition(acts, actions)
            assert set(acts.names) <= actions - applicable
            assert {i.name for i in acts.refuted} <= applicable
            if atoms.complete:
                assert set(atoms.names) == props - reachable
            if acts.complete and acts.total == len(acts.items):
                assert set(acts.names) == actions - applicable


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_claims_and_truth_decide_from_a_partial_list(domain):
    """A list cut short still decides the items it proved: membership claims and single-item verdicts
    come from it (with its proof, and a refuting plan as the witness) instead of a new search."""
    task, oracle = make(domain, 0)
    init = oracle.init_atoms()
    landmarks, _, _, _, _ = oracle_facts(domain, 0, init)
    truth = truth_for(task, task.init)
    full = task.questions.landmarks(budget=30)
    assert full.complete
    half = len(full.items) // 2
    cut = ItemList(
        full.items[:half], False, half, [i.name for i in full.items[half:]], "cut for the test", full.refuted
    )
    truth._partial["landmarks"] = cut
    try:
        check_cut(task, oracle, truth, full, half, landmarks)
    finally:
        truth._partial.pop("landmarks", None)


def check_cut(task, oracle, truth, full, half, landmarks) -> None:
    init = oracle.init_atoms()
    for it in full.items[:half]:
        v = decide(task, task.init, {"claim": "landmark", "atom": it.name})
        assert v.answer is True and v.how == it.how and it.name in landmarks
        assert truth.landmark(task.parse_atom(it.name), 30).how == it.how
    for it in full.refuted[:5]:
        v = truth.landmark(task.parse_atom(it.name), 30)
        assert v.answer is False and v.witness == it.witness and it.name not in landmarks
        end = oracle.run(init, v.witness)
        assert end is not None and oracle.is_goal(end)
    for it in full.items[half:]:  # undecided in the cut list: decided by a search of its own
        assert truth.landmark(task.parse_atom(it.name), 30).answer is True


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_a_budget_spent_before_the_actions_are_sorted_out_leaves_every_action_undecided(domain):
    """The earliest way out of unreachable_actions (the budget gone before the possible actions are
    known) still partitions the candidates: nothing proven, every type-correct action undecided."""
    task, oracle = make(domain, 0)
    fresh = load_task(task.domain_text, task.problem_text)  # its possible actions not yet computed
    res = fresh.questions.unreachable_actions(budget=Budget(1e-9, None))
    if res.complete:
        pytest.skip("the possible actions were sorted out before the first budget check")
    check_partition(res, oracle.ground_actions())
    assert not res.items and set(res.unknown) == oracle.ground_actions()

"""The per-action h* table of optimal_next, proof path by proof path, against independent answers.

On the generated tasks of test_properties (brute force over unified-planning's simulator) every
way the library can settle the table must give the oracle's h* after every applicable action:
the whole question, Fast Downward's table (split root solve, gated re-solves, f-floor stops),
SymK's, the in-process A* with one A* per row, gated searches after a quick A* root, and one
search per row. Every plan a path returns is replayed by the oracle. On small states of the
suite's ADL domains (conditional effects Fast Downward now runs on) the table must equal h* found
by searches that share no table code, and Fast Downward's plans must replay in the oracle.
"""

from __future__ import annotations

import random

import pytest

from acptools import load_task
from acptools.budget import Budget
from acptools.engine.hstar_table import INF, HStarTable
from acptools.planners import fd
from tests.support.data import ROOT
from tests.support.oracle import Oracle
from tests.support.small_tasks import AXIOM_DOMAINS, DOMAINS, make, space

SUITE = ROOT / "benchmarks" / "suite"
CASES = [
    pytest.param(d, seed, id=f"{d}-{seed}", marks=pytest.mark.slow if d in AXIOM_DOMAINS and seed else ())
    for d in sorted(DOMAINS)
    for seed in (0, 3)
]


def _expected(task, oracle, dist, init):
    """The oracle's h*(init) and h* after each applicable action (None: goal unreachable)."""
    return dist.get(init), {a: dist.get(oracle.successor(init, a)) for a in oracle.applicable(init)}


def _check_table(task, table: HStarTable, values: dict):
    assert not table.open_rows(), "every row must be settled"
    for name, want in values.items():
        settled, h = table.value(task.parse_action(name))
        assert settled
        assert (None if h == INF else h) == want, name


def _check_plan(oracle, init, task, plan, length):
    names = task.action_list(plan)
    end = oracle.run(init, names)
    assert end is not None and oracle.is_goal(end) and len(names) == length


@pytest.mark.parametrize("domain,seed", CASES)
def test_whole_question_matches_oracle(domain, seed):
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    d, values = _expected(task, oracle, dist, init)
    rep = task.questions.optimal_next(budget=60, table=True)
    assert rep.known and rep.h_star == d
    got = {v.action: v.h_star_after for v in rep.actions}
    assert all(v.known for v in rep.actions) and got == values
    assert (
        {v.action for v in rep.actions if v.optimal}
        == set(rep.optimal_actions)
        == {a for a, h in values.items() if d is not None and h == d - 1}
    )
    for v in rep.actions:
        assert v.regret == (None if v.h_star_after is None else v.h_star_after + 1 - d)


@pytest.mark.parametrize("domain,seed", CASES)
def test_fast_downward_table_matches_oracle(domain, seed):
    """The root solve split in two gated searches, then gated re-solves (plans, floors proven by
    bounds and by A*'s f-values) until every row is settled."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    d, values = _expected(task, oracle, dist, init)
    opt = task.questions.optimizer
    state = task.init
    if d == 0:
        return  # a goal state: no search from it (the whole-question test covers its rows)
    res = opt.by_fd(state, Budget(120), exact=True)
    assert res is not None and res.cost == d
    if d is None:
        return
    _check_plan(oracle, init, task, res.plan, d)
    _check_table(task, res.table, values)
    assert res.optimal == {task.parse_action(a) for a, h in values.items() if h == d - 1}


@pytest.mark.parametrize("domain,seed", CASES)
def test_fast_downward_optimal_actions_and_their_plans_match_oracle(domain, seed):
    """Without the table: the root solve, a step from each open row back onto a known plan
    (lookahead), then gated re-solves until each row is known optimal or not. The optimal set is
    the oracle's, and every plan kept for an optimal action starts with it, is optimal and replays."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    d, values = _expected(task, oracle, dist, init)
    if not d:
        return
    res = task.questions.optimizer.by_fd(task.init, Budget(120))
    assert res is not None and res.cost == d
    assert res.optimal == {task.parse_action(a) for a, h in values.items() if h == d - 1}
    _check_plan(oracle, init, task, res.plan, d)
    for action, plan in res.plans.items():
        assert plan[0] == action and action in res.optimal
        _check_plan(oracle, init, task, plan, d)


def test_a_step_back_onto_an_optimal_plan_shows_its_row_optimal():
    """Lookahead alone decides a row: from the state after a non-plan action, one step reaches a
    state of the known optimal plan with h* - 2 steps to go. The plan it keeps replays."""
    for domain, seed in [(d, s) for d in sorted(DOMAINS) for s in range(6)]:
        task, oracle = make(domain, seed)
        init, _, dist = space(domain, seed)
        d, values = _expected(task, oracle, dist, init)
        if not d or d < 2:
            continue
        opt = task.questions.optimizer
        root = opt._fd_h(task.init, Budget(60))
        table = opt.new_table(task.init, d, root.plan)
        before = table.optimal_actions()
        table.learn_lookahead(task.questions.engine.gen, [root.plan], exact=False)
        shown = table.optimal_actions() - before
        if not shown:
            continue
        for action in shown:
            assert values[task.action_list([action])[0]] == d - 1
        kept = [table.plans[a] for a in shown if a in table.plans]
        assert kept, "a row shown optimal keeps the plan that shows it"
        for plan in kept:
            _check_plan(oracle, init, task, plan, d)
        return
    pytest.fail("no generated task has a row that lookahead alone shows optimal")


@pytest.mark.parametrize("domain,seed", CASES)
def test_gated_searches_after_an_astar_root_match_oracle(domain, seed):
    """The path after the quick in-process A* settles the root: bounds from its plan, then gated
    Fast Downward searches over all open rows (two groups side by side), and separately one
    search per row (each row's own exact h*) and the in-process A* per row."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    d, values = _expected(task, oracle, dist, init)
    if not d:
        return
    opt = task.questions.optimizer
    root = opt._astar(task.init, Budget(60))
    fresh = lambda: opt.new_table(task.init, d, root.plan, optimal=root.first_actions)
    table = opt._settled_by_gate(fresh(), opt.fd_gate(task.init), Budget(120), True)
    assert table is not None
    _check_table(task, table, values)
    from acptools.engine.hstar_table import settle_each

    each = fresh()
    settle_each(each, lambda t, b: opt.h_star(t, b, quick=False, astar=False), Budget(120))
    _check_table(task, each, values)
    by_astar = opt._settled_by_astar(fresh(), Budget(60))
    _check_table(task, by_astar, values)


@pytest.mark.parametrize("domain", ["briefcase", "doors", "switches", "ferry"])
def test_symk_table_matches_oracle(domain):
    task, oracle = make(domain, 0)
    init, _, dist = space(domain, 0)
    d, values = _expected(task, oracle, dist, init)
    if not d:
        return
    res = task.questions.optimizer.by_symk(task.init, Budget(180), exact=True)
    assert res is not None and res.cost == d
    _check_plan(oracle, init, task, res.plan, d)
    _check_table(task, res.table, values)


@pytest.mark.parametrize("domain,seed", CASES[::2])
def test_fast_downward_floors_never_exceed_h_star(domain, seed):
    """What the f-value watch and the bound report is a proof: a floor F means no plan shorter
    than F, checked against the oracle's h* for every stop and bound around it."""
    task, oracle = make(domain, seed)
    init, _, dist = space(domain, seed)
    d = dist.get(init)
    if d is None or d == 0:
        return
    ops = task.questions.optimizer.ops_from(task.init)
    for k in range(1, d + 2):
        for kw in ({"stop_floor": k}, {"bound": k}, {"stop_floor": k, "bound": k}):
            r = fd.solve(len(task.atoms), ops, task.init, task.goal, 60, axioms=task.axioms, **kw)
            assert r.floor <= d, (k, kw, r)
            if r.plan is not None:
                assert len(r.plan) == d
            if "bound" in kw and r.proven_none:
                assert d >= k and r.floor == k
            if "bound" not in kw and r.plan is None:  # stopped: the floor it reached is the stop
                assert r.floor >= k and not r.timed_out


def test_fast_downward_stops_once_its_f_values_prove_the_floor():
    """A* stopped by its f-value lines (no bound) reports the floor it proved and no more: on a
    task large enough for the log to be read while it searches."""
    folder = SUITE / "logistics"
    task = load_task(folder / "domain.pddl", folder / "small.pddl")
    n = len(task.atoms)
    d = len(fd.solve(n, task.operators, task.init, task.goal, 120).plan)
    stopped = fd.solve(n, task.operators, task.init, task.goal, 120, stop_floor=d - 1)
    assert stopped.plan is None and not stopped.timed_out and not stopped.proven_none
    assert d - 1 <= stopped.floor <= d and "stopped at f" in stopped.detail
    past = fd.solve(n, task.operators, task.init, task.goal, 120, stop_floor=d + 1)
    assert past.plan is not None and len(past.plan) == d == past.floor


ADD_WINS = """(define (domain add-wins)
  (:requirements :strips :conditional-effects :negative-preconditions)
  (:predicates (p) (r) (q) (done))
  (:action set-p :parameters () :precondition (not (p)) :effect (p))
  (:action toggle :parameters ()
    :precondition (not (done))
    :effect (and (done) (when (p) (q)) (when (r) (not (q))))))
"""


@pytest.mark.parametrize(
    "init,goal,length",
    [
        ("(r)", "(and (done) (q))", 2),  # set-p, then toggle adds q although r deletes it
        ("(r) (q)", "(and (done) (not (q)))", 1),  # toggle without p: only the delete fires
        ("(r) (q)", "(and (done) (q))", 2),  # the delete must be avoided: set-p first
    ],
)
def test_fast_downward_keeps_add_over_delete_of_one_atom(init, goal, length):
    """One atom added under one condition and deleted under another: the add wins, as in
    GroundedTask.apply_op (Fast Downward's translator negates the add's condition in the delete)."""
    problem = f"(define (problem p) (:domain add-wins) (:init {init}) (:goal {goal}))"
    task = load_task(ADD_WINS, problem)
    res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30)
    assert res.plan is not None and len(res.plan) == length
    plan = [task.operators[i].action for i in res.plan]
    assert task.is_plan(plan, task.init)
    oracle = Oracle(ADD_WINS, problem)
    end = oracle.run(oracle.init_atoms(), task.action_list(plan))
    assert end is not None and oracle.is_goal(end)
    assert task.questions.h_star(budget=30).h_star == length


def _oracle_atoms(task, oracle, state):
    """A state for the oracle: its fluent atoms plus the static facts (the oracle keeps both)."""
    return set(task.names(state)) | (oracle.init_atoms() - set(task.atom_names))


def _near_goal_states(task, n: int, seed: int = 0):
    """States 1..n steps before the end of a plan from init (h* <= n), and a few random walks."""
    plan = task.questions.plan(optimal=False, budget=60).witness
    ids = task.parse_plan(plan)
    out = []
    for left in range(1, min(n, len(ids)) + 1):
        _, s = task.run(ids[: len(ids) - left], task.init)
        out.append(s)
    rng = random.Random(seed)
    for _ in range(2):
        s = out[-1]
        for _ in range(2):
            s = task.apply_op(rng.choice(task.applicable_ops(s)), s)
        out.append(s)
    return out


@pytest.mark.parametrize(
    "domain,depth", [("briefcaseworld", 3), pytest.param("schedule", 2, marks=pytest.mark.slow), ("miconic-fulladl", 3)]
)
def test_suite_adl_tables_match_independent_searches(domain, depth):
    """Small near-goal states of ADL suite tasks (conditional effects, quantifiers): the table
    equals the in-process A*'s h* of every successor, and the plans replay in the oracle."""
    folder = SUITE / domain
    dom, prob = (folder / "domain.pddl").read_text(), (folder / "small.pddl").read_text()
    task = load_task(dom, prob)
    opt = task.questions.optimizer
    oracle = Oracle(dom, prob)
    for s in _near_goal_states(task, depth):
        res = opt.by_fd(s, Budget(120), exact=True)
        root = opt._astar(s, Budget(120))
        assert res is not None and res.cost == root.cost
        if res.cost is None or res.cost == 0:
            continue
        assert res.optimal == root.first_actions
        end = oracle.run(_oracle_atoms(task, oracle, s), task.action_list(res.plan))
        assert end is not None and oracle.is_goal(end)
        for a in task.applicable(s):
            t = task.apply_op(task.op_for(a, s), s)
            want = opt._astar(t, Budget(120)).cost
            settled, h = res.table.value(a)
            assert settled and (None if h == INF else h) == want, task.action_names[a]


def test_rubiks_cube_runs_on_fast_downward_with_valid_plans():
    """rubiks-cube adds and deletes one atom in two conditional effects of every move: Fast
    Downward now runs on it; its table matches plain per-successor Fast Downward solves, and a
    plan replays in the oracle (its simulator takes seconds per move here, so one plan)."""
    folder = SUITE / "rubiks-cube"
    dom, prob = (folder / "domain.pddl").read_text(), (folder / "small.pddl").read_text()
    task = load_task(dom, prob)
    opt = task.questions.optimizer
    s = _near_goal_states(task, 2)[1]
    res = opt.by_fd(s, Budget(300), exact=True)
    assert res is not None and res.cost is not None and res.cost <= 2
    for a in task.applicable(s):
        t = task.apply_op(task.op_for(a, s), s)
        plain = fd.solve(len(task.atoms), task.operators, t, task.goal, 300)
        assert plain.plan is not None
        assert task.is_plan([task.operators[i].action for i in plain.plan], t)
        settled, h = res.table.value(a)
        assert settled and h == len(plain.plan), task.action_names[a]
    oracle = Oracle(dom, prob)
    state = oracle.state(_oracle_atoms(task, oracle, s))
    for name in task.action_list(res.plan):
        state = oracle.apply(state, name)
        assert state is not None, name
    assert oracle.sim.is_goal(state)

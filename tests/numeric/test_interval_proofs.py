"""The interval relaxation of numeric values (engine/intervals.py) in the projection's proofs
(engine/numeric_proofs.py): sound against the independent exact oracle (tests/support/numeric_oracle.py)
on every finite problem of the numeric corpus, from the initial state and from states along random
walks, and strong enough to prove what the projection alone cannot (a comparison the values forbid)."""

from __future__ import annotations

import random

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from acptools import load_task
from acptools.engine.numeric_proofs import INTERVAL_RELAXED
from acptools.ground.grounded import bits
from tests.numeric.test_server_numeric import call
from tests.server.test_server_transports import REPO, server_command
from tests.support.load import slack
from tests.support.numeric_corpus import CORPUS, kind, numeric_families, problems
from tests.support.numeric_oracle import load_task as load_oracle
from tests.support.server_procs import clean_env

LIMIT = 20_000  # states the oracle enumerates: a problem it enumerates completely is finite
WALKS, STEPS = 3, 6  # random walks per problem, and their length
LONG_WALKS, LONG_STEPS = 12, 20  # the slow sweep's
CASES = [(f, p) for f in numeric_families() for p in problems(f)]
FINITE = [pytest.param(f, p, id=f"{f}/{p.stem}") for f, p in CASES if kind(p) in ("solvable", "unsolvable")]


def relaxed_claims(task, state: int, intervals: bool = True) -> tuple[set[str], set[str], set[int]]:
    """The atoms and actions the relaxation proves unreachable from `state`, and the comparison atoms
    it rules out."""
    g = task.grounded
    num = g.numeric
    reached, _ = task.questions.engine.relax.reachable(state, intervals=intervals)
    atoms = {g.atom_names[i] for i in bits(g.shown_mask & ~reached)}
    actions = {
        name for name, a in g.action_index.items() if not any(op.pre & reached == op.pre for op in g.ops_of_action[a])
    }
    return atoms, actions, set(bits(num.comparison_mask & ~reached))


def walk_states(task, oracle, seed: int, walks: int, steps: int) -> list[tuple[int, object]]:
    """(our state, the oracle's) at the start and along random walks, stepped in both."""
    g, rng = task.grounded, random.Random(seed)
    out = [(g.init, oracle.init)]
    for _ in range(walks):
        ours, theirs = g.init, oracle.init
        for _ in range(steps):
            moves = oracle.transitions(theirs)
            if not moves:
                break
            name, theirs = rng.choice(moves)
            op = g.op_for(g.action_index[name], ours)
            assert op is not None, name
            ours = g.apply_op(op, ours)
            out.append((ours, theirs))
    return out


def true_comparisons(num, state) -> int:
    """The comparison atoms that hold in an oracle state (its values, read by name)."""
    values = state.values
    return num.comparison_bits([values.get(name) for name in num.var_names])


def check_claims_along_walks(family: str, problem, walks: int, steps: int) -> None:
    """Every claim of the relaxation from each walk state holds on every state the oracle reaches."""
    domain = CORPUS / family / "domain.pddl"
    task, oracle = load_task(domain, problem), load_oracle(domain, problem)
    num = task.grounded.numeric
    for ours, theirs in walk_states(task, oracle, len(problem.stem) + walks, walks, steps):
        explored = oracle.explore(theirs, limit=LIMIT)
        if not explored.complete:
            pytest.skip("the oracle does not enumerate this state space within its limit")
        atoms, actions, comparisons = relaxed_claims(task, ours)
        plain_atoms, plain_actions, _ = relaxed_claims(task, ours, intervals=False)
        assert plain_atoms <= atoms and plain_actions <= actions
        assert true_comparisons(num, theirs) == num.comparison_bits(num.values(ours))
        for s in explored.states:
            assert not any(oracle.holds(s, a) for a in atoms), (family, problem.stem)
            assert not any(oracle.is_applicable(s, a) for a in actions), (family, problem.stem)
            held = true_comparisons(num, s)
            assert not any(held >> i & 1 for i in comparisons), [task.grounded.atom_names[i] for i in comparisons]


@pytest.mark.parametrize("family, problem", FINITE)
def test_interval_claims_hold_on_every_reachable_state(family, problem):
    check_claims_along_walks(family, problem, WALKS, STEPS)


@pytest.mark.slow
@pytest.mark.parametrize("family, problem", FINITE)
def test_interval_claims_hold_along_long_walks(family, problem):
    check_claims_along_walks(family, problem, LONG_WALKS, LONG_STEPS)


DOMAIN = """(define (domain fuel-trip)
  (:requirements :strips :typing :numeric-fluents)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (fuel))
  (:action drive
    :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b) (>= (fuel) 5))
    :effect (and (not (at ?a)) (at ?b) (decrease (fuel) 5)))
  (:action idle
    :parameters (?a - place)
    :precondition (at ?a)
    :effect (decrease (fuel) 1))
  %s)
"""
REFUEL = """(:action refuel
    :parameters (?a - place)
    :precondition (at ?a)
    :effect (increase (fuel) 1))"""
PROBLEM = """(define (problem trip) (:domain fuel-trip)
  (:objects home shop - place)
  (:init (at home) (road home shop) (= (fuel) 2))
  (:goal (at shop)))
"""


def trip(tmp_path, refuel: bool):
    (tmp_path / "domain.pddl").write_text(DOMAIN % (REFUEL if refuel else ""))
    (tmp_path / "problem.pddl").write_text(PROBLEM)
    return load_task(tmp_path / "domain.pddl", tmp_path / "problem.pddl")


def test_fuel_that_never_suffices_proves_the_destination_unreachable(tmp_path, monkeypatch):
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")
    task = trip(tmp_path, refuel=False)
    _, _, plain_comparisons = relaxed_claims(task, task.grounded.init, intervals=False)
    assert not plain_comparisons  # the projection alone takes every comparison as possible
    v = task.questions.is_reachable("(at shop)", budget=5)
    assert v.answer is False and v.how == INTERVAL_RELAXED, v
    a = task.questions.is_action_reachable("(drive home shop)", budget=5)
    assert a.answer is False and "numeric-intervals" in a.how, a
    listed = task.questions.unreachable_atoms(budget=5)
    assert ("(at shop)", INTERVAL_RELAXED) in [(it.name, it.how) for it in listed.items]


def test_fuel_that_can_be_refilled_reaches_the_destination(tmp_path, monkeypatch):
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")
    task = trip(tmp_path, refuel=True)
    v = task.questions.is_reachable("(at shop)", budget=10)
    assert v.answer is True, v
    oracle = load_oracle(tmp_path / "domain.pddl", tmp_path / "problem.pddl")
    assert oracle.holds(oracle.trajectory(v.witness)[-1], "(at shop)")


COUNTER = """(define (domain counter)
  (:requirements :strips :numeric-fluents)
  (:predicates (done))
  (:functions (x) (y) (z))
  (:action tick :parameters () :precondition (< (x) 1000000) :effect (increase (x) 1))
  (:action halve :parameters () :precondition (> (y) 0) :effect (scale-down (y) 2))
  (:action start :parameters () :precondition (>= (x) 3) :effect (assign (z) (/ 1 (- (x) 3))))
  (:action finish :parameters () :precondition (and (> (x) 999999) (< (y) 0)) :effect (done))
  (:action spend :parameters () :precondition (>= (z) -1000) :effect (decrease (z) 1)))
"""
COUNTER_PROBLEM = "(define (problem c) (:domain counter) (:init (= (x) 0) (= (y) 8)) (:goal (done)))"


def test_widening_ends_the_fixpoint_and_keeps_what_can_grow(tmp_path, monkeypatch):
    """A counter with a million steps is widened (the comparison it can reach stays possible), a
    halving that never goes below 0 forbids `(< (y) 0)`, and `z`, undefined at the start, gets a
    value through a division whose divisor may be 0."""
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")
    (tmp_path / "d.pddl").write_text(COUNTER)
    (tmp_path / "p.pddl").write_text(COUNTER_PROBLEM)
    task = load_task(tmp_path / "d.pddl", tmp_path / "p.pddl")
    g = task.grounded
    atoms, actions, comparisons = relaxed_claims(task, g.init)
    assert {g.atom_names[i] for i in comparisons} == {"(< (y) 0)"}
    assert actions == {"(finish)"} and atoms == {"(done)"}
    box, undefined = task.questions.engine.relax.intervals.fixpoint(g.numeric.values(g.init))
    x, y, z = (g.numeric.var_ids[(name, ())] for name in ("x", "y", "z"))
    assert box[x] is not None and box[x].lo == 0 and box[x].hi == float("inf")
    assert box[y] is not None and box[y].lo >= 0 and box[y].hi == 8
    assert box[z] is not None and box[z].lo == float("-inf") and undefined == {z}
    v = task.questions.is_reachable("(done)", budget=5)
    assert v.answer is False and v.how == INTERVAL_RELAXED, v


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_tools_say_the_intervals_proved_it() -> None:
    cmd = server_command()
    params = StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "--log-level", "WARNING"], cwd=str(REPO), env=clean_env(ACPTOOLS_CACHE="off")
    )
    with anyio.fail_after(slack(120)):
        async with Client(stdio_client(params)) as client:
            ok, loaded = await call(client, "load_task", domain=DOMAIN % "", problem=PROBLEM)
            assert ok, loaded
            tid = loaded["task_id"]
            ok, reach = await call(client, "is_reachable", task_id=tid, atom="(at shop)", budget=10)
            assert ok and reach["answer"] is False and reach["how"] == INTERVAL_RELAXED, reach
            ok, actions = await call(client, "unreachable_actions", task_id=tid, budget=10)
            assert ok, actions
            hows = {item["name"]: item["how"] for item in actions["items"]}
            assert hows.get("(drive home shop)") == INTERVAL_RELAXED, actions

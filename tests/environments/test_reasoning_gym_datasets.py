"""The acp_* reasoning-gym families, through reasoning-gym's own create_dataset: deterministic by seed,
every stored answer scores 1.0 and a corrupted one less, answers re-checked by the independent
unified-planning oracle, every curriculum level generates; on a bundled domain and an ADL test domain."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym", reason="the rl extra (reasoning-gym) is not installed")

from reasoning_gym.factory import create_curriculum  # noqa: E402

from acptools import AcpError  # noqa: E402
from acptools.environments import reasoning_gym_datasets as rgd  # noqa: E402
from tests.support.data import PDDL, records  # noqa: E402
from tests.support.oracle import Oracle  # noqa: E402

ADL = str(PDDL / "briefcase")  # a folder: domain.pddl + problem.pddl (conditional effects, quantifiers)
ITEMS = re.compile(r"\([^()]*\)")


def corrupt(answer: str) -> str:
    """A wrong answer of the same shape: the other truth value or option, the next number, one item
    fewer (or a made-up one)."""
    flips = {"yes": "no", "no": "yes", "True": "False", "False": "True"}
    if answer in flips:
        return flips[answer]
    if re.fullmatch(r"[A-D]", answer):
        return "B" if answer == "A" else "A"
    if re.fullmatch(r"\d+", answer):
        return str(int(answer) + 1)
    if answer == "None":
        return "(zz-no-such-thing a)"
    items = ITEMS.findall(answer)
    return answer.replace(items[-1], "", 1) if len(items) > 1 else "(zz-no-such-thing a)"


def test_every_family_is_registered():
    names = rgd.register()
    assert len(names) == 31 and set(names) <= set(reasoning_gym.factory.DATASETS)
    assert {"acp_hard_nexta", "acp_hard_plan", "acp_bool_land", "acp_mcq_reach", "acp_arb_effects"} <= set(names)


@pytest.mark.parametrize("name", sorted(rgd.families()))
def test_family_on_a_bundled_domain(name):
    a = reasoning_gym.create_dataset(name, size=3, seed=11, chunk=2)
    b = reasoning_gym.create_dataset(name, size=3, seed=11, chunk=2)
    entries = list(a)
    assert entries == list(b) and len(entries) == 3
    for e in entries:
        assert e["metadata"]["source_dataset"] == name and e["metadata"]["domain_pddl"].lstrip().startswith("(")
        assert e["metadata"]["proof"]["verdict"] == "correct" and e["question"] and e["answer"]
        assert a.score_answer(e["answer"], e) == 1.0
        assert a.score_answer(corrupt(e["answer"]), e) < 1.0
        assert a.score_answer("", e) == 0.0 and a.score_answer(None, e) == 0.0


@pytest.mark.parametrize(
    "name",
    [
        "acp_hard_app",
        "acp_hard_nexta",
        "acp_hard_plan",
        "acp_hard_prog",
        "acp_bool_reach",
        "acp_mcq_land",
        "acp_arb_effects",
    ],
)
def test_family_on_an_adl_domain(name):
    a = reasoning_gym.create_dataset(name, domain=ADL, size=2, seed=3, chunk=2)
    assert list(a) == list(reasoning_gym.create_dataset(name, domain=ADL, size=2, seed=3, chunk=2))
    for e in a:
        assert "briefcase" in e["metadata"]["domain_pddl"]
        assert a.score_answer(e["answer"], e) == 1.0 and a.score_answer(corrupt(e["answer"]), e) < 1.0


def test_another_seed_gives_other_entries():
    one = [e["metadata"]["record"]["id"] for e in reasoning_gym.create_dataset("acp_hard_app", size=4, seed=1)]
    two = [e["metadata"]["record"]["id"] for e in reasoning_gym.create_dataset("acp_hard_app", size=4, seed=2)]
    assert one != two


def oracle_of(entry) -> tuple[Oracle, frozenset]:
    r = entry["metadata"]["record"]
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    return oracle, oracle.init_atoms()


@pytest.mark.parametrize("domain", ["ferry", ADL])
def test_answers_rechecked_by_the_oracle(domain):
    make = lambda name: reasoning_gym.create_dataset(name, domain=domain, size=2, seed=7, chunk=2)  # noqa: E731
    for e in make("acp_hard_app"):
        oracle, state = oracle_of(e)
        assert sorted(ITEMS.findall(e["answer"])) == oracle.applicable(state)
    for e in make("acp_hard_prog"):
        oracle, state = oracle_of(e)
        pos, neg = (set(ITEMS.findall(part)) for part in e["answer"].split("] ["))
        # the question names its action in words: some applicable action must have exactly these effects
        effects = [(t - state, state - t) for t in (oracle.successor(state, a) for a in oracle.applicable(state))]
        assert (pos, neg) in effects, e["question"]
    for name in ("acp_hard_nexta", "acp_hard_plan"):
        for e in make(name):
            oracle, state = oracle_of(e)
            dist = oracle.distances(state)
            plan = ITEMS.findall(e["answer"])
            end = oracle.run(state, plan)
            assert end is not None
            if name == "acp_hard_plan":
                assert oracle.is_goal(end) and len(plan) == dist[state]
            else:
                assert dist[end] == dist[state] - 1


@pytest.mark.parametrize("name", ["acp_hard_reach", "acp_arb_numerical_reasoning"])
def test_every_curriculum_level_generates(name):
    curriculum = create_curriculum(name)
    levels = max(len(a.levels) for a in curriculum.attributes.values())
    seen = []
    for level in range(levels):
        curriculum.set_global_level(level)
        config = curriculum.generate_configuration({"size": 2, "seed": level, "chunk": 2})
        data = rgd.AcpDataset(config)
        seen.append((config.max_walk, config.max_steps, config.plan_share, config.max_problems))
        for e in data:
            assert data.score_answer(e["answer"], e) == 1.0
            assert e["metadata"]["difficulty"]["walk"] == [config.min_walk, config.max_walk]
    assert seen == sorted(seen) and len(set(seen)) == levels


def objects(problem_pddl: str) -> frozenset[str]:
    """The object names a problem declares (types left out, however the objects are laid out)."""
    tokens = re.search(r"\(:objects([^)]*)\)", problem_pddl, re.IGNORECASE).group(1).lower().split()
    return frozenset(t for k, t in enumerate(tokens) if t != "-" and (k == 0 or tokens[k - 1] != "-"))


def test_max_problems_keeps_the_smallest_problems():
    """Three ferry problems of different sizes (from the bundled records): max_problems=1 asks only
    about the one with the fewest objects, 2 about the two smallest."""
    recs = records("dev", "nexta")
    ferry = [r for r in recs if r["PDDL_domain"] == recs[0]["PDDL_domain"]]
    by_size = sorted({len(objects(r["PDDL_problem"])): r["PDDL_problem"] for r in ferry}.items())
    names = {size: objects(p) for size, p in by_size}
    assert len(by_size) >= 3
    problems = tuple(p for _, p in reversed(by_size[:3]))
    for n in (1, 2):
        data = reasoning_gym.create_dataset(
            "acp_hard_app", domain=ferry[0]["PDDL_domain"], problems=problems, max_problems=n, size=6, seed=1, chunk=6
        )
        seen = {objects(e["metadata"]["problem_pddl"]) for e in data}
        assert seen == {names[size] for size, _ in by_size[:n]}


def test_partial_credit_for_a_partly_right_set():
    data = reasoning_gym.create_dataset("acp_hard_app", size=4, seed=2, credit="partial")
    e = next(e for e in data if len(ITEMS.findall(e["answer"])) >= 2)
    items = ITEMS.findall(e["answer"])
    half = "[" + " ".join(items[1:]) + "]"
    assert data.score_answer(half, e) == pytest.approx((len(items) - 1) / len(items))
    exact = reasoning_gym.create_dataset("acp_hard_app", size=4, seed=2)
    assert exact.score_answer(half, e) == 0.0


def test_a_next_action_into_a_dead_end_earns_nothing():
    """The test 'doors' task (a slammed door stays shut for good): on every nexta entry whose state has
    a move that makes the goal unreachable (by the oracle), that move scores 0 with exact and with
    partial credit (it has no regret to give credit for), while the stored answer scores 1."""
    make = lambda credit: reasoning_gym.create_dataset(
        "acp_hard_nexta",
        domain=str(PDDL / "doors"),
        size=6,  # noqa: E731
        seed=3,
        chunk=6,
        credit=credit,
    )
    exact, partial = make("exact"), make("partial")
    checked = 0
    for e in exact:
        oracle, state = oracle_of(e)
        dist = oracle.distances(state)
        for action in oracle.applicable(state):
            if state in dist and oracle.successor(state, action) not in dist:
                assert exact.score_answer(action, e) == partial.score_answer(action, e) == 0.0, action
                assert partial.score_answer(e["answer"], e) == 1.0
                checked += 1
    assert checked >= 2


def test_bad_configuration_is_a_clear_error():
    with pytest.raises(AcpError, match="no bundled example, folder, file or PDDL text"):
        reasoning_gym.create_dataset("acp_hard_app", domain="ferrry", size=1, seed=0)
    with pytest.raises(AcpError, match="walk range"):
        reasoning_gym.create_dataset("acp_hard_app", min_walk=5, max_walk=2, size=1, seed=0)
    with pytest.raises(IndexError):
        reasoning_gym.create_dataset("acp_hard_app", size=1, seed=0)[1]


def test_same_seed_same_entries_in_a_fresh_process():
    """No cache or hash order may leak into the entries: a new interpreter makes the same ones."""
    code = (
        "import json, reasoning_gym, acptools.environments.reasoning_gym_datasets; "
        "d = reasoning_gym.create_dataset('acp_mcq_land', size=3, seed=4, chunk=3); "
        "print(json.dumps([[e['question'], e['answer']] for e in d]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "123"},
    )
    here = [[e["question"], e["answer"]] for e in reasoning_gym.create_dataset("acp_mcq_land", size=3, seed=4, chunk=3)]
    assert json.loads(out.stdout) == here

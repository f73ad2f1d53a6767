"""RL rewards, called exactly as the trainers call them (without installing the trainers):

TRL's GRPOTrainer repeats every dataset column but prompt/completion once per generation and calls
`reward_func(prompts=..., completions=..., completion_ids=..., trainer_state=..., **columns)`, turning
None into NaN; verl's reward manager calls `compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=...)` and takes `score` from a dict. Rewards are checked against the
brute-force oracle (tests/support/oracle.py) on generated tasks and against the stored answers of records."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import warnings

import pytest

from acptools import AcpError, examples
from acptools.rewards import AcpReward, acp_reward, compute_score, compute_score_batch, partial_reward
from acptools.scoring import gold_response
from acptools.truth import task_for
from tests.support.data import ROOT, pddl_texts, records
from tests.support.oracle import Oracle

G = 4  # generations per prompt


def trl_call(reward_func, rows: list[dict], completions: list, chat: bool = False) -> list[float]:
    """What GRPOTrainer does: each row repeated G times, columns as lists, None -> NaN."""
    inputs = [row for row in rows for _ in range(G)]
    prompts = [x["prompt"] for x in inputs]
    if chat:
        completions = [[{"role": "assistant", "content": c}] for c in completions]
    keys = [k for k in inputs[0] if k not in ("prompt", "completion")]
    reward_kwargs = {k: [x[k] for x in inputs] for k in keys}
    out = reward_func(
        prompts=prompts,
        completions=completions,
        completion_ids=[[1, 2]] * len(prompts),
        trainer_state=None,
        **reward_kwargs,
    )
    assert len(out) == len(prompts)
    return [r if r is not None else math.nan for r in out]


def verl_call(ground_truth, response: str, extra_info=None, **reward_kwargs):
    """What verl's NaiveRewardManager does with one item."""
    score = compute_score(
        data_source="acpbench-hard",
        solution_str=response,
        ground_truth=ground_truth,
        extra_info=extra_info,
        **reward_kwargs,
    )
    return score["score"] if isinstance(score, dict) else score


@pytest.fixture(scope="module")
def ferry():
    dom, prob = examples.texts("ferry")
    oracle = Oracle(dom, prob)
    init = oracle.init_atoms()
    return dom, prob, oracle, init, oracle.distances(init)


def test_nexta_rewards_match_the_oracle(ferry):
    dom, prob, oracle, init, dist = ferry
    row = {"prompt": "next action?", "task": "nexta", "domain": dom, "problem": prob, "state": None}
    actions = oracle.applicable(init)
    completions = [f"I would do {a}." for a in actions[:G]] + ["(fly l0 l1)"]
    while len(completions) < G * 2:
        completions.append("no idea")
    rows = [row, dict(row, prompt="again")]
    exact = trl_call(acp_reward, rows, completions)
    partial = trl_call(partial_reward, rows, completions, chat=True)
    for a, e, p in zip(actions[:G], exact, partial):
        after = dist.get(oracle.successor(init, a))
        regret = None if after is None else after + 1 - dist[init]
        assert e == (1.0 if regret == 0 else 0.0)
        assert p == (0.0 if regret is None else 1 / (1 + regret))
    assert exact[len(actions[:G]) :] == partial[len(actions[:G]) :] == [0.0] * (G * 2 - len(actions[:G]))


def test_a_next_action_into_a_dead_end_earns_nothing():
    """The test 'doors' task (a slammed door stays shut for good): every move from a state with a plan
    into one without (the oracle's graph), answered as the next action from that state, gets 0 with
    exact and with partial credit (no regret to credit) under TRL and verl, graded and not unknown,
    while an optimal action from the same state gets 1."""
    dom, prob = pddl_texts("doors")
    oracle = Oracle(dom, prob)
    init = oracle.init_atoms()
    graph, dist, fluent = oracle.graph(init), oracle.distances(init), oracle.fluent_atoms()
    moves = [(s, a) for s, out in graph.items() if s in dist for a, t in out if t not in dist]
    assert len(moves) >= 8
    for s, a in moves:
        best = next(b for b, t in graph[s] if dist.get(t) == dist[s] - 1)
        row = {"prompt": "next?", "task": "nexta", "domain": dom, "problem": prob, "state": sorted(s & fluent)}
        texts = [a, f"I take {a}.", best, a.upper()]
        assert trl_call(acp_reward, [row], texts) == trl_call(partial_reward, [row], texts) == [0.0, 0.0, 1.0, 0.0]
        truth = json.dumps({k: row[k] for k in ("task", "domain", "problem", "state")})
        assert compute_score("acp", a, truth, credit="partial") == {"score": 0.0, "correct": 0.0, "unknown": 0.0}


def test_app_partial_credit_is_the_iou_with_the_oracles_set(ferry):
    dom, prob, oracle, init, _ = ferry
    truth = set(oracle.applicable(init))
    rng = random.Random(3)
    answers = [sorted(rng.sample(sorted(truth), k)) + (["(sail l0 l0)"] if k % 2 else []) for k in range(G)]
    row = {"prompt": "applicable?", "task": "app", "domain": dom, "problem": prob}
    texts = ["[" + ", ".join(a) + "]" for a in answers]
    exact = trl_call(acp_reward, [row], texts)
    partial = trl_call(partial_reward, [row], texts)
    for a, e, p in zip(answers, exact, partial):
        assert e == float(set(a) == truth)
        assert p == pytest.approx(len(set(a) & truth) / len(set(a) | truth), abs=1e-6)
    full = trl_call(partial_reward, [row], ["[" + ", ".join(sorted(truth)) + "]"] * G)
    assert full == [1.0] * G


def test_state_column_grades_from_that_state(ferry):
    dom, prob, oracle, init, _ = ferry
    a = oracle.applicable(init)[0]
    state = sorted(oracle.successor(init, a))
    truth = oracle.applicable(state)
    row = {"prompt": "p", "task": "app", "domain": dom, "problem": prob, "state": state}
    assert trl_call(acp_reward, [row], ["[" + ", ".join(truth) + "]"] * G) == [1.0] * G
    assert trl_call(acp_reward, [row], ["[" + ", ".join(oracle.applicable(init)) + "]"] * G) == [0.0] * G


@pytest.mark.parametrize("task", ["app", "prog", "reach", "areach", "val", "just", "land", "nexta"])
def test_record_columns_every_task(task):
    """Three ways to carry a record (JSON column, dict column, the record's own fields as columns),
    as TRL and verl get them; the stored answer scores 1 and an unparsable text 0."""
    rec = next(r for r in records("dev", task) if r["PDDL_problem"].count("\n") < 40)
    gold = gold_response(rec)
    forms = [{"prompt": "q", "record": json.dumps(rec)}, {"prompt": "q", "record": rec}, dict(rec, prompt="q")]
    for row in forms:
        assert trl_call(acp_reward, [row], [gold, "no idea", gold, "(((("]) == [1.0, 0.0, 1.0, 0.0]
    assert verl_call(json.dumps(rec), gold) == 1.0
    assert verl_call(json.dumps(rec), "no idea") == 0.0
    assert verl_call(None, gold, extra_info={"record": json.dumps(rec)}) == 1.0


def test_ids_stay_exact_through_the_json_column():
    rec = records("test", "nexta")[0]
    text = json.dumps(rec)
    assert str(rec["id"]) in text and len(str(abs(rec["id"]))) >= 18
    assert trl_call(acp_reward, [{"prompt": "q", "record": text}], [gold_response(rec)] * G) == [1.0] * G


def test_verl_dict_and_batch(ferry):
    dom, prob, oracle, init, dist = ferry
    best = next(a for a in oracle.applicable(init) if dist.get(oracle.successor(init, a)) == dist[init] - 1)
    gt = json.dumps({"task": "nexta", "domain": dom, "problem": prob})
    out = compute_score("acp", best, gt, {"index": 3})
    assert out == {"score": 1.0, "correct": 1.0, "unknown": 0.0}
    outs = compute_score_batch(["acp"] * 2, [best, "(sail l9 l9)"], [gt, gt], None, credit="partial")
    assert [o["score"] for o in outs] == [1.0, 0.0]


def test_unknown_is_no_reward_for_trl_and_a_counted_number_for_verl():
    """A budget too small for any proof: nexta needs h*, which then stays unknown."""
    rec = max(records("test", "nexta"), key=lambda r: int(r["answer"]["opt"]))
    row = {"prompt": "q", "record": json.dumps(rec)}
    starved = AcpReward(budget=1e-9)
    task_for(rec["PDDL_domain"], rec["PDDL_problem"])
    out = trl_call(starved, [row], [rec["answer"]["yes"][0]] * G)
    assert all(math.isnan(r) for r in out) and starved.stats["unknown"] == G
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compute_score("acp", rec["answer"]["yes"][0], json.dumps(rec), None, budget=1e-9, unknown=0.0)
    assert res == {"score": 0.0, "correct": 0.0, "unknown": 1.0}
    assert any("could not be graded" in str(w.message) for w in caught)


def test_a_proof_store_carries_truths_to_another_process(tmp_path):
    """A reward worker with cache=FILE keeps its proofs there; another process opening the same file
    grades the same question even with a budget too small to prove anything itself."""
    from acptools.proofs import store
    from acptools.truth import clear_caches

    ranked = sorted(records("test", "nexta"), key=lambda r: int(r["answer"]["opt"]))
    rec = ranked[len(ranked) // 2]  # needs a real search: a starved budget cannot prove it
    cache = tmp_path / "proofs.sqlite"
    code = (
        "import json, sys\nfrom acptools.rewards import AcpReward\n"
        "rec = json.loads(sys.stdin.read())\n"
        "r = AcpReward(cache=sys.argv[1])\n"
        "print(r(prompts=['q'], completions=[rec['answer']['yes'][0]], record=[json.dumps(rec)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(cache)],
        input=json.dumps(rec),
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert done.returncode == 0 and done.stdout.split() == ["[1.0]"], done.stderr[-2000:]
    row = {"prompt": "q", "record": json.dumps(rec)}
    clear_caches()
    assert math.isnan(trl_call(AcpReward(budget=1e-9), [row], [rec["answer"]["yes"][0]] * G)[0])
    try:
        clear_caches()
        warm = AcpReward(budget=1e-9, cache=str(cache))
        assert trl_call(warm, [row], [rec["answer"]["yes"][0]] * G) == [1.0] * G
        assert warm.stats["unknown"] == 0
    finally:
        store.use(None)
        clear_caches()


def test_bad_columns_say_what_is_missing():
    with pytest.raises(AcpError, match="nothing to grade against.*record"):
        trl_call(acp_reward, [{"prompt": "q", "solution": "x"}], ["a"] * G)
    with pytest.raises(AcpError, match="not valid JSON"):
        trl_call(acp_reward, [{"prompt": "q", "record": "{oops"}], ["a"] * G)
    with pytest.raises(AcpError, match="ground_truth is neither"):
        compute_score("acp", "x", "42", None)
    with pytest.raises(AcpError, match="unknown credit"):
        AcpReward(credit="half")


def test_the_grpo_example_dry_run():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "grpo_reward.py"), "--task", "app"],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rewards = [float(line.split()[0]) for line in out.stdout.splitlines()[:8]]
    assert rewards[0] == rewards[4] == 1.0 and rewards[2] < 1.0 and rewards[3] == 0.0
    assert "'graded': 8" in out.stdout

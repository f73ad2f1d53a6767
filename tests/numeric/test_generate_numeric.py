"""`acptools generate` on numeric domains: every ACPBench question (app, prog, reach, areach, val,
just, land, nexta, plan) is generated in the hard, bool and mcq forms with values in the context and
the problem; gold answers score 1, corrupted ones 0, and every gold answer is re-checked by the
independent oracle (tests/support/numeric_oracle.py) reading the record's own PDDL problem: plans
replayed, reachability and landmark claims by its exhaustive search (small finite problems), h* and
optimal next actions by its uniform-cost search. The ActionReasoningBench form (numerical reasoning
alone) is tested in test_generate_arb_numeric.py."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from acptools.generate.run import Options, generate
from acptools.scoring import gold_response, score_response
from acptools.truth import task_for
from tests.support.numeric_corpus import CORPUS, numeric_families, problems
from tests.support.numeric_oracle import NumericTask, load_task

FAMILIES = numeric_families()


BASIC = ("app", "prog")  # exact numeric semantics alone
HARD_PROVEN = ("reach", "areach", "val", "just", "land", "nexta", "plan")
CHOICE_PROVEN = ("reach", "areach", "val", "just", "land")
LIMIT = 20_000  # states the oracle's exhaustive searches may see


def _generate(family: str, form: str, tasks=None, n: int = 3, budget: float = 10.0):
    return _generated(family, form, tuple(tasks) if tasks else None, n, budget)


@functools.cache
def _generated(family: str, form: str, tasks, n: int, budget: float):
    """One generation per arguments in this process (the tests that read the same records share it)."""
    domain = CORPUS / family / "domain.pddl"
    return generate(domain, problems(family)[:1], Options(form=form, tasks=tasks, n=n, seed=1, budget=budget))


@functools.cache
def _finite(family: str) -> bool:
    """Does the oracle's exhaustive search see every state of the family's first problem?"""
    return load_task(CORPUS / family / "domain.pddl", problems(family)[0]).explore(limit=LIMIT).complete


FINITE = [f for f in FAMILIES if _finite(f)]
INFINITE = [f for f in FAMILIES if f not in FINITE]


def _prog_made_or_nothing_to_ask(out) -> bool:
    """prog records were made, or no state had an action changing facts enough to ask about (a purely
    numeric domain: prog asks about facts), and the run says why."""
    return out.made["prog"] >= 1 or bool(out.short.get("prog"))


def _oracle(record: dict) -> NumericTask:
    """The oracle over the record's own domain and problem (the state it asks about is the problem's init)."""
    return NumericTask(record["PDDL_domain"], record["PDDL_problem"])


def _successor_atoms(oracle: NumericTask, action: str) -> tuple[set[str], set[str]]:
    before, after = _atoms(oracle, oracle.init), _atoms(oracle, oracle.apply(oracle.init, action))
    return after - before, before - after


def _atoms(oracle: NumericTask, state) -> set[str]:
    """A state's atoms, derived ones included."""
    return set(state.atoms) | set(oracle.derived_atoms(state))


def test_numeric_families_enough():
    assert len(FAMILIES) >= 6


@pytest.mark.parametrize("family", FAMILIES)
def test_hard_records_proven_and_graded(family):
    out = _generate(family, "hard", BASIC)
    assert out.skipped == {}
    assert out.made["app"] == 3 and _prog_made_or_nothing_to_ask(out)
    for r in out.records:
        oracle = _oracle(r)
        assert "(= (" in r["PDDL_problem"] and " is " in r["context"]
        assert score_response(r, gold_response(r)).score == 1.0
        if r["group"] == "applicable_actions_gen":
            assert set(r["answer"]) == set(oracle.applicable(oracle.init))
            if r["answer"]:
                missing = sorted(set(r["answer"]))[1:]  # one applicable action left out
                assert score_response(r, " ".join(missing) or "None").score == 0.0
            extra = sorted(set(oracle.actions) - set(r["answer"]))[:1]  # one inapplicable action added
            if extra:
                assert score_response(r, " ".join(r["answer"] + extra)).score == 0.0
        else:
            action = _prog_action(r)
            pos, neg = _successor_atoms(oracle, action)
            assert set(r["answer"]["pos"]) == pos and set(r["answer"]["neg"]) == neg
            unchanged = sorted(a for a in _fluent_atoms(r, oracle) if a not in neg)
            wrong = dict(r, answer={"pos": r["answer"]["pos"] + unchanged[:1], "neg": r["answer"]["neg"]})
            if unchanged:  # a fact that held already is no positive effect
                assert score_response(r, gold_response(wrong)).score == 0.0


def _fluent_atoms(record: dict, oracle: NumericTask) -> set[str]:
    """The state's atoms the record's context names as facts that can change."""
    return {
        a for a in oracle.init.atoms if a.strip("()").split()[0] in record["context"].split("propositions are:")[-1]
    }


def _prog_action(record: dict) -> str:
    """The action a prog record asks about: its generic phrase 'name(a, b)' as the PDDL '(name a b)'."""
    phrase = record["question"].split('action "', 1)[1].split('"', 1)[0]
    name, args = phrase.rstrip(")").split("(", 1)
    return "(" + " ".join([name, *[a.strip() for a in args.split(",") if a.strip()]]) + ")"


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_choice_records_proven_and_graded(family, form):
    out = _generate(family, form, BASIC)
    assert out.made["app"] == 3 and _prog_made_or_nothing_to_ask(out)
    for r in out.records:
        oracle = _oracle(r)
        assert score_response(r, gold_response(r)).score == 1.0
        claims = _claims(r)
        for claim, said in claims:
            assert _oracle_truth(oracle, claim) is said, (claim, said)
        wrong = _wrong_answer(r)
        assert score_response(r, wrong).score == 0.0


def _claims(record: dict) -> list[tuple[dict, bool]]:
    """(claim, whether the gold answer says it holds) for each claim the record makes."""
    spec = record["spec"]
    if spec.get("answer_type") == "bool":
        return [(spec["claim"], record["answer"] == "yes")]
    labels = record["choices"]["label"]
    return [(c, labels[k] == record["answer"]) for k, c in enumerate(spec["claims"])]


def _oracle_truth(oracle: NumericTask, claim: dict) -> bool | None:
    """The claim's truth by the oracle in the problem's initial state (None: its search hit LIMIT)."""
    kind = claim["claim"]
    if kind == "applicable":
        return claim["action"] in oracle.applicable(oracle.init)
    if kind == "reachable":
        return oracle.find(lambda s: all(oracle.holds(s, a) for a in claim["atoms"]), limit=LIMIT)
    if kind == "action_reachable":
        return oracle.action_reachable(claim["action"], LIMIT)
    if kind == "landmark":
        return oracle.is_landmark(claim["atom"], LIMIT)
    if kind in ("plan", "plan_status", "removable"):
        return _plan_claim(oracle, claim)
    assert kind == "holds", claim
    state = oracle.init
    for action in claim["after"]:
        state = oracle.apply(state, action)
    return all(a in _atoms(oracle, state) for a in claim["atoms"])


def _plan_claim(oracle: NumericTask, claim: dict) -> bool:
    plan = claim["plan"]
    if claim["claim"] == "removable":
        plan = [a for i, a in enumerate(plan) if i not in claim["steps"]]
    check = oracle.validate(plan)
    status = claim.get("status", "plan")
    if status == "inapplicable":
        return check.failed_at == claim["step"]
    return check.failed_at is None and check.goal_reached is (status == "plan")


def _wrong_answer(record: dict) -> str:
    if record["spec"].get("answer_type") == "bool":
        return "no" if record["answer"] == "yes" else "yes"
    return next(label for label in record["choices"]["label"] if label != record["answer"])


@pytest.mark.parametrize("form", ["hard", "bool", "mcq"])
def test_cli_generates_numeric(form, tmp_path):
    family = "delivery-fuel"
    out = tmp_path / "records.jsonl"
    env = dict(os.environ, ACPTOOLS_CACHE="off")
    run = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "generate", "--domain", str(CORPUS / family / "domain.pddl")]
        + ["--problem", str(problems(family)[0]), "--form", form, "-n", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in Path(out).read_text().splitlines()]
    tasks = 9 if form == "hard" else 7  # every task of the form
    assert len(records) == 2 * tasks
    assert len({r["group"] for r in records}) == tasks
    assert all(score_response(r, gold_response(r)).score == 1.0 for r in records)
    assert "skipped" not in run.stderr


# ---- the questions proven by search or proofs: every written answer re-checked by the oracle ----------


def _measured(record: dict) -> NumericTask:
    """The oracle over the record's problem, measuring plans as acptools does (its `metric`: length
    when the written metric is no sum of fixed action costs)."""
    oracle = _oracle(record)
    if task_for(record["PDDL_domain"], record["PDDL_problem"]).metric == "length":
        oracle.metric = "length"
    return oracle


def _quoted_plan(record: dict) -> list[str]:
    """The plan a val or just question quotes."""
    return re.findall(r"\([^()]*\)", record["question"].split('"')[1])


def _removal_codes(oracle: NumericTask, plan: list[str]) -> set[tuple[str, ...]]:
    """Every removal of one action or of two consecutive ones that leaves a plan, as ACPBench Hard's
    answer entries: (a, k) drops the k-th occurrence of a; (a, b, -1) the first consecutive pair a b."""
    codes = set()
    for width in (1, 2):
        for i in range(len(plan) - width + 1):
            if oracle.validate(plan[:i] + plan[i + width :]) != (None, True):
                continue
            if width == 1:
                codes.add((plan[i], str(plan[: i + 1].count(plan[i]))))
            elif all(plan[j : j + 2] != plan[i : i + 2] for j in range(i)):
                codes.add((plan[i], plan[i + 1], "-1"))
    return codes


def _check_hard(record: dict) -> None:
    """The record's answer, re-derived by the oracle alone."""
    oracle, answer, group = _measured(record), record["answer"], record["group"]
    if group == "reachable_atom_gen":
        assert all(oracle.atom_reachable(f"({a})", LIMIT) is False for a in answer), answer
    elif group == "reachable_action_gen":
        assert all(oracle.action_reachable(a, LIMIT) is False for a in answer), answer
    elif group == "landmarks_gen":
        assert all(oracle.is_landmark(a, LIMIT) is True for a in answer["yes"]), answer["yes"]
        assert all(oracle.is_landmark(a, LIMIT) is False for a in answer["no"]), answer["no"]
    elif group == "validation_gen":
        assert oracle.validate(_quoted_plan(record)).failed_at == answer
    elif group == "action_justification_gen":
        plan = _quoted_plan(record)
        assert oracle.validate(plan) == (None, True)
        assert {tuple(c) for c in answer} == _removal_codes(oracle, plan)
    elif group == "goal_closer_gen":
        h = oracle.h_star()
        assert Fraction(answer["opt"]) == h
        assert sorted(answer["yes"] + answer["no"]) == sorted(oracle.applicable(oracle.init))
        for action, state in oracle.transitions(oracle.init):
            rest = oracle.h_star(state)
            optimal = rest is not None and oracle.step_cost(oracle.init, action, state) + rest == h
            assert (action in answer["yes"]) is optimal, action
    else:
        assert group == "plan_generation", group
        assert oracle.validate(answer["plan"]) == (None, True)
        assert oracle.plan_cost(answer["plan"]) == oracle.h_star() == Fraction(answer["opt"])


@pytest.mark.parametrize("family", FINITE)
def test_hard_proven_records_rechecked_by_oracle(family):
    out = _generate(family, "hard", HARD_PROVEN, n=2, budget=3.0)
    assert out.skipped == {}
    for name in HARD_PROVEN:  # a task falls short only with a reason
        assert out.made[name] == 2 or out.short.get(name), name
    assert sum(out.made.values()) >= len(HARD_PROVEN)
    for r in out.records:
        assert score_response(r, gold_response(r)).score == 1.0
        _check_hard(r)


def test_every_hard_kind_made_on_the_corpus():
    made = {
        name: sum(_generate(f, "hard", HARD_PROVEN, n=2, budget=3.0).made[name] for f in FINITE) for name in HARD_PROVEN
    }
    assert all(made.values()), made


def test_answers_and_candidates_are_facts_not_comparisons():
    """A comparison atom (decided by the values) is never asked about nor listed as an answer."""
    comparison = re.compile(r"^\(?(<=|>=|<|>|=) ")
    listed = 0
    for family in FINITE:
        for r in _generate(family, "hard", HARD_PROVEN, n=2, budget=3.0).records:
            if r["group"] in ("reachable_atom_gen", "landmarks_gen"):
                entries = r["answer"] if isinstance(r["answer"], list) else r["answer"]["yes"] + r["answer"]["no"]
                listed += len(entries)
                assert not [e for e in entries if comparison.match(e)], entries
        for form in ("bool", "mcq"):
            for r in _generate(family, form, CHOICE_PROVEN, n=2, budget=3.0).records:
                for claim, _ in _claims(r):
                    atoms = claim.get("atoms", []) + ([claim["atom"]] if "atom" in claim else [])
                    assert not [a for a in atoms if comparison.match(a)], claim
    assert listed > 0


def test_goal_comparisons_phrased_and_metric_kept():
    """jugs-decimal's goal (= (amount j3) 0.3) reads as a sentence; zenotravel's records keep its
    metric, so their PDDL measures plans by fuel used, as the generator did."""
    goals = [r["context"] for r in _generate("jugs-decimal", "hard", HARD_PROVEN, n=2, budget=3.0).records]
    assert any("the following facts hold: the amount of j3 is 0.3." in c for c in goals)
    zeno = _generate("zenotravel", "hard", HARD_PROVEN, n=2, budget=3.0).records
    assert zeno and all("(:metric minimize (fuel-used))" in r["PDDL_problem"] for r in zeno)
    assert {task_for(r["PDDL_domain"], r["PDDL_problem"]).metric for r in zeno} == {"cost"}


@pytest.mark.parametrize("family", FINITE)
@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_choice_proven_records_rechecked_by_oracle(family, form):
    out = _generate(family, form, CHOICE_PROVEN, n=2, budget=3.0)
    for name in CHOICE_PROVEN:
        assert out.made[name] == 2 or out.short.get(name), name
    for r in out.records:
        oracle = _oracle(r)
        assert score_response(r, gold_response(r)).score == 1.0
        assert score_response(r, _wrong_answer(r)).score == 0.0
        for claim, said in _claims(r):
            assert _oracle_truth(oracle, claim) is said, (claim, said)


@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_every_choice_kind_made_on_the_corpus(form):
    made = {
        name: sum(_generate(f, form, CHOICE_PROVEN, n=2, budget=3.0).made[name] for f in FINITE)
        for name in CHOICE_PROVEN
    }
    assert all(made.values()), made


@pytest.mark.slow
@pytest.mark.parametrize("family", INFINITE)
@pytest.mark.parametrize("form", ["hard", "bool", "mcq"])
def test_infinite_state_records_agree_with_oracle(family, form):
    """On a problem whose states never run out, what the oracle's bounded search can decide agrees
    (a witness it finds, a plan it replays); the rest it cannot check, and acptools proved it."""
    out = _generate(family, form, HARD_PROVEN if form == "hard" else CHOICE_PROVEN, n=2, budget=1.0)
    for r in out.records:
        assert score_response(r, gold_response(r)).score == 1.0
        if form == "hard":
            _check_bounded(r)
            continue
        oracle = _oracle(r)
        for claim, said in _claims(r):
            assert _oracle_truth(oracle, claim) in (said, None), (claim, said)


def _check_bounded(record: dict) -> None:
    oracle, answer, group = _measured(record), record["answer"], record["group"]
    if group == "reachable_atom_gen":
        assert all(oracle.atom_reachable(f"({a})", LIMIT) is not True for a in answer)
    elif group == "reachable_action_gen":
        assert all(oracle.action_reachable(a, LIMIT) is not True for a in answer)
    elif group == "landmarks_gen":
        assert all(oracle.is_landmark(a, LIMIT) is not False for a in answer["yes"])
    elif group in ("validation_gen", "action_justification_gen"):
        _check_hard(record)
    elif group == "plan_generation":
        assert oracle.validate(answer["plan"]) == (None, True)
        assert oracle.plan_cost(answer["plan"]) == Fraction(answer["opt"])

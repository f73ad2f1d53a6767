"""ActionReasoningBench object tracking (`--form arb --tasks object_tracking`): the properties of one
named object after a sequence of actions. Gold answers score 1, corrupted ones 0, records are the
same for the same seed, and every answer is re-checked by replaying the record's actions in the
independent unified-planning oracle (tests/support/oracle.py)."""

from __future__ import annotations

import re
from functools import cache

import pytest

from acptools import examples
from acptools.generate import Options, generate
from acptools.generate.run import check_tasks
from acptools.scoring import gold_response, score_response
from tests.support.data import pddl_texts
from tests.support.oracle import Oracle

FAMILY = "object_tracking"
SEEDS = tuple(range(8))
TEXTS = {"ferry": lambda: examples.texts("ferry"), "briefcase": lambda: pddl_texts("briefcase")}


@cache
def records(name: str, seed: int) -> tuple[dict, ...]:
    d, p = TEXTS[name]()
    out = generate(d, [p], Options(form="arb", tasks=(FAMILY,), n=2, seed=seed))
    assert out.made == {FAMILY: 2}, out.dropped
    return tuple(out.records)


def every_record(name: str) -> list[dict]:
    """The set questions (a static fluent kind is asked as a yes/no question: tests/generate/test_fluent_kinds.py)."""
    return [r for seed in SEEDS for r in records(name, seed) if r["spec"]["answer_type"] == "set"]


@cache
def oracle(name: str) -> Oracle:
    return Oracle(*TEXTS[name]())


def init_atoms(record: dict) -> frozenset[str]:
    """The record's initial state, read from its PDDL problem text."""
    text = record["PDDL_problem"]
    init = text[text.index("(:init") : text.index("(:goal")]
    return frozenset(a.lower() for a in re.findall(r"\([^()]*\)", init[len("(:init") :]))


def names_object(atom: str, obj: str) -> bool:
    return obj in atom[1:-1].split()[1:]


def oracle_answer(name: str, record: dict, listed_only: bool = True) -> tuple[list[str], set[str]]:
    """The answer by the oracle (replaying the record's actions), and the atoms it could have listed
    (with `listed_only` False: ignoring the question's list of candidate properties)."""
    o, query = oracle(name), record["spec"]["query"]
    end = o.run(init_atoms(record), query["after"]) if query.get("after") else init_atoms(record)
    assert end is not None, "the record's actions cannot be replayed"
    changing = {e.fluent.fluent().name.lower() for a in o.problem.actions for e in a.effects}
    universe = {n for n in o.fluents if n[1:-1].split()[0] in changing and names_object(n, query["object"])}
    if listed_only and query.get("among") is not None:
        universe &= set(query["among"])
    if query.get("predicates") is not None:  # the fluent kind asked about
        universe = {n for n in universe if n[1:-1].split()[0] in query["predicates"]}
    holds = end & universe
    return sorted(holds if query["sign"] == "true" else universe - holds), universe


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_records_are_object_tracking_set_questions(name):
    recs = every_record(name)
    for r in recs:
        assert r["group"] == f"arb_{FAMILY}"
        spec = r["spec"]
        assert spec["answer_type"] == "set" and spec["query"]["query"] == "atoms"
        obj = spec["query"]["object"]
        assert obj in r["question"]
        assert all(names_object(a, obj) for a in r["answer"])
    variants = {("among" in r["spec"]["query"], r["spec"]["query"]["sign"]) for r in recs}
    assert (True, "true") in variants and (False, "true") in variants, variants


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_answers_match_the_oracle(name):
    for r in every_record(name):
        want, _ = oracle_answer(name, r)
        assert r["answer"] == want, (r["question"], want)


def test_the_listed_candidates_leave_out_answers_sometimes():
    """Over both domains (ferry's two cars seldom put two answers on one object), some record lists
    candidates that leave out a property that is an answer, so the list matters."""
    filtered = sum(
        oracle_answer(name, r)[0] != oracle_answer(name, r, listed_only=False)[0]
        for name in TEXTS
        for r in every_record(name)
    )
    assert filtered, "no record where the listed candidates leave out a property that holds"


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_gold_scores_one_and_corrupted_answers_zero(name):
    dropped = added = 0
    for r in every_record(name):
        assert score_response(r, gold_response(r)).score == 1, r["question"]
        answer = r["answer"]
        if answer:
            short = dict(r, answer=answer[1:])
            assert score_response(r, gold_response(short)).score == 0, r["question"]
            dropped += 1
        _, universe = oracle_answer(name, r)
        wrong = sorted(universe - set(answer))
        if wrong:
            longer = dict(r, answer=sorted(answer + wrong[:1]))
            out = score_response(r, gold_response(longer))
            assert out.score == 0 and wrong[0] in out.reason, (r["question"], out.reason)
            added += 1
    assert dropped and added


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_deterministic_by_seed(name):
    d, p = TEXTS[name]()
    again = generate(d, [p], Options(form="arb", tasks=(FAMILY,), n=2, seed=SEEDS[0])).records
    assert again == list(records(name, SEEDS[0]))
    assert [r["id"] for r in records(name, SEEDS[0])] != [r["id"] for r in records(name, SEEDS[1])]


def test_alias_and_family_listing():
    assert check_tasks("arb", ["object"]) == (FAMILY,)
    assert FAMILY in check_tasks("arb", None)

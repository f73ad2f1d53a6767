"""`acptools generate --form arb` on numeric domains: the numerical_reasoning family (counts of facts
and actions, steps before a failure, and the value of a numeric fluent after a sequence) with the
initial values in the context. Gold answers score 1, corrupted ones 0, and every value, executable
action count and fact count is re-checked by the independent oracle (tests/support/numeric_oracle.py)
replaying the sequence from the record's own PDDL problem. The other ARB families stay refused."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from acptools.answers.form_readers import read_value
from acptools.errors import AcpError
from acptools.generate.run import NUMERIC_REASON, Options, generate
from acptools.scoring import gold_response, score_response
from tests.support.numeric_corpus import CORPUS, numeric_families, problems
from tests.support.numeric_oracle import NumericTask, State, parse_number

FAMILIES = numeric_families()
N = 8


@functools.cache
def _generated(family: str, tasks: tuple[str, ...] = ("numerical_reasoning",)):
    domain = CORPUS / family / "domain.pddl"
    return generate(domain, problems(family)[:1], Options(form="arb", tasks=tasks, n=N, seed=1, budget=10.0))


def _oracle(record: dict) -> NumericTask:
    return NumericTask(record["PDDL_domain"], record["PDDL_problem"])


def _after(oracle: NumericTask, actions: list[str]) -> State:
    """The oracle's state after the actions (each must apply) from the record's initial state."""
    state = oracle.init
    for action in actions:
        state = oracle.apply(state, action)
    return state


def _value_records(family: str) -> list[dict]:
    return [r for r in _generated(family).records if r["spec"]["answer_type"] == "value"]


@pytest.mark.parametrize("family", FAMILIES)
def test_numerical_reasoning_records_graded(family):
    out = _generated(family)
    assert out.made["numerical_reasoning"] == N and out.skipped == {}
    for r in out.records:
        assert r["group"] == "arb_numerical_reasoning"
        assert " The values: " in r["context"] and "(= (" in r["PDDL_problem"]
        assert score_response(r, gold_response(r)).score == 1.0
        if r["spec"]["answer_type"] in ("count", "value"):
            assert score_response(r, str(parse_number(str(r["answer"])) + 1)).score == 0.0
        if r["spec"]["answer_type"] == "bool":
            assert score_response(r, "False" if r["answer"] == "True" else "True").score == 0.0


@pytest.mark.parametrize("family", FAMILIES)
def test_values_rechecked_by_oracle(family):
    for r in _value_records(family):
        query = r["spec"]["query"]
        oracle = _oracle(r)
        end = _after(oracle, query["after"])
        value = end.value(query["fluent"])
        assert value is not None and parse_number(r["answer"]) == value, (query, r["answer"], value)
        assert value != oracle.init.value(query["fluent"])  # the actions changed it: the initial value is wrong
        assert score_response(r, str(oracle.init.value(query["fluent"]))).score == 0.0
        others = {v for k, v in end.numbers if v != value}
        if others:  # another fluent's value
            assert score_response(r, str(min(others))).score == 0.0


def test_value_questions_made_on_the_corpus():
    made = [r for f in FAMILIES for r in _value_records(f)]
    assert len(made) >= 10
    assert len({f for f in FAMILIES if _value_records(f)}) >= 6
    assert any(Fraction(r["answer"]).denominator != 1 for r in made)  # fractional values asked about too


def _oracle_count(oracle: NumericTask, state: State, of: str) -> int | None:
    """Executable actions and true facts (atoms of predicates some action writes, and derived ones) by
    the oracle; None for the counts it does not define the same way."""
    if of == "executable_actions":
        return len(oracle.applicable(state))
    if of == "true_atoms":
        written = NumericTask._written(oracle.up_problem)
        derived = oracle.derived_atoms(state)
        return len({a for a in state.atoms if a[1:].split()[0].rstrip(")") in written} | derived)
    return None


def test_counts_are_of_facts_and_actions_rechecked_by_oracle():
    checked = 0
    for r in (r for f in FAMILIES for r in _generated(f).records):
        spec = r["spec"]
        ask = spec.get("query") or spec.get("claim")
        if ask.get("of") is None or ask.get("before_failure"):
            continue
        oracle = _oracle(r)
        truth = _oracle_count(oracle, _after(oracle, ask.get("after") or []), ask["of"])
        if truth is None:
            continue
        checked += 1
        if spec["answer_type"] == "count":
            assert r["answer"] == truth, (ask, r["answer"], truth)
        else:
            assert (r["answer"] == "True") is (ask["value"] == truth), (ask, r["answer"], truth)
    assert checked >= 10


@pytest.mark.parametrize(
    ("response", "score"),
    [("5/4", 1.0), ("1.25", 1.0), ("1.250", 1.0), ("Answer: 5 / 4", 1.0), ("1.2500001", 0.0), ("1.2", 0.0)],
)
def test_exact_value_grading(response, score):
    """The grader compares exact numbers: every writing of 5/4 is right, nothing else is."""
    r = next(r for r in _value_records("scaling") if Fraction(r["answer"]).denominator != 1)
    fives = dict(r, answer="5/4")  # the stored answer of reference semantics, set to 5/4
    assert score_response(fives, response, semantics="reference").score == score
    v = Fraction(r["answer"])
    assert score_response(r, f"{v.numerator}/{v.denominator}").score == 1.0
    assert score_response(r, f"{v.numerator}/{v.denominator + 1}").score == 0.0


def test_integer_value_written_as_decimal():
    r = next(r for f in FAMILIES for r in _value_records(f) if Fraction(r["answer"]).denominator == 1)
    for text in (r["answer"], r["answer"] + ".0", r["answer"] + ".00"):
        assert score_response(r, text).score == 1.0


def test_other_arb_families_skipped_with_reason():
    out = _generated(FAMILIES[0], ("numerical_reasoning", "effects", "state_tracking"))
    assert out.skipped == {"effects": NUMERIC_REASON, "state_tracking": NUMERIC_REASON}
    assert out.made["numerical_reasoning"] == N
    with pytest.raises(AcpError, match="effects") as e:
        _generated(FAMILIES[0], ("effects",))
    assert "numerical_reasoning" in e.value.suggestion


def test_cli_arb_on_numeric_skips_other_families_with_reason(tmp_path):
    family = "delivery-fuel"
    out = tmp_path / "records.jsonl"
    run = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "generate", "--domain", str(CORPUS / family / "domain.pddl")]
        + ["--problem", str(problems(family)[0]), "--form", "arb", "--tasks", "numerical,effects", "-n", "3"]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, ACPTOOLS_CACHE="off"),
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and {r["group"] for r in records} == {"arb_numerical_reasoning"}
    assert all(score_response(r, gold_response(r)).score == 1.0 for r in records)
    assert f"effects: skipped: {NUMERIC_REASON}" in run.stderr


@pytest.mark.parametrize(
    ("text", "value"),
    [("t1 is at 3", Fraction(3)), ("Answer: -0.50", Fraction(-1, 2)), ("so it is 7/2.", Fraction(7, 2))],
)
def test_value_reader_reads_exact_numbers(text, value):
    assert read_value(text).value == value


@pytest.mark.parametrize("text", ["", "no idea", "version 1.2.3"])
def test_value_reader_says_when_there_is_no_number(text):
    r = read_value(text)
    assert not r.ok and r.error

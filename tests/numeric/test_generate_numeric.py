"""`acptools generate` on numeric domains: the questions exact numeric semantics answers (app, prog)
are generated in every form with values in the context and the problem; gold answers score 1, corrupted
ones 0, and every gold answer is re-checked by the independent oracle (tests/support/numeric_oracle.py)
reading the record's own PDDL problem; the questions that need proofs or plans are skipped, each with
one message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acptools.errors import AcpError
from acptools.generate.run import NUMERIC_REASON, Options, generate
from acptools.scoring import gold_response, score_response
from tests.support.numeric_corpus import CORPUS, numeric_families, problems
from tests.support.numeric_oracle import NumericTask

FAMILIES = numeric_families()


def _generate(family: str, form: str, tasks=None, n: int = 3):
    domain = CORPUS / family / "domain.pddl"
    return generate(domain, problems(family)[:1], Options(form=form, tasks=tasks, n=n, seed=1))


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
    out = _generate(family, "hard")
    assert set(out.skipped) == {"reach", "areach", "val", "just", "land", "nexta", "plan"}
    assert set(out.skipped.values()) == {NUMERIC_REASON}
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
    out = _generate(family, form)
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


def _oracle_truth(oracle: NumericTask, claim: dict) -> bool:
    if claim["claim"] == "applicable":
        return claim["action"] in oracle.applicable(oracle.init)
    assert claim["claim"] == "holds", claim
    state = oracle.init
    for action in claim["after"]:
        state = oracle.apply(state, action)
    return all(a in _atoms(oracle, state) for a in claim["atoms"])


def _wrong_answer(record: dict) -> str:
    if record["spec"].get("answer_type") == "bool":
        return "no" if record["answer"] == "yes" else "yes"
    return next(label for label in record["choices"]["label"] if label != record["answer"])


def test_arb_refused_with_reason():
    with pytest.raises(AcpError, match="numeric fluents"):
        _generate(FAMILIES[0], "arb")


def test_refused_task_alone_is_a_clear_error():
    with pytest.raises(AcpError, match="reach"):
        _generate(FAMILIES[0], "hard", tasks=("reach",))


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
    assert len(records) == 4
    assert all(score_response(r, gold_response(r)).score == 1.0 for r in records)
    skipped = [line for line in run.stderr.splitlines() if "skipped" in line]
    assert len(skipped) == (7 if form == "hard" else 5)

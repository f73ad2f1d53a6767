"""acptools.generate on every bundled domain and every ADL test domain: every generated gold answer
scores 1 under the project's scorer and a corrupted one scores 0; app/prog/val/reach/land answers
(and the yes/no and multiple-choice claims, and ActionReasoningBench states) are re-checked by the
independent unified-planning oracle; same seed, same bytes (the CLI run twice in subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from acptools.dataset import FIELDS, task_of
from acptools.kinds import form_kind
from acptools.scoring import gold_response, score_response
from acptools.scoring.question import plan_of_question
from acptools.truth import task_for
from tests.support.data import PDDL, ROOT
from tests.support.generated import ADL, BUNDLED, FORMS, N, generated

# ---- a wrong answer for every record -------------------------------------------------------------


def _atom_not_in(task, names) -> str:
    return next(a for a in task.atom_names if a not in set(names))


def _effects_text(pos, neg, task) -> str:
    if pos:
        pos, neg = pos[1:], neg + pos[:1]
    elif neg:
        pos, neg = neg[:1], neg[1:]
    else:
        pos = [task.atom_names[0]]
    return f"[{' '.join(pos)}] [{' '.join(neg)}]"


def _some_action(task) -> str:
    """A ground action of the task (lazy grounding names only the actions it has met so far)."""
    return next(iter(task.all_ground_actions()))


def _hard_wrong(r: dict, kind: str, task) -> str:
    a = r["answer"]
    applicable = task.questions.applicable()
    if kind == "app":
        return "[" + " ".join(a[1:] if a else [_some_action(task)]) + "]"
    if kind == "prog":
        return _effects_text(a["pos"], a["neg"], task)
    if kind in ("reach", "areach"):
        return "None" if a else (task.atom_names[0] if kind == "reach" else _some_action(task))
    if kind == "val":
        return str(a + 1)
    if kind == "just":
        return "[" + " ".join(plan_of_question(r["question"])) + "]"
    if kind == "land":
        if a["yes"]:
            return "None"
        return (a["no"] or task.names(task.goal_atoms) or task.names(task.init))[0]
    if kind == "nexta":
        return a["no"][0] if a["no"] else next(x for x in task.all_ground_actions() if x not in applicable)
    return "[" + " ".join(a["plan"][:-1]) + "]"  # plan: one action short of an optimal plan


def wrong(r: dict) -> str:
    """An answer to `r` that must score 0."""
    kind = task_of(r)
    task = task_for(r["PDDL_domain"], r["PDDL_problem"])
    if form_kind(r["group"]) is None or kind == "plan":
        return _hard_wrong(r, kind, task)
    a, spec = r["answer"], r["spec"]
    t = spec["answer_type"]
    if t == "bool":
        return "no" if a in ("yes", "True") else "yes"
    if t == "choice":
        return next(x for x in "ABCD" if x != a)
    if t == "set":
        if a:
            return "[" + " ".join(a[1:]) + "]" if len(a) > 1 else "None"
        return _some_action(task) if spec["query"]["query"] == "applicable" else _atom_not_in(task, a)
    if t == "effects":
        return _effects_text(a["pos"], a["neg"], task)
    if t == "count":
        return str(a + 1)
    if t == "index":
        return "1" if a is None else str(a + 1)
    return spec["query"]["names"][0] if a is None else "None"  # name


# ---- gold 1, corrupted 0 -------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", BUNDLED + ADL)
def test_gold_scores_one_and_corrupted_zero(name, form):
    out = generated(name, form)
    assert out.records, out.dropped
    assert sum(out.made.values()) >= len(out.made), (out.made, out.dropped)  # most tasks are possible
    for r in out.records:
        assert isinstance(r["id"], int) and -(2**63) <= r["id"] < 2**63
        assert list(r)[: len(FIELDS)] == list(FIELDS)
        if form == "hard" and r["group"] != "plan_generation":
            assert list(r) == list(FIELDS)  # exactly the published records' fields
        gold = score_response(r, gold_response(r))
        assert gold.score == 1, (r["group"], gold.verdict, gold.reason, gold_response(r))
        bad = score_response(r, wrong(r))
        assert bad.score == 0, (r["group"], wrong(r), bad.verdict, bad.reason)


def test_every_task_is_generated_on_a_bundled_domain():
    for form in FORMS:
        out = generated("logistics-strips", form)
        assert all(m == N for m in out.made.values()), (form, out.made, out.dropped)


def test_record_problem_starts_in_the_question_state():
    out = generated("ferry", "hard")
    for r in out.records:
        task = task_for(r["PDDL_domain"], r["PDDL_problem"])
        if task_of(r) == "app":
            assert task.questions.applicable() == r["answer"]


# ---- determinism ---------------------------------------------------------------------------------


def _cli(args, tmp_path, out_name):
    out = tmp_path / out_name
    run = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "generate", *args, "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    return out.read_bytes()


@pytest.mark.parametrize("name,form", [("ferry", "arb"), ("doors", "mcq"), ("gripper-strips", "hard")])
def test_same_seed_same_bytes(name, form, tmp_path):
    folder = (ROOT / "acptools" / "examples" / name) if name in BUNDLED else (PDDL / name)
    args = [
        "--domain",
        str(folder / "domain.pddl"),
        "--problem",
        str(folder / "problem.pddl"),
        "--form",
        form,
        "-n",
        "3",
        "--seed",
        "5",
    ]
    first = _cli(args, tmp_path, "a.jsonl")
    assert first == _cli(args, tmp_path, "b.jsonl")
    assert first != _cli(args[:-1] + ["6"], tmp_path, "c.jsonl")
    assert len(first.splitlines()) >= 3 * 5


def test_cli_writes_records_the_scorer_reads(tmp_path):
    folder = PDDL / "switches"
    args = [
        "--domain",
        str(folder / "domain.pddl"),
        "--problem",
        str(folder / "problem.pddl"),
        "--form",
        "bool",
        "--tasks",
        "app,prog",
        "-n",
        "4",
    ]
    _cli(args, tmp_path, "r.jsonl")
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [r["group"] for r in records] == ["applicable_actions_bool"] * 4 + ["progression_bool"] * 4
    assert sorted(r["answer"] for r in records[:4]) == ["no", "no", "yes", "yes"]  # balanced
    score = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "score", "--data", str(tmp_path / "r.jsonl"), "--gold", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert score.returncode == 0, score.stdout + score.stderr
    assert "gold check: 8/8 stored answers score 1" in score.stdout

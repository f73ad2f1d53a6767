"""Generated yes/no and 4-choice records have no shortcut: on bundled domains every trivial answerer of
acptools.audit (always yes / no, the most frequent answer or letter, the longest or shortest option,
the odd one out, copying from the goal or the state) scores within 10 points of chance, per task,
over enough records (160 a task in the slow test: one standard error of a 50% score is 4 points);
landmark questions ask non-trivial landmarks unless ACPBench v1's behaviour is asked for; and every
record's gold answer still scores 1 under the exact grader."""

from __future__ import annotations

import pytest

from acptools import examples
from acptools.audit import audit
from acptools.generate import Options, generate
from acptools.scoring import gold_response, score_response
from acptools.truth import task_for

SEED = 5
FOUR = ("logistics-strips", "blocksworld-4ops", "floor-tile", "grid")


def _records(names, form: str, tasks=None, n: int = 40, **kw) -> list[dict]:
    out = []
    for name in names:
        d, p = examples.texts(name)
        out += generate(d, [p], Options(form=form, tasks=tasks, n=n, seed=SEED, **kw)).records
    return out


def _within_chance(records, tolerance: float = 10.0) -> None:
    report = audit(records, tolerance=tolerance)
    assert not report.unread
    assert not report.flagged(), report.table()
    for row in report.rows:  # the answerers that looked for a shortcut did answer the records
        assert row.records >= 30, report.table()
        assert {"majority"} <= set(row.cells)
        if row.form == "mcq":
            assert {"longest", "shortest", "odd_one_out"} <= set(row.cells)


def _claims(r: dict) -> list[dict]:
    return r["spec"]["claims"] if r["form"] == "mcq" else [r["spec"]["claim"]]


def _right_claims(r: dict) -> list[dict]:
    if r["form"] == "bool":
        return [r["spec"]["claim"]] if r["answer"] == "yes" else []
    return [r["spec"]["claims"]["ABCD".index(r["answer"])]]


@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_landmark_questions_ask_no_goal_fact_and_no_fact_that_holds(form):
    records = _records(["ferry", "logistics-strips", "grid"], form, ("land",), n=12)
    assert len(records) == 36
    for r in records:
        task = task_for(r["PDDL_domain"], r["PDDL_problem"])
        for claim in _claims(r):
            atom = task.atom_name_index[claim["atom"]]
            assert not (task.goal_atoms | task.init) >> atom & 1, (r["question"], claim)
        assert score_response(r, gold_response(r)).score == 1


@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_trivial_landmarks_keep_acpbench_v1s_goal_facts(form):
    """With the option, goal facts are asked again (ACPBench v1), and copying from the goal pays."""
    records = _records(["ferry", "logistics-strips"], form, ("land",), n=12, trivial_landmarks=True)
    goal_answers = 0
    for r in records:
        task = task_for(r["PDDL_domain"], r["PDDL_problem"])
        goal_answers += any(task.goal_atoms >> task.atom_name_index[c["atom"]] & 1 for c in _right_claims(r))
    assert goal_answers >= len(records) // 3
    row = audit(records).rows[0]
    assert row.cells["goal"].delta > 10


@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_one_domain_has_no_shortcut_in_the_tasks_that_had_one(form):
    """Landmarks (goal facts), reachability (two-fact options, facts of the state), progression
    (facts of the state) on one domain, 40 records a task."""
    records = _records(["blocksworld-4ops"], form, ("land", "reach", "prog"), n=40)
    _within_chance(records, tolerance=12.5)  # one domain, 40 records: a wider margin than the slow test's
    for r in records[::7]:
        assert score_response(r, gold_response(r)).score == 1


@pytest.mark.slow
@pytest.mark.parametrize("form", ["bool", "mcq"])
def test_four_domains_every_task_within_ten_points_of_chance(form):
    records = _records(FOUR, form)
    _within_chance(records)
    for r in records[::5]:
        assert score_response(r, gold_response(r)).score == 1

"""acptools audit: the facts a context states are read in the formats acptools, ACPBench v1 and
ACPBench Hard write; each trivial answerer scores what it should on records built to have (or not
have) its shortcut; chance is computed per answer shape (for a question any one of a set of items
answers, the share of right items); only closed answers are flagged below chance; ACPBench Hard's
bundled data shows its known None shortcut; the command prints a table or JSON and exits 1 when an
answerer is flagged."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

from acptools import examples
from acptools.audit import audit
from acptools.audit.answerers import Answerers, item_of
from acptools.audit.audit_report import Cell
from acptools.audit.facts import Facts, mentions, option_kind, split_facts
from acptools.dataset import acpbench_hard, task_of
from acptools.generate import Options, generate, write_jsonl
from acptools.truth import task_for, truth_for

OURS = (
    "This is a ferry domain. The objects are: c0 and c1 (car). The following facts never change: l0 differs "
    "from l1 and l1 differs from l0. Currently, the following facts hold: car c0 is at location l0, car c1 is on the ferry, and the "
    "ferry is at location l1; all other facts that can change are false. The goal is to reach a state where "
    "the following facts hold: car c0 is at location l1 and car c1 is at location l0."
)
V1 = (
    "Currently, the ferry is at l0, with the car c1 on board. The goal is to reach a state where the following "
    "facts hold: Car c7 is at location l1, Car c15 is at location l0, and Car c3 is at location l0."
)


def test_facts_of_contexts_in_each_format():
    f = Facts.of(OURS)
    assert f.state == ("car c0 is at location l0", "car c1 is on the ferry", "the ferry is at location l1")
    assert f.goal == ("car c0 is at location l1", "car c1 is at location l0")
    assert f.static == ("l0 differs from l1", "l1 differs from l0")
    assert Facts.of(V1).goal == ("car c7 is at location l1", "car c15 is at location l0", "car c3 is at location l0")
    assert split_facts("at(c0, l1), on(c1), and empty()") == ["at(c0, l1)", "on(c1)", "empty()"]
    assert mentions("Is Car c3 is at location l0 a landmark?", Facts.of(V1).goal)
    assert not mentions("car c1 is at location l10", ["car c1 is at location l1"])
    assert option_kind("sail from location l0 to location l2-1") == option_kind("sail from location l3 to location l1")


def _bool(question: str, answer: str, context: str = OURS) -> dict:
    return {"id": 1, "group": "landmarks_bool", "context": context, "question": question, "answer": answer}


def _mcq(options: list[str], answer: str, context: str = OURS) -> dict:
    return {
        "id": 2,
        "group": "landmarks_mcq",
        "context": context,
        "question": "Which? " + " ".join(options),
        "choices": {"text": options, "label": list("ABCD")},
        "answer": answer,
    }


def test_answerers_find_the_shortcuts_they_look_for():
    # every "yes" quotes a goal fact, every "no" a fact of the state: copying wins both ways
    records = [
        _bool("Is car c0 is at location l1 a landmark?", "yes"),
        _bool("Is car c1 is on the ferry a landmark?", "no"),
    ] * 10
    row = audit(records).rows[0]
    assert (row.form, row.task, row.records, row.chance) == ("bool", "land", 20, 0.5)
    assert row.cells["goal"].score == 1 and row.cells["state"].score == 0
    assert row.cells["yes"].score == row.cells["no"].score == row.cells["majority"].score == 0.5
    # the right option is the longest, the one goal fact, and always at B
    opts = ["car c1 is on the ferry", "car c0 is at location l1 (a long one)", "the ferry is empty", "x is y"]
    mcq = audit([_mcq(opts, "B")] * 8).rows[0]
    assert mcq.chance == 0.25
    assert mcq.cells["longest"].score == 1 and mcq.cells["shortest"].score == 0
    assert mcq.cells["goal"].score == 1 and mcq.cells["majority"].score == 1
    assert mcq.cells["state"].score == 0  # the one option that quotes the state is wrong
    assert mcq.cells["unmentioned"].score == 0  # C and D quote nothing of the context; B quotes the goal
    report = audit([_mcq(opts, "B")] * 8)
    assert {name for _, name, _ in report.flagged()} >= {"longest", "goal", "majority", "state"}


def test_no_shortcut_scores_chance_and_is_not_flagged():
    opts = [f"car c{k} is at location l9" for k in range(4)]
    records = [_mcq(opts, "ABCD"[k % 4]) for k in range(8)]
    report = audit(records)
    assert not report.flagged()
    assert all(abs(c.score - 0.25) < 1e-9 for c in report.rows[0].cells.values())


def test_graded_answers_use_the_grader_and_an_honest_chance():
    d, p = examples.texts("ferry")
    out = generate(d, [p], Options(form="arb", tasks=("action_executability", "hallucination"), n=12, seed=2))
    rows = {r.task: r for r in audit(out.records).rows}
    for row in rows.values():
        assert 0 < row.chance < 1  # yes/no (1/2), steps or None (1/(n+1)), names or None (1/(k+1))
        assert "none" in row.cells and "majority" in row.cells
    records = acpbench_hard("test", "reach")[:40]
    reach = audit(records).rows[0]
    assert (reach.form, reach.task) == ("hard", "reach")
    shares = []  # a uniform guess among the task's atoms: right with the share of them that can never hold
    for r in records:
        task = task_for(r["PDDL_domain"], r["PDDL_problem"])
        res = truth_for(task, task.init).unreachable_atoms(10.0)
        assert res.complete
        shares.append(res.total / len(task.atoms))
    assert abs(reach.chance - sum(shares) / len(shares)) < 1e-9 and 0 < reach.chance < 1
    none = sum(1 for r in records if not r["answer"]) / 40
    assert abs(reach.cells["none"].score - none) < 1e-9 and none > 0.1  # ACPBench Hard's own None shortcut


def test_pick_one_questions_chance_is_the_share_of_right_items_and_majority_the_best_constant():
    """land and nexta: chance is |right items| / |items the question allows| (atoms neither true nor
    goal facts; applicable actions), and `majority` answers the item right in the most records."""
    d, p = examples.texts("ferry")
    records = generate(d, [p], Options(form="hard", tasks=("land", "nexta"), n=10, seed=3)).records
    rows = {row.task: row for row in audit(records).rows}
    for kind in ("land", "nexta"):
        mine = [r for r in records if task_of(r) == kind]
        chances, right = [], Counter()
        for r in mine:
            task = task_for(r["PDDL_domain"], r["PDDL_problem"])
            yes = r["answer"]["yes"]
            if kind == "land":
                allowed = [n for i, n in enumerate(task.atom_names) if not (task.init | task.goal_atoms) >> i & 1]
                assert set(yes) <= set(allowed)
            else:
                allowed = yes + r["answer"]["no"]
                assert sorted(allowed) == sorted(task.action_list(task.applicable(task.init)))
            chances.append(len(yes) / len(allowed))
            right.update(set(yes) or {"None"})
        row = rows[kind]
        assert abs(row.chance - sum(chances) / len(chances)) < 1e-9 and 0 < row.chance < 1
        best = max(right.values())
        assert abs(row.cells["majority"].score - best / len(mine)) < 1e-9, (kind, right)


def test_only_closed_answers_are_flagged_below_chance():
    """Far below chance gives a yes/no or an option away by elimination, not a list or a landmark."""
    assert Cell(40, 0.1, 0.5, closed=True).flagged(10) and not Cell(40, 0.1, 0.5, closed=False).flagged(10)
    assert Cell(40, 0.7, 0.5, closed=False).flagged(10) and not Cell(40, 0.55, 0.5, closed=False).flagged(10)


def test_ignoring_the_actions_is_not_scored_on_facts_no_action_changes():
    """A fact the context lists as never changing is read off the initial state by right."""
    d, p = examples.texts("logistics-strips")  # in-city: static, and stated
    records = generate(d, [p], Options(form="arb", tasks=("fluent_tracking",), n=24, seed=1)).records
    items = [item_of(r) for r in records if r["spec"]["answer_type"] == "bool"]
    answerers = Answerers(items)
    static = [it for it in items if it.record.get("fluent_kind") == "static"]
    acted = [it for it in items if it.record.get("fluent_kind") != "static"]
    assert static and acted
    assert all(answerers.score("ignore_actions", it) is None for it in static)
    assert all(answerers.score("ignore_actions", it) in (0.0, 1.0) for it in acted)


def test_the_command_prints_a_table_or_json_and_exits_by_the_tolerance(tmp_path):
    opts = ["car c1 is on the ferry", "car c0 is at location l1 (a long one)", "the ferry is empty", "x is y"]
    write_jsonl([_mcq(opts, "B")] * 8, tmp_path / "r.jsonl")
    cmd = [sys.executable, "-m", "acptools.cli", "audit", str(tmp_path / "r.jsonl"), "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "mcq   land" in p.stdout and "100!" in p.stdout, p.stdout + p.stderr
    p = subprocess.run(cmd + ["--json"], capture_output=True, text=True, timeout=300)
    data = json.loads(p.stdout)
    row = data["rows"][0]
    assert row["answerers"]["longest"] == {"records": 8, "score": 1.0, "chance": 0.25, "flagged": True}
    assert data["flagged"] >= 4
    p = subprocess.run(cmd + ["--tolerance", "100"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0
    p = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "audit", str(tmp_path / "none.jsonl")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 2 and "no such file" in p.stderr and "Traceback" not in p.stderr

"""Grading answers to the generated forms: lenient reading, partial-credit metrics, graders that
decide from the PDDL rather than trust the stored answer, natural-language templates and the
generic fallback, and clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from acptools import examples
from acptools.answers import canonical_task
from acptools.answers.form_readers import read_bool, read_choice, read_count, read_step
from acptools.dataset import task_of
from acptools.errors import AcpError
from acptools.generate import Options, generate
from acptools.generate.templates import for_domain, parse
from acptools.scoring import gold_response, score_answer, score_response
from acptools.truth import task_for
from tests.support.data import PDDL, ROOT, pddl_texts
from tests.support.generated import generated


def _find(name: str, form: str, test) -> dict:
    return next(r for r in generated(name, form).records if test(r))


@pytest.mark.parametrize(
    "text,value",
    [
        ("Yes", True),
        ("no.", False),
        ("**TRUE**", True),
        ("Answer: false", False),
        ("The answer is: No", False),
        ("No block is on top of it, so yes.", True),
        ("No, it cannot.", False),
        ("I believe this is false", False),
        ("<think>maybe yes</think>\nNo", False),
        ("Final answer: True. Because ...", True),
    ],
)
def test_yes_no_reading(text, value):
    r = read_bool(text)
    assert r.ok and r.value is value


def test_choice_count_and_step_reading():
    opts = ["sail from l0 to l1", "board c0 at l0", "debark c0 at l1", "sail from l0 to l1 and back"]
    for text, k in [
        ("B", 1),
        ("(C)", 2),
        ("Answer: D", 3),
        ("The correct option is b.", 1),
        ("board c0 at l0", 1),
        ("I pick: sail from l0 to l1", 0),
        ("A. x\nB. y\nAnswer: C", 2),
    ]:
        assert read_choice(text, opts).value == k, text
    assert not read_choice("no idea", opts).ok and "letter" in read_choice("no idea", opts).error
    assert read_count("Answer: 12").value == 12 and read_count("There are 4 of them").value == 4
    assert read_step("None").ok and read_step("None").value is None and read_step("step 3").value == 3
    assert not read_bool("").ok and not read_count("many").ok


def test_yes_no_graded_against_the_proof_not_the_stored_answer():
    r = _find("ferry", "bool", lambda r: r["answer"] == "yes")
    assert score_response(r, "Yes, it is.").score == 1
    assert score_response(r, "true").score == 1
    assert score_response(r, "**No**").score == 0
    assert score_response(r, "I cannot tell").verdict == "unparsed"
    tampered = dict(r, answer="no")
    assert score_response(tampered, "yes").score == 1  # exact semantics decides the claim again
    assert score_response(tampered, "yes", semantics="reference").score == 0  # reference reads the stored answer


def test_choice_by_letter_or_text():
    r = _find("grid-visit-all", "mcq", lambda r: True)
    right = "ABCD".index(r["answer"])
    text = r["choices"]["text"][right]
    assert score_response(r, r["answer"]).score == 1
    assert score_response(r, f"The answer is {text}.").score == 1
    other = next(x for x in "ABCD" if x != r["answer"])
    out = score_response(r, f"Answer: {other}")
    assert out.score == 0 and "is false" in out.reason and out.metrics["expected"] == r["answer"]


def test_state_answers_get_comprehension_and_tracking_iou():
    gen = generate(*examples.texts("ferry"), Options(form="arb", tasks=("state_tracking",), n=24, seed=5))
    r = max(
        (
            r
            for r in gen.records
            if r["spec"]["answer_type"] == "set"
            and r["spec"]["query"].get("object") is None
            and r["spec"]["query"].get("sign") == "true"
            and r["spec"]["query"].get("after")
        ),
        key=lambda r: len(r["spec"]["query"]["predicates"]),
    )  # the widest question of its fluent kind
    task = task_for(r["PDDL_domain"], r["PDDL_problem"])
    asked = set(r["spec"]["query"]["predicates"])
    initial = [a for a in task.names(task.init) if a[1:].split()[0].rstrip(")") in asked]
    exact = score_response(r, "[" + " ".join(r["answer"]) + "]")
    assert exact.score == 1 and exact.metrics["iou"] == 1.0
    echo = score_response(r, "[" + " ".join(initial) + "]")  # repeating the initial state tracks nothing
    if set(initial) != set(r["answer"]):
        assert echo.score == 0 and echo.metrics["tracking_iou"] == 0.0 and echo.metrics["iou"] > 0
        assert 0 < echo.metrics["precision"] < 1 or echo.metrics["recall"] < 1


def test_counts_and_steps_report_their_error():
    r = _find("ferry", "arb", lambda r: r["spec"]["answer_type"] == "count")
    out = score_response(r, f"Answer: {r['answer'] + 2}")
    assert out.score == 0 and out.metrics["abs_error"] == 2
    gen = generate(*examples.texts("ferry"), Options(form="arb", tasks=("action_executability",), n=12, seed=3))
    r = next(r for r in gen.records if r["spec"]["answer_type"] == "index" and r["answer"])
    out = score_response(r, str(r["answer"] + 1))
    assert out.score == 0 and out.metrics["index_error"] == 1
    assert score_response(r, "None").score == 0 and score_response(r, f"step {r['answer']}").score == 1


def test_hallucination_answers():
    gen = generate(*examples.texts("ferry"), Options(form="arb", tasks=("hallucination",), n=12, seed=4))
    named = [r for r in gen.records if r["spec"]["answer_type"] == "name"]
    fake = next(r for r in named if r["answer"])
    task = task_for(fake["PDDL_domain"], fake["PDDL_problem"])
    assert fake["answer"] not in task.action_names + task.atom_names
    assert score_response(fake, f"Answer: {fake['answer']}").score == 1
    assert score_response(fake, "None").score == 0
    real = next((r for r in named if r["answer"] is None), None)
    if real is not None:
        assert score_response(real, "None, every one is defined").score == 1


def test_written_plans_valid_goal_and_length_ratio():
    r = _find("gripper-strips", "hard", lambda r: r["group"] == "plan_generation")
    plan = r["answer"]["plan"]
    task = task_for(r["PDDL_domain"], r["PDDL_problem"])
    first = task.parse_action(plan[0])
    undo = next(
        a
        for a in task.applicable(task.apply_op(task.op_for(first, task.init), task.init))
        if task.apply_op(
            task.op_for(a, task.apply_op(task.op_for(first, task.init), task.init)),
            task.apply_op(task.op_for(first, task.init), task.init),
        )
        == task.init
    )
    longer = [plan[0], task.action_names[undo]] + plan
    out = score_response(r, "[" + " ".join(longer) + "]")
    assert out.score == 1 and out.metrics["optimal"] is False
    assert out.metrics["length_ratio"] == round(len(longer) / int(r["answer"]["opt"]), 6)
    short = score_response(r, "[" + " ".join(plan[:-1]) + "]")
    assert short.score == 0 and short.verdict == "not-a-plan" and short.metrics["goal_reached"] is False
    bad = score_response(r, "[" + " ".join(plan[1:]) + "]")
    assert bad.score == 0 and bad.metrics["first_inapplicable"] is not None or bad.metrics["goal_reached"] is False
    assert score_response(r, "[(fly nowhere)]").verdict == "hallucinated"


def test_group_and_kind_agree_for_the_mcp_tool():
    for form in ("bool", "mcq", "arb"):
        for r in generated("doors", form).records:
            assert canonical_task(r["group"]) == task_of(r)
    task = task_for(*examples.texts("ferry"))
    with pytest.raises(AcpError, match="graded from their records"):
        score_answer("app_bool", "yes", task=task)


# ---- natural language -----------------------------------------------------------------------------


def test_bundled_templates_and_generic_fallback():
    ferry = generated("ferry", "hard").records[0]
    assert "the ferry is at location" in ferry["context"]
    doors = generated("doors", "hard").records[0]
    assert "robot-at(r" in doors["context"] and "(walk ?a ?b)" in doors["context"]


def test_a_template_file_of_your_own(tmp_path):
    d, p = pddl_texts("doors")
    nl = tmp_path / "doors.json"
    nl.write_text(
        json.dumps(
            {
                "domain": "doors",
                "description": "A robot walks through doors.",
                "predicates": {"robot-at": "the robot is in room {r}"},
                "actions": {"walk": "walk from room {a} to room {b}"},
            }
        )
    )
    out = generate(d, [p], Options(form="bool", tasks=("app",), n=2, nl=nl))
    assert all("the robot is in room" in r["context"] for r in out.records)
    assert "A robot walks through doors." in out.records[0]["context"]
    nl.write_text(json.dumps({"domain": "doors", "predicates": {"robot-at": "the robot is in room {room}"}}))
    with pytest.raises(AcpError, match=r"\{room\} is not a parameter"):
        generate(d, [p], Options(form="bool", tasks=("app",), n=1, nl=nl))
    with pytest.raises(AcpError, match="has no predicate 'flies'"):
        parse('{"domain": "doors", "predicates": {"flies": "x"}}', "t.json").check(task_for(d, p).domain)
    assert not for_domain(task_for(d, p).domain).predicates  # no shipped file: generic phrases


@pytest.mark.parametrize(
    "args,message",
    [
        (["--form", "essay"], "invalid choice"),
        (["--tasks", "nexta", "--form", "bool"], "'nexta' is not a task of the bool form"),
        (["--walk", "9:2"], "MIN <= MAX"),
        (["--nl", "missing.json"], "no such template file"),
        (["--budget", "0"], "--budget must be a positive number"),
    ],
)
def test_cli_rejects_bad_input(args, message, tmp_path):
    folder = PDDL / "doors"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "generate",
            "--domain",
            str(folder / "domain.pddl"),
            "--problem",
            str(folder / "problem.pddl"),
            "--out",
            str(tmp_path / "x.jsonl"),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_questions_about_the_initial_state_itself():
    d, p = examples.texts("gripper-strips")
    out = generate(d, [p], Options(form="arb", tasks=("state_tracking", "fluent_tracking"), n=6, seed=9, steps=(0,)))
    assert out.made == {"state_tracking": 6, "fluent_tracking": 6}
    for r in out.records:
        assert r["question"].startswith("Given the initial condition, ") and "performed" not in r["question"]
        query = r["spec"].get("query", {})
        if query.get("sign") == "true" and "object" not in query:  # the whole initial state, as the PDDL says
            task = task_for(r["PDDL_domain"], r["PDDL_problem"])
            assert r["answer"] == task.names(task.init)
        graded = score_response(r, gold_response(r))
        assert graded.score == 1 and not any(k.startswith("tracking_") for k in graded.metrics)


# ---- over MCP ------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["hard", "bool", "mcq", "arb"])
def test_mcp_score_answer_grades_generated_records(form):
    """The MCP `score_answer` tool takes a generated record of any form as `record=`: the gold answer
    scores 1 there, as in the library."""
    import anyio
    from acptools_server.app import build_server
    from acptools_server.config import ServerConfig
    from mcp import Client

    recs = generated("ferry", form).records[:3]

    async def grade_all():
        async with Client(build_server(ServerConfig())) as client:
            out = []
            for r in recs:
                res = await client.call_tool(
                    "score_answer", {"task": r["group"], "record": r, "response": gold_response(r)}
                )
                assert not res.is_error, res.content[0].text
                out.append(res.structured_content)
            return out

    results = anyio.run(grade_all)
    assert [x["score"] for x in results] == [score_response(r, gold_response(r)).score for r in recs] == [1.0] * 3

"""acptools eval end to end: a real loopback server speaking the OpenAI and Anthropic wire formats
answers every question right (the record's stored answer), wrong or in prose, and every item gets
exactly the score that answer deserves, in every record form.

The stored answers of ACPBench Hard come from the benchmark (not from acptools); the generated
records' answers are proven by acptools when generated and graded again here from their PDDL. A
wrong answer is one no reading can make right: the opposite yes/no, another option, another count
or step, an empty set where the truth is not, or actions and facts of another domain (names the
task does not have)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acptools import examples
from acptools.dataset import PDDL_PROMISE, sample, task_of
from acptools.evaluation import messages_for
from acptools.generate import Options, generate
from acptools.prompts import prompt_messages
from acptools.scoring import gold_response, score_response
from tests.support.data import ROOT, pddl_texts, records
from tests.support.scripted_api import KEYS, ScriptedModel, Status, request_text, tokens

PROSE = "Let me think about this carefully before I commit to anything."


def cli(*args, timeout=600) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", "eval", "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=timeout,
        cwd=ROOT,
    )


def rows_of(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def wrong_answer(record: dict, others: list[dict]) -> str | None:
    """An answer that is wrong under any reading, or None when the record has none of those."""
    spec = record.get("spec") or {}
    kind, gold = spec.get("answer_type"), record.get("answer")
    if kind == "bool":
        return "no" if str(gold).strip().lower() in ("yes", "true") else "yes"
    if kind == "choice":
        return next(label for label in "ABCD" if label != gold)
    if kind == "count":
        return str(int(gold) + 1)
    if kind == "set":
        return "None" if gold else None
    if kind is None and task_of(record) == "val":
        return str(int(gold) + 1)
    if kind is None:  # the same task's answer in another domain: names this task does not have
        other = next(o for o in others if task_of(o) == task_of(record) and o["PDDL_domain"] != record["PDDL_domain"])
        return gold_response(other)
    return None


class Answers:
    """The script: the model name says how to answer (right, wrong or prose); the question is found
    by the text of its last turn."""

    def __init__(self, recs: list[dict], other: list[dict]):
        self.by_turn = {messages_for(r)[-1]["content"]: r for r in recs}
        self.by_turn.update({messages_for(r, pddl=True)[-1]["content"]: r for r in recs})
        self.other = other

    def __call__(self, api, body):
        record = self.by_turn[body["messages"][-1]["content"]]
        how = body["model"]
        if how == "right":
            return gold_response(record)
        if how == "wrong":
            return wrong_answer(record, self.other)
        return PROSE


def _run_three(tmp_path, data, recs, other, api="openai", extra=()):
    """Run right, wrong and prose over `data`; returns {how: (items, requests)}."""
    out = {}
    with ScriptedModel(Answers(recs, other)) as model:
        url = model.openai_url if api == "openai" else model.url
        for how in ("right", "wrong", "prose"):
            start = len(model.requests)
            path = tmp_path / f"{how}.jsonl"
            proc = cli(
                "--data",
                *data,
                "--policy",
                f"{api}:{how}",
                "--base-url",
                url,
                "--out",
                path,
                "--jobs",
                3,
                "--report",
                tmp_path / f"{how}.report.json",
                *extra,
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
            out[how] = rows_of(path), model.requests[start:]
    return out


def _check(out, recs, skip=()):
    keys = {(task_of(r), str(r["id"])) for r in recs}
    for how, (items, requests) in out.items():
        assert {(it["task"], str(it["id"])) for it in items} == keys and len(items) == len(recs)
        assert len(requests) == len(recs)
        for it in items:
            if how == "right":
                assert (it["score"], it["verdict"]) == (1, "correct"), it
            elif how == "wrong" and (it["task"], str(it["id"])) not in skip:
                assert it["score"] == 0 and it["verdict"] not in ("correct", "unparsed", "error"), it
            elif how == "prose":
                assert (it["score"], it["verdict"]) == (0, "unparsed"), it
        sent = sorted(tokens(request_text(api, body)) for api, body in requests)
        assert sorted(it["input_tokens"] for it in items) == sent


def test_acpbench_hard_every_task_right_wrong_and_prose(tmp_path):
    tasks = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
    other = [r for task in tasks for r in records("test", task)]
    recs = sample(other, 1)  # what --limit 1 asks: one record of each task, each of another domain
    assert len(recs) == len(tasks) and len({r["PDDL_domain"] for r in recs}) == len(tasks)
    out = _run_three(tmp_path, ["acpbench-hard:test", "--limit", "1"], recs, other)
    _check(out, recs)
    for api, body in out["right"][1]:
        record = Answers(recs, other).by_turn[body["messages"][-1]["content"]]
        assert body["messages"] == prompt_messages(record)  # lm-eval's 2-shot chat prompt, as sent
    report = json.loads((tmp_path / "right.report.json").read_text())
    assert report["items"] == 8 and report["usage"]["input_tokens"] == sum(it["input_tokens"] for it in out["right"][0])
    assert report["usage"]["output_tokens"] == sum(tokens(gold_response(r)) for r in recs)


def test_with_pddl_sends_the_pddl_prompt_over_anthropic(tmp_path):
    other = records("test", "land")
    recs = sample(other, 2)
    with ScriptedModel(Answers(recs, other)) as model:
        proc = cli(
            "--data",
            "acpbench-hard:test:land",
            "--limit",
            2,
            "--with-pddl",
            "--policy",
            "anthropic:right",
            "--base-url",
            model.url,
            "--out",
            tmp_path / "a.jsonl",
        )
        assert proc.returncode == 0, proc.stderr
        for api, body in model.requests:
            record = Answers(recs, other).by_turn[body["messages"][-1]["content"]]
            want = prompt_messages(record, pddl=True)
            system = "".join(m["content"] for m in want if m["role"] == "system")
            assert api == "anthropic" and body.get("system", "") == system
            assert body["messages"] == [m for m in want if m["role"] != "system"]
            assert record["PDDL_domain"] in body["messages"][-1]["content"]
    # each stored answer graded as `score_response` grades it (one ACPBench land answer is wrong: missed)
    want = {str(r["id"]): score_response(r, gold_response(r)).score for r in recs}
    assert {str(it["id"]): it["score"] for it in rows_of(tmp_path / "a.jsonl")} == want


@pytest.fixture(scope="module")
def generated_files(tmp_path_factory):
    """Records of the three other forms, generated from a bundled domain; and a record of another
    domain (wrong answers name its objects)."""
    folder = tmp_path_factory.mktemp("generated")
    d, p = examples.texts("ferry")
    made = {}
    for form, tasks in (
        ("bool", ("app", "reach", "land")),
        ("mcq", ("app", "prog", "land")),
        ("arb", ("fluent_tracking", "numerical_reasoning", "action_executability")),
    ):
        recs = generate(d, [p], Options(form=form, tasks=tasks, n=2, seed=3, budget=20.0, steps=(1, 2))).records
        path = folder / f"{form}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))
        made[form] = path, recs
    return made


def test_generated_forms_right_wrong_and_prose(tmp_path, generated_files):
    """bool, mcq and arb records in one run (three files)."""
    paths = [generated_files[form][0] for form in ("bool", "mcq", "arb")]
    recs = [r for form in ("bool", "mcq", "arb") for r in generated_files[form][1]]
    for form in ("bool", "mcq", "arb"):
        made = generated_files[form][1]
        assert len(made) >= 4 and sum(wrong_answer(r, made) is not None for r in made) > len(made) / 2
    skip = {(task_of(r), str(r["id"])) for r in recs if wrong_answer(r, recs) is None}
    out = _run_three(tmp_path, paths, recs, recs)
    _check(out, recs, skip)
    for api, body in out["right"][1]:
        assert body["messages"][0]["role"] == "system" and len(body["messages"]) == 2


def test_cmd_and_python_policies_read_the_question(tmp_path, generated_files):
    path, recs = generated_files["bool"]
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import json, sys\nfor line in sys.stdin:\n    q = json.loads(line)\n"
        "    print('yes' if q['prompt'] and q['messages'][-1]['role'] == 'user' else 'no', flush=True)\n"
    )
    fn = tmp_path / "fn.py"
    fn.write_text("def answer(q):\n    return {'reply': 'yes', 'input_tokens': len(q.prompt), 'cost': 0.5}\n")
    want = [1 if str(r["answer"]).lower() == "yes" else 0 for r in recs]
    for policy in (f"cmd:{sys.executable} {agent}", f"python:{fn}:answer"):
        out = tmp_path / "o.jsonl"
        proc = cli("--data", path, "--policy", policy, "--out", out, "--force", "--report", tmp_path / "r.json")
        assert proc.returncode == 0, proc.stderr
        by_id = {str(it["id"]): it for it in rows_of(out)}
        assert [by_id[str(r["id"])]["score"] for r in recs] == want
    assert json.loads((tmp_path / "r.json").read_text())["usage"]["cost"] == 0.5 * len(recs)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--data", "acpbench-hard:test", "--policy", "nope:x"], "unknown policy 'nope:x'"),
        (["--data", "acpbench-hard:test", "--policy", "random", "--limit", "0"], "--limit must be at least 1"),
        (["--data", "nowhere.jsonl", "--policy", "openai:m", "--base-url", "http://127.0.0.1:9"], "nowhere.jsonl"),
    ],
)
def test_bad_input_is_one_clear_line(args, needle):
    proc = cli(*args)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_a_question_without_a_reply_is_asked_again_by_resume(tmp_path):
    recs = sample(records("test", "app"), 3)  # what --limit 3 asks
    answers = {messages_for(r)[-1]["content"]: gold_response(r) for r in recs}
    refused = messages_for(recs[1])[-1]["content"]
    out = tmp_path / "items.jsonl"
    down = {"refuse": True}  # the endpoint refuses that question in the first run only

    def script(api, body):
        turn = body["messages"][-1]["content"]
        return Status(400, "context too long") if down["refuse"] and turn == refused else answers[turn]

    args = ("--data", "acpbench-hard:test:app", "--limit", 3, "--policy", "openai:m", "--out", out, "--jobs", 1)
    with ScriptedModel(script) as model:
        proc = cli(*args, "--base-url", model.openai_url)
        assert proc.returncode == 1 and "(--resume asks the questions without a reply again)" in proc.stdout
        (failed,) = [it for it in rows_of(out) if it["verdict"] == "error"]
        assert failed["id"] == recs[1]["id"] and "context too long" in failed["reply_error"] and failed["score"] is None
        down["refuse"], asked = False, len(model.requests)
        proc = cli(*args, "--base-url", model.openai_url, "--resume")
        assert proc.returncode == 0, proc.stderr
        assert len(model.requests) == asked + 1  # only the question without a reply was asked again
    assert sorted(it["score"] for it in rows_of(out)) == [1, 1, 1] and len(rows_of(out)) == 3


def test_a_rejected_key_stops_the_run_in_one_line(tmp_path):
    with ScriptedModel(lambda api, body: Status(401, "invalid api key")) as model:
        proc = cli(
            "--data",
            "acpbench-hard:test:app",
            "--limit",
            2,
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
            "--out",
            tmp_path / "items.jsonl",
        )
    assert proc.returncode == 2 and "invalid api key" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_records_that_promise_their_pddl_are_asked_with_it(tmp_path):
    """Records generated from a domain without phrase templates say 'its PDDL is given with the
    question': eval sends it (without --with-pddl), and says so; a record with a template is asked
    without it; a record that promises its PDDL but lacks it is an item in error saying why."""
    (d, p), (fd, fp) = pddl_texts("briefcase"), examples.texts("ferry")
    bare = generate(d, [p], Options(form="bool", tasks=("app",), n=2, seed=1, budget=20.0)).records
    phrased = generate(fd, [fp], Options(form="bool", tasks=("app",), n=2, seed=1)).records
    assert all(PDDL_PROMISE in r["context"] for r in bare) and not any(PDDL_PROMISE in r["context"] for r in phrased)
    broken = {**bare[0], "id": 1, "PDDL_domain": ""}
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in bare + phrased + [broken]))
    with ScriptedModel(lambda api, body: "yes") as model:
        proc = cli(
            "--data", data, "--policy", "openai:m", "--base-url", model.openai_url, "--out", tmp_path / "o.jsonl"
        )
    assert proc.returncode == 1, proc.stderr  # the broken record is an error
    assert "2 records say their PDDL is given with the question: they were asked with it" in proc.stdout
    sent = {body["messages"][-1]["content"] for _, body in model.requests}
    assert len(sent) == 4
    for r in bare:
        assert any(r["PDDL_domain"] in text and r["question"] in text for text in sent)
    for r in phrased:
        assert any(r["question"] in text and "(define" not in text for text in sent)
    items = {str(it["id"]): it for it in rows_of(tmp_path / "o.jsonl")}
    assert [items[str(r["id"])]["with_pddl"] for r in bare + phrased] == [True, True, False, False]
    assert items["1"]["verdict"] == "error" and "has no PDDL_domain and PDDL_problem" in items["1"]["reason"]

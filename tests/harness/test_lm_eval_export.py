"""`acptools export lm-eval`: lm-eval 0.4.13 itself runs the exported tasks of generated records in
every form (and ACPBench Hard records) with its `local-chat-completions` model against a scripted
loopback server that answers right, wrong or in prose; each item gets the score its reply implies."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acptools.cli import main
from acptools.dataset import load_records, task_of
from acptools.export import record_prompt
from acptools.scoring import gold_response
from tests.support.data import ROOT
from tests.support.scripted_api import ScriptedModel, request_text

lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is in the test extra: pip install -e '.[test]'")
FERRY = ROOT / "acptools" / "examples" / "ferry"
HARD_WRONG = {
    "app": "[]",
    "prog": "[] []",
    "reach": "(nosuch x)",
    "areach": "None",
    "val": "99",
    "just": "[]",
    "land": "None",
    "nexta": "None",
    "plan": "(sail l0 l0)",
}
PROSE = "I would need to think about this much longer before answering."


def _wrong(record: dict) -> str | None:
    """A well-formed wrong answer where one is easy to write without the grader, else None (prose)."""
    kind, gold = task_of(record), gold_response(record)
    if kind.endswith("_bool") or record.get("spec", {}).get("answer_type") == "bool":
        return "no" if gold.strip().lower() in ("yes", "true") else "yes"
    if kind.endswith("_mcq"):
        return next(x for x in "ABCD" if x != gold.strip()[:1])
    return HARD_WRONG.get(kind)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    for form in ("hard", "bool", "mcq", "arb"):
        assert main(
            [
                "generate",
                "--domain",
                str(FERRY / "domain.pddl"),
                "--problem",
                str(FERRY / "problem.pddl"),
                "--form",
                form,
                "-n",
                "1",
                "--seed",
                "3",
                "--out",
                str(d / f"{form}.jsonl"),
                "--quiet",
            ]
        ) in (0, 1)
    return d


def test_lm_eval_scores_every_form_as_the_replies_imply(records, tmp_path):
    recs = load_records(str(records))
    replies, expected = {}, {}
    for i, r in enumerate(recs):
        wrong = _wrong(r)
        reply, score = [(gold_response(r), 1), (wrong or PROSE, 0), (PROSE, 0)][i % 3]
        replies[record_prompt(r).strip()] = reply
        expected[str(r["id"])] = score
    assert len({task_of(r) for r in recs}) >= 25 and len(replies) == len(recs)

    def script(api, body):
        prompt = body["messages"][-1]["content"]
        return replies.get(prompt.strip(), "unknown prompt: " + request_text(api, body)[:80])

    out = tmp_path / "configs"
    assert main(["export", "lm-eval", str(out), "--data", str(records), "--prefix", "gen"]) == 0
    with ScriptedModel(script) as model:
        env = {
            **os.environ,
            "OPENAI_API_KEY": "k",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "lm_eval",
                "run",
                "--model",
                "local-chat-completions",
                "--model_args",
                f"model=scripted,base_url={model.openai_url}/chat/completions,num_concurrent=1,max_retries=1,"
                "tokenized_requests=False",
                "--apply_chat_template",
                "--include_path",
                str(out),
                "--tasks",
                "gen",
                "--log_samples",
                "--output_path",
                str(tmp_path / "lm"),
                "--seed",
                "0",
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert len(model.requests) == len(recs)
    got = {}
    for f in (tmp_path / "lm").rglob("samples_*.jsonl"):
        for line in f.read_text().splitlines():
            row = json.loads(line)
            got[str(json.loads(row["doc"]["record"])["id"])] = row["score"]
    assert got == expected

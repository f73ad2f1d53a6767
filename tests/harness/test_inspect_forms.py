"""Inspect tasks for the generated forms (acp_bool, acp_mcq, acp_arb), run by the real `inspect eval`
command offline: its openai provider against the scripted loopback server, which answers right,
wrong or in prose; every sample gets the score its reply implies, and mean IoU only where there are sets."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from acptools.cli import main
from acptools.dataset import load_records, task_of
from acptools.export import record_prompt
from acptools.scoring import gold_response
from tests.support.data import ROOT
from tests.support.scripted_api import ScriptedModel, request_text

pytest.importorskip("inspect_ai", reason="Inspect AI is in the test extra: pip install -e '.[test]'")
FERRY = ROOT / "acptools" / "examples" / "ferry"
PROSE = "Let me think about it some other time."


def _inspect() -> str:
    import shutil
    import sys

    here = Path(sys.executable).parent / "inspect"
    return str(here) if here.exists() else (shutil.which("inspect") or "inspect")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    d = tmp_path_factory.mktemp("forms")
    for form in ("bool", "mcq", "arb"):
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
                "5",
                "--out",
                str(d / f"kd-{form}.jsonl"),
                "--quiet",
            ]
        ) in (0, 1)
    return d


def _reply(record: dict, i: int) -> tuple[str, int]:
    gold = gold_response(record)
    kind = task_of(record)
    if i % 3 == 0:
        return gold, 1
    if i % 3 == 1 and kind.endswith("_mcq"):
        return next(x for x in "ABCD" if x != gold.strip()[:1]), 0
    if i % 3 == 1 and (kind.endswith("_bool") or record.get("spec", {}).get("answer_type") == "bool"):
        return ("no" if gold.strip().lower() in ("yes", "true") else "yes"), 0
    return PROSE, 0


FORMS = ("bool", "mcq", "arb")


@pytest.fixture(scope="module")
def logs(records, tmp_path_factory):
    """One `inspect eval` of acp_bool, acp_mcq and acp_arb over the folder of records: form -> (its log,
    the score each sample's reply implies, the records)."""
    replies, expected = {}, {}
    for i, r in enumerate(load_records(str(records))):
        reply, score = _reply(r, i)
        replies[record_prompt(r).strip()] = reply
        expected[f"{task_of(r)}-{r['id']}"] = score

    def script(api, body):
        text = request_text(api, body)
        return next((r for p, r in replies.items() if p in text), "no such question")

    log_dir = tmp_path_factory.mktemp("logs")
    with ScriptedModel(script) as model:
        env = {**os.environ, "OPENAI_API_KEY": "k", "INSPECT_LOG_DIR": str(log_dir), "INSPECT_LOG_FORMAT": "json"}
        proc = subprocess.run(
            [
                _inspect(),
                "eval",
                *(f"acptools/acp_{f}" for f in FORMS),
                "-T",
                f"source={records}",
                "--model",
                "openai/scripted",
                "--model-base-url",
                model.openai_url,
                "-M",
                "responses_api=false",
                "--display",
                "plain",
                "--max-connections",
                "4",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            cwd=records,
        )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = {}
    for f in sorted(log_dir.glob("*.json")):
        log = json.loads(f.read_text())
        form = log["eval"]["task"].rsplit("_", 1)[-1]
        out[form] = (
            log,
            {k: v for k, v in expected.items() if k in {s["id"] for s in log["samples"]}},
            [s["metadata"]["record"] for s in log["samples"]],
        )
    assert sorted(out) == sorted(FORMS)
    assert sum(len(e) for _, e, _ in out.values()) == len(expected)
    return out


@pytest.mark.parametrize("form", FORMS)
def test_inspect_asks_generated_forms_offline_with_the_expected_scores(logs, form):
    log, expected, recs = logs[form]
    assert log["status"] == "success" and expected
    got = {s["id"]: s["scores"]["acptools_scorer"]["value"] for s in log["samples"]}
    assert got == expected
    metrics = log["results"]["scores"][0]["metrics"]
    assert metrics["accuracy"]["value"] == pytest.approx(sum(expected.values()) / len(expected))
    has_sets = any((r.get("spec") or {}).get("answer_type") in ("set", "effects") for r in recs)
    assert ("mean_iou" in metrics) == has_sets


def test_a_source_of_another_form_names_the_task_to_use(records):
    from acptools.errors import AcpError
    from acptools.inspect_eval import acp_app_gen, acp_bool

    with pytest.raises(AcpError, match="acptools/acp_mcq"):
        acp_app_gen(source=str(records / "kd-mcq.jsonl"))
    with pytest.raises(AcpError, match="acptools/acp_mcq"):
        acp_bool(source=str(records / "kd-mcq.jsonl"))


def test_mean_iou_is_a_metric_of_set_tasks_only():
    from acptools.inspect_eval import acp_app_gen, acp_val_gen

    def names(task):
        return [m.__registry_info__.name.rsplit("/", 1)[-1] for m in task.metrics]

    assert names(acp_app_gen(split="dev")) == ["accuracy", "stderr", "mean_iou"]
    assert names(acp_val_gen(split="dev")) == ["accuracy", "stderr"]  # no 'mean_iou nan' beside val's accuracy

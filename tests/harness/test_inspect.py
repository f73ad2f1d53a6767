"""Inspect AI: `inspect eval` of the acptools tasks, offline, with Inspect's mockllm model scripted to
answer right, wrong or unparsably (and to call the MCP tools, and to play episodes); the scores in the
logs are checked against the records' stored answers and the library's own proofs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time
from importlib.metadata import entry_points

import anyio
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model

from acptools import AcpError, BudgetExceeded
from acptools.dataset import acpbench_hard
from acptools.inspect_eval import acp_agentic, acp_app_gen, acp_nexta_gen, acp_policy, acpbench_dataset
from acptools.inspect_eval.agentic import DEFAULT_TOOLS
from acptools.inspect_eval.offloop import off_loop
from acptools.prompts import prompt_text
from acptools.scoring import gold_response
from acptools.truth import clear_caches, task_for, truth_for
from tests.support.load import slack


def _output(content: str | None = None, tool: tuple[str, dict] | None = None) -> ModelOutput:
    """A scripted reply; usage is set so mockllm does not count tokens (which needs a download)."""
    out = ModelOutput.for_tool_call("mockllm", *tool) if tool else ModelOutput.from_content("mockllm", content)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def _record_in(messages, records) -> dict:
    """The record a conversation is about (its context is in the last user turn)."""
    last = [m for m in messages if m.role == "user"][-1].text
    return next(r for r in records if r["context"] in last)


def _run(task, model_fn, tmp_path, **kwargs):
    log = inspect_eval(
        task, model=get_model("mockllm/model", custom_outputs=model_fn), log_dir=str(tmp_path), display="none", **kwargs
    )[0]
    assert log.status == "success", log.error
    return log


def _scores(log, name="acptools_scorer"):
    return {s.id: s.scores[name] for s in log.samples}


def test_nexta_right_wrong_unparsable(tmp_path):
    records = acpbench_hard("test", "nexta")[:8]
    variant = {r["id"]: k % 4 for k, r in enumerate(records)}

    def model(messages, tools, tool_choice, config):
        rec = _record_in(messages, records)
        return _output(
            [rec["answer"]["yes"][0], "(noop)", "I cannot tell.", (rec["answer"]["no"] or ["(zz)"])[0]][
                variant[rec["id"]]
            ]
        )

    log = _run(acp_nexta_gen(), model, tmp_path, limit=8)
    scores = _scores(log)
    for rec in records:
        sc = scores[f"nexta-{rec['id']}"]  # string ids: exact 64-bit digits
        kind = variant[rec["id"]]
        meta = sc.metadata
        if kind == 0:
            assert sc.value == 1.0 and meta["verdict"] == "correct" and meta["regret"] == 0
            assert sc.answer == rec["answer"]["yes"][0] and "starts an optimal plan" in sc.explanation
        elif kind == 1:
            assert sc.value == 0.0 and meta["verdict"] == "hallucinated"
        elif kind == 2:
            assert sc.value == 0.0 and meta["verdict"] == "unparsed"
        else:
            assert sc.value == 0.0 and meta["verdict"] in ("suboptimal", "inapplicable", "hallucinated")
            if meta["verdict"] == "suboptimal" and isinstance(meta["regret"], int):
                assert meta["regret"] > 0 and meta["witness"]  # an optimal plan shows the better way
    metrics = log.results.scores[0].metrics
    assert log.results.scores[0].scored_samples == 8
    assert metrics["accuracy"].value == pytest.approx(2 / 8)


def test_app_mean_iou_is_over_the_stored_sets(tmp_path):
    records = [r for r in acpbench_hard("test", "app") if len(r["answer"]) >= 2][:4]
    ids = {f"app-{r['id']}" for r in records}

    def model(messages, tools, tool_choice, config):
        rec = _record_in(messages, records)
        half = rec["answer"][: len(rec["answer"]) // 2]
        return _output("[" + ", ".join(half) + "]")

    log = _run(acp_app_gen(), model, tmp_path, sample_id=sorted(ids))
    expected = [(len(r["answer"]) // 2) / len(r["answer"]) for r in records]
    got = _scores(log)
    assert all(sc.value == 0.0 and sc.metadata["verdict"] == "incorrect" for sc in got.values())
    assert sorted(sc.metadata["iou"] for sc in got.values()) == pytest.approx(sorted(expected), abs=1e-6)
    assert log.results.scores[0].metrics["mean_iou"].value == pytest.approx(sum(expected) / len(expected), abs=1e-6)


def test_unknown_is_unscored_not_zero(tmp_path):
    records = sorted(acpbench_hard("test", "nexta"), key=lambda r: -int(r["answer"]["opt"]))[:3]
    clear_caches()  # no truth computed by an earlier test: every verdict needs a proof (long ones here)

    def model(messages, tools, tool_choice, config):
        return _output(_record_in(messages, records)["answer"]["yes"][0])

    log = _run(acp_nexta_gen(budget=1e-9), model, tmp_path, sample_id=[f"nexta-{r['id']}" for r in records])
    for sc in _scores(log).values():
        assert math.isnan(sc.value) and sc.reason == "unknown" and sc.metadata["verdict"] == "unknown"
    result = log.results.scores[0]
    assert (result.scored_samples, result.unscored_samples) == (0, 3) and math.isnan(result.metrics["accuracy"].value)


def test_reference_semantics_and_prompt_variants(tmp_path):
    records = acpbench_hard("dev", "val")[:2]
    seen = []

    def model(messages, tools, tool_choice, config):
        seen.append(messages)
        rec = _record_in(messages, records)
        return _output("0" + gold_response(rec))  # lm-eval compares indices as strings: 0N is wrong there

    log = _run(
        "acptools/acp_val_gen",
        model,
        tmp_path,
        limit=2,
        task_args={"split": "dev", "pddl": True, "chat": False, "semantics": "reference"},
    )
    assert all(sc.value == 0.0 for sc in _scores(log).values())
    assert all(len(m) == 1 and m[0].text == prompt_text(_record_in(m, records), pddl=True) for m in seen)
    log = _run("acptools/acp_val_gen", model, tmp_path, limit=2, task_args={"split": "dev"})
    assert all(sc.value == 1.0 for sc in _scores(log).values())


def test_dataset_sources(tmp_path):
    recs = acpbench_hard("dev", "land")[:3]
    path = tmp_path / "land.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    ds = acpbench_dataset("landmarks_gen", source=str(path))
    assert [s.id for s in ds] == [f"land-{r['id']}" for r in recs] and ds[0].metadata["record"] == recs[0]
    assert acpbench_dataset("land", source="acpbench-hard:dev")[0].id == f"land-{recs[0]['id']}"
    with pytest.raises(AcpError, match="no app records"):
        acpbench_dataset("app", source=str(path))
    with pytest.raises(AcpError, match="unknown task"):
        acpbench_dataset("plan")


def test_grading_runs_off_the_loop_and_stops_when_cancelled():
    """The event loop keeps running while a proof works in its thread; cancelling the caller sets the
    budget's cancel event, so the proof stops at its next budget check."""
    stopped = threading.Event()

    def proof(budget):
        try:
            while True:
                budget.check()
                time.sleep(0.001)
        except BudgetExceeded:
            stopped.set()
            raise

    async def main():
        ticks = 0
        with anyio.move_on_after(0.5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(off_loop, proof, 60.0)
                while True:
                    await anyio.sleep(0.01)
                    ticks += 1
        return ticks

    assert anyio.run(main) > 10
    assert stopped.wait(slack(5))


def test_agentic_task_uses_the_mcp_server_under_an_allow_list(tmp_path):
    records = acpbench_hard("test", "nexta")[:1]
    offered = []

    def model(messages, tools, tool_choice, config):
        offered.append(sorted(t.name for t in tools))
        rec = _record_in(messages, records)
        results = [m for m in messages if isinstance(m, ChatMessageTool)]
        if not results:
            return _output(tool=("load_task", {"domain": rec["PDDL_domain"], "problem": rec["PDDL_problem"]}))
        task_id = json.loads(results[0].text)["task_id"]
        if len(results) == 1:
            return _output(tool=("list_applicable", {"task_id": task_id}))
        if len(results) == 2:
            return _output(tool=("optimal_next_action", {"task_id": task_id}))  # not on the allow-list
        return _output(rec["answer"]["yes"][0])

    log = _run(acp_agentic(task="nexta"), model, tmp_path, limit=1)
    assert offered and all(o == sorted(DEFAULT_TOOLS) for o in offered)
    sample = log.samples[0]
    tool_msgs = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
    applicable = json.loads(tool_msgs[1].text)["actions"]
    task = task_for(records[0]["PDDL_domain"], records[0]["PDDL_problem"])
    assert applicable == truth_for(task, task.init).applicable()
    assert tool_msgs[0].error is None and tool_msgs[1].error is None
    assert tool_msgs[2].error is not None  # the server's optimal_next_action was not offered
    assert sample.scores["acptools_scorer"].value == 1.0


def _plan(record) -> tuple[list[str], int]:
    task = task_for(record["PDDL_domain"], record["PDDL_problem"])
    h = truth_for(task, task.init).h_star(60)
    return [task.action_names[a] for a in h.plan], h.cost


def test_policy_plays_episodes(tmp_path):
    records = [r for r in acpbench_hard("test", "nexta") if 2 <= int(r["answer"]["opt"]) <= 4][:2]
    path = tmp_path / "nexta.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    plans = {r["context"]: _plan(r) for r in records}
    # the first record is played optimally after one unreadable reply; the second takes a detour first
    first, second = records
    script = {first["context"]: ["no idea"] + plans[first["context"]][0]}
    detour = next(a.lower() for a in second["answer"]["no"] if a.lower() not in plans[second["context"]][0])

    def model(messages, tools, tool_choice, config):
        ctx = next(c for c in plans if c in messages[0].text)
        n = sum(1 for m in messages if m.role == "assistant")
        if ctx in script:
            return _output(f"Next: {script[ctx][n]}")
        if n == 0:
            return _output(detour)
        # after the detour, follow an optimal plan from wherever the episode is
        state_line = [m for m in messages if m.role == "user"][-1].text
        task = task_for(second["PDDL_domain"], second["PDDL_problem"])
        atoms = state_line.split("The state is now: ")[1].split(". Next action?")[0].split(", ")
        h = truth_for(task, task.parse_state(atoms, "state")).h_star(60)
        return _output(task.action_names[h.plan[0]])

    log = _run(acp_policy(source=str(path)), model, tmp_path)
    got = {s.id: s.scores["episode_scorer"] for s in log.samples}
    one, two = got[f"policy-{first['id']}"], got[f"policy-{second['id']}"]
    assert one.value == {"solved": 1.0, "optimal_plan": 1.0, "optimal_step_rate": 1.0, "invalid_steps": 1.0}
    assert one.metadata["summary"]["plan_length"] == plans[first["context"]][1]
    assert two.value["solved"] == 1.0 and two.value["optimal_plan"] == 0.0 and two.value["invalid_steps"] == 0.0
    steps = two.metadata["steps"]
    assert steps[0]["action"] == detour and steps[0]["regret"] > 0 and all(s["optimal"] for s in steps[1:])
    assert two.value["optimal_step_rate"] == pytest.approx((len(steps) - 1) / len(steps))


def test_inspect_finds_the_tasks_by_name_through_the_entry_point(tmp_path):
    """A fresh process that never imported acptools resolves `acptools/acp_nexta_gen` as `inspect eval`
    does: through the `inspect_ai` entry point that pip installs."""
    if not any(ep.name == "acptools" for ep in entry_points(group="inspect_ai")):
        pytest.skip("acptools is installed without its inspect_ai entry point (reinstall: pip install -e .)")
    code = (
        "import sys\nfrom inspect_ai import eval\nfrom inspect_ai.model import ModelOutput, ModelUsage, get_model\n"
        "o = ModelOutput.from_content('mockllm', 'no idea')\n"
        "o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)\n"
        "log = eval('acptools/acp_nexta_gen', model=get_model('mockllm/model', custom_outputs=[o]), limit=1,"
        " log_dir=sys.argv[1], display='none')[0]\n"
        "s = log.samples[0].scores['acptools_scorer']\n"
        "print(log.eval.task_registry_name, log.eval.task, s.value, s.metadata['verdict'])\n"
    )
    # away from the checkout, whose acptools.egg-info (no PEP 610 data) would hide the installed package
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["acptools/acp_nexta_gen", "acp_nexta_gen", "0.0", "unparsed"]

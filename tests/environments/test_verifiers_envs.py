"""The verifiers environments (acptools-qa, acptools-policy, acptools-tools), each loaded by name and run
through verifiers' own eval entry points (the `vf-eval` command, and `run_eval` in-process) against a
scripted OpenAI-compatible HTTP server on loopback: right answers reward 1 and wrong ones 0; an optimal
policy, played by the independent unified-planning oracle, solves every episode with the maximal return;
the tool environment's calls reach a real acptools-server subprocess."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

vf = pytest.importorskip(
    "verifiers.v1", reason="the verifiers extra is not installed (pip install 'acptools[verifiers]')"
)

from verifiers.v1.cli.eval.runner import run_eval  # noqa: E402
from verifiers.v1.configs.cli.eval import EvalConfig  # noqa: E402

from acptools.environments.prompting import prompt  # noqa: E402
from acptools.environments.verifiers_policy import PolicyData, PolicyTaskConfig, replay  # noqa: E402
from acptools.scoring import gold_response  # noqa: E402
from tests.support.data import PDDL, records  # noqa: E402
from tests.support.oracle import Oracle  # noqa: E402
from tests.support.scripted_api import OPENAI, ScriptedModel  # noqa: E402

KEY_VAR = "ACPTOOLS_TEST_MODEL_KEY"
SMALL = (0, 4, 12)  # dev nexta records whose state spaces the oracle enumerates in seconds (ferry, blocksworld)


@pytest.fixture(autouse=True)
def model_key(monkeypatch):
    monkeypatch.setenv(KEY_VAR, "scripted-key")


def user_texts(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m.get("content"), str)]


def eval_config(tmp_path: Path, url: str, env: dict, limit: int | None = None) -> EvalConfig:
    return EvalConfig.model_validate(
        {
            "env": env,
            "model": "scripted",
            "client": {"base_url": url, "api_key_var": KEY_VAR},
            "select": {"limit": limit},
            "push": False,
            "rich": None,
            "output_dir": str(tmp_path),
            "max_concurrent": 4,
        }
    )


def scores(trace) -> dict[str, float]:
    """A trace's rewards by name (verifiers keeps each with its weight)."""
    return {name: r.score for name, r in trace.rewards.items()}


def traces_of(episodes) -> list:
    return sorted((t for e in episodes for t in e.traces), key=lambda t: t.task.data.idx)


# ------------------------------------------------------------------------------------------ acptools-qa


def answer_key(chosen: list[dict]):
    """A script answering each question right (even positions) or wrong (odd): the record's stored
    answer, or that answer with one action left out."""

    def script(api, body):
        text = user_texts(body)[0]
        k = next(i for i, r in enumerate(chosen) if prompt(r) in text)
        gold = gold_response(chosen[k])
        if k % 2 == 0:
            return gold
        actions = json.loads(json.dumps(chosen[k]["answer"]))
        return gold_response({**chosen[k], "answer": actions[1:]})

    return script


def vf_eval_command() -> list[str]:
    exe = shutil.which("vf-eval", path=str(Path(sys.executable).parent)) or shutil.which("vf-eval")
    if exe is None:
        pytest.skip("the vf-eval command of verifiers is not on PATH")
    return [exe]


@pytest.mark.timeout(900)  # a busy machine: importing verifiers alone took 48 s of wall time at load 22
def test_qa_through_the_vf_eval_command_rewards_right_answers_only(tmp_path):
    chosen = [r for r in records("test", "app") if len(r["answer"]) >= 2][:4]
    data = tmp_path / "app.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    with ScriptedModel(answer_key(chosen)) as model:
        run = subprocess.run(
            vf_eval_command()
            + [
                "acptools-qa",
                "--env.taskset.data",
                str(data),
                "--model",
                "scripted",
                "--client.base-url",
                model.openai_url,
                "--client.api-key-var",
                KEY_VAR,
                "--no-push",
                "--no-rich",
                "-o",
                str(tmp_path / "out"),
                "--run.name",
                "qa",
            ],
            capture_output=True,
            text=True,
            timeout=850,
            env={**os.environ, "ACPTOOLS_CACHE": "off"},
        )
        asked = len(model.requests)
    assert run.returncode == 0, run.stderr[-3000:]
    episodes = [json.loads(line) for line in (tmp_path / "out" / "qa" / "traces.jsonl").read_text().splitlines()]
    assert all(e["ok"] for e in episodes)
    by_idx = {t["task"]["data"]["idx"]: t for e in episodes for t in e["traces"]}
    assert asked == len(chosen) and sorted(by_idx) == list(range(len(chosen)))
    for k, t in by_idx.items():
        assert t["rewards"]["correct"]["score"] == (1.0 if k % 2 == 0 else 0.0), (k, t["rewards"])
        assert t["task"]["data"]["record"]["id"] == chosen[k]["id"]


def test_qa_over_a_generated_family_in_process(tmp_path):
    env = {"taskset": {"id": "acptools-qa", "family": "bool:reach", "domain": "ferry", "num_tasks": 4, "seed": 3}}
    config = eval_config(tmp_path, "", env)
    gen = vf.load_environment(config.env).taskset
    chosen = [t.data.record for t in gen]
    assert len(chosen) == 4 and all(r["form"] == "bool" for r in chosen)

    def script(api, body):
        text = user_texts(body)[0]
        k = next(i for i, r in enumerate(chosen) if prompt(r) in text)
        right = gold_response(chosen[k]).strip().lower()
        return right if k % 2 == 0 else {"yes": "no", "no": "yes"}[right]

    with ScriptedModel(script) as model:
        episodes = asyncio.run(run_eval(eval_config(tmp_path, model.openai_url, env)))
    rewards = [scores(t)["correct"] for t in traces_of(episodes)]
    assert rewards == [1.0, 0.0, 1.0, 0.0]


# -------------------------------------------------------------------------------------- acptools-policy


@functools.cache
def solved(k: int) -> tuple[Oracle, dict]:
    r = records("dev", "nexta")[k]
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    return oracle, oracle.distances(oracle.init_atoms())


def oracle_policy(chosen: list[dict]):
    """Each reply: the first action (by name) that lowers the oracle's h*, from the state the
    conversation's earlier actions lead to (replayed by the oracle, not by acptools). One request at a
    time: the oracle's simulator is not thread-safe."""
    lock = threading.Lock()

    def script(api, body):
        first = user_texts(body)[0]
        k = next(i for i, r in enumerate(chosen) if r["PDDL_problem"] in first)
        with lock:
            oracle, dist = solved(SMALL[k])
            state = oracle.init_atoms()
            for m in body["messages"]:
                if m["role"] == "assistant":
                    state = oracle.successor(state, m["content"].strip())
            return next(a for a in oracle.applicable(state) if dist.get(oracle.successor(state, a)) == dist[state] - 1)

    return script


def test_an_optimal_policy_solves_every_episode_with_the_maximal_return(tmp_path):
    chosen = [records("dev", "nexta")[k] for k in SMALL]
    data = tmp_path / "starts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    env = {"taskset": {"id": "acptools-policy", "data": str(data), "task": {"max_steps": 20}}}
    with ScriptedModel(oracle_policy(chosen)) as model:
        episodes = asyncio.run(run_eval(eval_config(tmp_path, model.openai_url, env)))
    traces = traces_of(episodes)
    assert len(traces) == len(chosen)
    for k, t in zip(SMALL, traces):
        oracle, dist = solved(k)
        h = dist[oracle.init_atoms()]
        assert h == int(records("dev", "nexta")[k]["answer"]["opt"])
        assert scores(t) == {"solved": 1.0, "regret": 0.0, "invalid": 0.0}, t.rewards
        assert t.reward == 1.0 and t.metrics["steps"] == h and len(t.assistant_messages) == h


def test_bad_steps_cost_and_the_step_limit_ends_the_episode(tmp_path):
    r = records("dev", "nexta")[0]
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    replies = iter(["(teleport c0 l1)", "I would rather wait.", sorted(oracle.applicable(oracle.init_atoms()))[0]])
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(r) + "\n")
    env = {"taskset": {"id": "acptools-policy", "data": str(data), "task": {"max_steps": 3}}}
    with ScriptedModel(lambda api, body: next(replies)) as model:
        episodes = asyncio.run(run_eval(eval_config(tmp_path, model.openai_url, env)))
        asked = len(model.requests)
    (t,) = traces_of(episodes)
    assert asked == 3 and t.metrics["steps"] == 3  # cut at max_steps
    assert scores(t)["solved"] == 0.0 and scores(t)["invalid"] == pytest.approx(2 / 3)
    verdicts = [m.content for m in t.messages if m.role == "user"][1:]
    assert "hallucinated" in verdicts[0] and "unparsed" in verdicts[1]
    assert t.reward == pytest.approx(-0.5 * 2 / 3 - 0.5 * scores(t)["regret"])


def test_a_step_into_a_dead_end_ends_the_episode_unsolved(tmp_path):
    """The test 'doors' task (a slammed door stays shut for good): the model is asked no more after the
    step that makes the goal unreachable; the episode scores unsolved, and its step, replayed from the
    transcript, is graded applied and not optimal, with no regret."""
    dom, prob = (PDDL / "doors" / "domain.pddl").read_text(), (PDDL / "doors" / "problem.pddl").read_text()
    path = Oracle(dom, prob).path_to_a_dead_end()
    replies = iter(path + ["(walk r1 r2)"] * 5)
    env = {"taskset": {"id": "acptools-policy", "source": str(PDDL / "doors"), "task": {"max_steps": 6}}}
    with ScriptedModel(lambda api, body: next(replies)) as model:
        episodes = asyncio.run(run_eval(eval_config(tmp_path, model.openai_url, env)))
        asked = len(model.requests)
    (t,) = traces_of(episodes)
    assert asked == len(path) and t.metrics["steps"] == len(path)
    assert scores(t) == {"solved": 0.0, "regret": 0.0, "invalid": 0.0} and t.reward == 0.0
    episode = replay(
        PolicyData(domain=dom, problem=prob),
        [m.content for m in t.assistant_messages] + ["(walk r1 r2)"],
        PolicyTaskConfig(max_steps=6),
    )
    last = episode.history[-1]
    assert len(episode.history) == len(path) and episode.dead_end
    assert (last.verdict, last.optimal, last.regret, last.h_star_after) == ("applied", False, None, None)


# --------------------------------------------------------------------------------------- acptools-tools


def tool_user(chosen: list[dict]):
    """Load the task on the server, ask server_info and list_applicable, then answer with the list."""

    def script(api, body):
        assert api == OPENAI
        first = user_texts(body)[0]
        r = next(r for r in chosen if r["PDDL_problem"] in first)
        results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        if not results:
            return [
                {
                    "type": "tool_use",
                    "name": "load_task",
                    "input": {"domain": r["PDDL_domain"], "problem": r["PDDL_problem"]},
                }
            ]
        if len(results) == 1:
            task_id = json.loads(results[0])["task_id"]
            return [
                {"type": "tool_use", "name": "server_info", "input": {}},
                {"type": "tool_use", "name": "list_applicable", "input": {"task_id": task_id}},
            ]
        return " ".join(json.loads(results[-1])["actions"])

    return script


def test_tool_calls_reach_a_real_acptools_server_under_the_policy_profile(tmp_path):
    chosen = records("test", "app")[:2]
    data = tmp_path / "app.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    env = {"taskset": {"id": "acptools-tools", "data": str(data)}}
    with ScriptedModel(tool_user(chosen)) as model:
        episodes = asyncio.run(run_eval(eval_config(tmp_path, model.openai_url, env)))
        offered = {t["function"]["name"] for _, body in model.requests for t in body.get("tools", [])}
    assert "list_applicable" in offered and "load_task" in offered
    assert not offered & {"optimal_next_action", "plan", "is_reachable", "score_answer"}  # hidden by the profile
    for t in traces_of(episodes):
        tool_results = [m.content for m in t.messages if m.role == "tool"]
        info = json.loads(tool_results[1])
        assert info["profile"] == "policy" and "optimal_next_action" in info["hidden_tools"]
        assert json.loads(tool_results[0])["task_id"]
        assert scores(t)["correct"] == 1.0, t.rewards

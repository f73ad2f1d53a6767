"""acptools rollout end to end: real policies, real model-API servers and real subprocesses.

Every expected verdict, regret and plan comes from outside acptools: the stored h* of the ACPBench
Hard records, pyperplan (plans replayed; h* along random walks by its A* with LM-cut) and
unified-planning's brute-force oracle (the h* of every state of the scripted ferry episode).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from acptools import AcpError, examples, rollout
from acptools.dataset import domain_name
from tests.support.data import ROOT, records
from tests.support.oracle import Oracle
from tests.support.scripted_api import FERRY_SCRIPT, KEYS, ScriptedModel, Status, in_order, request_text, tokens
from tests.support.simulator import goal_reached, h_star, trajectory


def cli(*args, env=None, timeout=600) -> subprocess.CompletedProcess:
    """`acptools rollout ...` in a fresh process (fresh caches), with no API key unless given."""
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ.update(PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", "rollout", "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=timeout,
        cwd=ROOT,
    )


def rows_of(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def steps_of(rows, episode=None) -> list[dict]:
    return [r for r in rows if r["kind"] == "step" and episode in (None, r["episode"])]


# ---- the ceiling and the floor ---------------------------------------------------------------------


@pytest.mark.parametrize("split", ["dev", pytest.param("test", marks=pytest.mark.slow)])
def test_optimal_solves_every_nexta_state_in_h_star_steps(split):
    recs = records(split, "nexta")
    result = rollout.run([f"acpbench-hard:{split}:nexta"], "optimal", rollout.RolloutConfig(jobs=2))
    by_id = {f"nexta/{r['id']}": r for r in recs}
    assert sorted(e["episode"] for e in result.episodes) == sorted(by_id)
    for e in result.episodes:
        r = by_id[e["episode"]]
        assert e["ended"] == "goal" and e["solved"] and e["optimal_step_rate"] == 1.0 and e["unknown_steps"] == 0
        assert e["plan_length"] == e["h_star_start"] == int(r["answer"]["opt"])  # the record's own h*
        states = trajectory(r["PDDL_domain"], r["PDDL_problem"], e["plan"])  # pyperplan replays the plan
        assert states is not None and goal_reached(r["PDDL_domain"], r["PDDL_problem"], states[-1])
        assert [s["action"] for s in steps_of(result.rows, e["episode"])] == e["plan"]
    overall = rollout.summarize(result.rows)["overall"]
    assert overall["episodes"] == len(recs) and overall["solved_rate"] == 1.0
    assert overall["optimal_step_rate"] == 1.0 and overall["plan_length_ratio"] == 1.0
    assert overall["mean_regret"] == 0 and overall["unknown_steps"] == 0 and overall["invalid_rate"] == 0


def _check_definitions(st: dict) -> None:
    """Every figure within its definition: rates in [0, 1], counts that add up."""
    for key in ("solved_rate", "optimal_step_rate", "invalid_rate"):
        assert st[key] is None or 0 <= st[key] <= 1, key
    assert st["steps"] == st["applied_steps"] + sum(st["invalid"].values())
    assert st["optimal_steps"] + st["unknown_steps"] <= st["applied_steps"]
    assert sum(st["ended"].values()) == st["episodes"] + st["ended"]["error"]
    assert st["solved"] == st["ended"]["goal"]
    assert st["mean_regret"] is None or st["mean_regret"] >= 0
    assert st["plan_length_ratio"] is None or st["plan_length_ratio"] >= 1


@pytest.mark.slow  # about a minute: random episodes on every shared state, h* of each step from pyperplan
def test_random_figures_are_within_their_definitions_and_reproducible():
    recs = records("dev", "nexta")[::4]
    config = rollout.RolloutConfig(max_steps=12, jobs=2, seed=7)
    result = rollout.run(
        [rollout.RolloutTask(f"r{r['id']}", r["PDDL_domain"], r["PDDL_problem"], "test") for r in recs],
        "random",
        config,
    )
    summary = rollout.summarize(result.rows)
    for st in [summary["overall"], *summary["by_domain"].values()]:
        _check_definitions(st)
    assert summary["overall"]["episodes"] == len(recs) and summary["overall"]["invalid_rate"] == 0
    assert set(summary["by_domain"]) == {domain_name(r) for r in recs}
    checked = 0
    for r in recs:
        steps = steps_of(result.rows, f"r{r['id']}")
        assert 1 <= len(steps) <= 12
        plan = [s["action"] for s in steps]
        states = trajectory(r["PDDL_domain"], r["PDDL_problem"], plan)
        assert states is not None  # every step was applicable (pyperplan)
        for s, before, after in zip(steps, states, states[1:]):
            # h* of both states from pyperplan's A* with LM-cut, not from acptools
            hs_before, hs_after = (h_star(r["PDDL_domain"], r["PDDL_problem"], x) for x in (before, after))
            assert s["h_star_before"] in (None, hs_before) and s["h_star_after"] in (None, hs_after), s
            if s["regret"] is not None:
                assert s["regret"] == hs_after + 1 - hs_before and s["optimal"] == (s["regret"] == 0), s
        checked += sum(s["regret"] is not None for s in steps)
    assert checked >= len(recs)  # most steps have a known regret
    again = rollout.run(
        [rollout.RolloutTask(f"r{r['id']}", r["PDDL_domain"], r["PDDL_problem"], "test") for r in recs],
        "random",
        rollout.RolloutConfig(max_steps=12, jobs=1, seed=7),
    )
    assert sorted((s["episode"], s["step"], s["action"]) for s in again.steps) == sorted(
        (s["episode"], s["step"], s["action"]) for s in result.steps
    )


# ---- scripted models: every reply gets the verdict the script implies ------------------------------

UNREADABLE = {"(sail l1 l9)": "hallucinated", "I am not sure what to do next.": "unparsed"}


def expected_ferry_steps() -> list[tuple]:
    """(verdict, optimal, regret) of each scripted reply, from unified-planning's brute-force oracle."""
    oracle = Oracle(*examples.texts("ferry"))
    state = oracle.init_atoms()
    dist = oracle.distances(state)
    out = []
    for reply in FERRY_SCRIPT:
        if reply in UNREADABLE:
            out.append((UNREADABLE[reply], None, None))
            continue
        after = oracle.successor(state, re.search(r"\([^()]*\)", reply).group())
        if after is None:
            out.append(("inapplicable", None, None))
            continue
        regret = dist[after] + 1 - dist[state]
        out.append(("applied", regret == 0, regret))
        state = after
    assert oracle.is_goal(state)
    return out


def _check_ferry_run(tmp_path, proc, lines=FERRY_SCRIPT) -> dict:
    assert proc.returncode == 0, proc.stderr
    rows = rows_of(tmp_path / "t.jsonl")
    steps = steps_of(rows)
    assert [(s["verdict"], s["optimal"], s["regret"]) for s in steps] == expected_ferry_steps()
    assert [s["reply"] for s in steps] == lines
    assert [s["step"] for s in steps] == list(range(1, len(FERRY_SCRIPT) + 1))
    assert steps[1]["action"] == "(board c1 l1)" and steps[2]["action"] is None
    (end,) = [r for r in rows if r["kind"] == "episode"]
    assert end["ended"] == "goal" and end["solved"] and end["plan_length"] == 5 and end["h_star_start"] == 4
    report = json.loads((tmp_path / "r.json").read_text())
    overall = report["overall"]
    assert overall["invalid"] == {"inapplicable": 1, "unparsed": 1, "hallucinated": 1}
    assert overall["optimal_step_rate"] == 0.8 and overall["mean_regret"] == 0.2
    assert overall["plan_length_ratio"] == 1.25 and overall["solved_rate"] == 1.0
    assert report["by_domain"]["ferry"] == overall
    return report


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_model_api_policy_gets_the_verdicts_its_script_implies(tmp_path, api):
    with ScriptedModel(in_order(FERRY_SCRIPT)) as model:
        url = model.openai_url if api == "openai" else model.url
        proc = cli(
            "--tasks",
            "ferry",
            "--policy",
            f"{api}:scripted-1",
            "--base-url",
            url,
            "--out",
            tmp_path / "t.jsonl",
            "--report",
            tmp_path / "r.json",
            "--max-tokens",
            "64",
        )
        report = _check_ferry_run(tmp_path, proc)
    assert len(model.requests) == len(FERRY_SCRIPT) and set(model.keys) == {"no-key"}
    for n, (kind, body) in enumerate(model.requests):
        assert kind == api and body["model"] == "scripted-1" and body["max_tokens"] == 64
        text = request_text(api, body)
        assert "Current state" in text and "(at-ferry l" in text and "Actions applicable" not in text
        assert f"This is step {n + 1} of at most 18" in text  # 2 * h* + 10
    last = request_text(api, model.requests[-1][1])
    assert "3. '(sail l1 l9)': rejected: unknown object 'l9'" in last
    assert "4. (board c0 l0): rejected: unsatisfied preconditions: (at-ferry l0)" in last
    assert "5. 'I am not sure what to do next.': rejected: no action could be read" in last
    want_in = sum(tokens(request_text(api, body)) for _, body in model.requests) / len(FERRY_SCRIPT)
    assert report["overall"]["tokens_per_step"]["input"] == pytest.approx(want_in, abs=1e-6)
    assert report["settings"]["policy"] == f"{api}:scripted-1"


def test_command_policy_is_a_real_subprocess(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import json, sys\n"
        f"replies = {[r.replace(chr(10), ' ') for r in FERRY_SCRIPT]!r}\n"
        "for line in sys.stdin:\n"
        "    obs = json.loads(line)\n"
        "    assert obs['episode'] == 'example/ferry' and len(obs['history']) == obs['step'] - 1\n"
        "    assert obs['applicable'] and '(at-ferry' in ' '.join(obs['state']) and obs['prompt']\n"
        "    print(replies[obs['step'] - 1], flush=True)\n"
    )
    proc = cli(
        "--tasks",
        "ferry",
        "--policy",
        f"cmd:{sys.executable} {agent}",
        "--show-applicable",
        "--out",
        tmp_path / "t.jsonl",
        "--report",
        tmp_path / "r.json",
    )
    _check_ferry_run(tmp_path, proc, [r.replace("\n", " ") for r in FERRY_SCRIPT])


def test_python_policy_and_custom_prompt_templates(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "history_step.txt").write_text("#$step $verdict\n")
    agent = tmp_path / "my_agent.py"
    agent.write_text(
        f"REPLIES = {FERRY_SCRIPT!r}\n"
        "def act(obs):\n"
        "    if obs.step > 1:\n"
        "        assert f'#{obs.step - 1} ' in obs.prompt, obs.prompt\n"
        "    return {'reply': REPLIES[obs.step - 1], 'input_tokens': 10, 'output_tokens': obs.step}\n"
    )
    proc = cli(
        "--tasks",
        "ferry",
        "--policy",
        f"python:{agent}:act",
        "--prompts",
        tmp_path / "prompts",
        "--out",
        tmp_path / "t.jsonl",
        "--report",
        tmp_path / "r.json",
    )
    report = _check_ferry_run(tmp_path, proc)
    assert report["overall"]["tokens_per_step"] == {"input": 10, "output": 4.5}


# ---- ending, failing, resuming ----------------------------------------------------------------------


def test_invalid_replies_in_a_row_end_the_episode(tmp_path):
    with ScriptedModel(in_order(["(sail l0 l1)", "(fly l0 l1)", "(fly l0 l1)", "nothing"])) as model:
        proc = cli(
            "--tasks",
            "ferry",
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
            "--max-invalid",
            "3",
            "--out",
            tmp_path / "t.jsonl",
        )
    assert proc.returncode == 0, proc.stderr
    rows = rows_of(tmp_path / "t.jsonl")
    assert [s["verdict"] for s in steps_of(rows)] == ["applied", "hallucinated", "hallucinated", "unparsed"]
    assert rows[-1]["ended"] == "max-invalid" and not rows[-1]["solved"]
    assert "unknown action 'fly'" in steps_of(rows)[1]["reason"]


CLIFF = """(define (domain cliff) (:requirements :strips) (:predicates (top) (bottom) (fallen) (home))
  (:action walk-down :parameters () :precondition (top) :effect (and (bottom) (not (top))))
  (:action jump :parameters () :precondition (top) :effect (and (fallen) (not (top))))
  (:action walk-home :parameters () :precondition (bottom) :effect (and (home) (not (bottom)))))"""
CLIFF_PROBLEM = "(define (problem {}) (:domain cliff) (:init (top)) (:goal (home)))"


def _cliffs(folder, n: int) -> None:
    """n copies of a task (each its own episode) whose `jump` leads where no action applies."""
    folder.mkdir()
    (folder / "domain.pddl").write_text(CLIFF)
    for k in range(n):
        (folder / f"p{k}.pddl").write_text(CLIFF_PROBLEM.format(f"p{k}"))


def test_a_dead_end_ends_the_episode_graded_not_as_a_policy_error(tmp_path):
    """A policy that jumps off the cliff: the episode ends as 'dead-end' after that step (graded: applied,
    not optimal, no h* after), exit code 0; the report, the table and the HTML page show it, and
    --resume has nothing to run again."""
    _cliffs(tmp_path / "cliff", 1)
    agent = tmp_path / "jumper.py"
    agent.write_text("def act(obs):\n    return '(jump)'\n")
    args = ("--tasks", tmp_path / "cliff", "--policy", f"python:{agent}:act", "--out", tmp_path / "t.jsonl")
    proc = cli(*args, "--report", tmp_path / "r.json", "--html", tmp_path / "r.html")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = rows_of(tmp_path / "t.jsonl")
    (step,) = steps_of(rows)
    assert (step["verdict"], step["optimal"], step["regret"], step["h_star_after"]) == ("applied", False, None, None)
    (end,) = [r for r in rows if r["kind"] == "episode"]
    assert end["ended"] == "dead-end" and not end["solved"] and end["error"] is None and end["h_star_start"] == 2
    overall = json.loads((tmp_path / "r.json").read_text())["overall"]
    assert overall["ended"]["dead-end"] == 1 and overall["dead_end_episodes"] == 1 and overall["solved"] == 0
    assert "dead ends: 1" in proc.stdout and "failed episodes: 0" in proc.stdout
    page = (tmp_path / "r.html").read_text()
    assert "ended: dead-end" in page and "<th>dead end</th>" in page
    again = cli(*args, "--resume")
    assert again.returncode == 0 and rows_of(tmp_path / "t.jsonl") == rows, again.stderr


def test_a_random_walk_into_a_dead_end_ends_there(tmp_path):
    """The issue's run: the random policy reaches a state where no action applies (here with h* left
    unknown by a tiny grading budget, so only the empty list of actions tells): those episodes end as
    'dead-end', the others at the goal, and the run exits 0 with no policy error."""
    _cliffs(tmp_path / "cliff", 6)
    proc = cli("--tasks", tmp_path / "cliff", "--policy", "random", "--budget", "1e-9", "--out", tmp_path / "t.jsonl")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ends = [r for r in rows_of(tmp_path / "t.jsonl") if r["kind"] == "episode"]
    assert len(ends) == 6 and {e["ended"] for e in ends} == {"goal", "dead-end"}, ends
    for e in ends:
        assert e["plan"] == (["(walk-down)", "(walk-home)"] if e["ended"] == "goal" else ["(jump)"]), e
    assert "policy-error" not in proc.stdout and "no action is applicable" not in proc.stdout


def test_api_errors_end_the_episode_or_the_run(tmp_path):
    with ScriptedModel(in_order([Status(400, "context too long")])) as model:
        proc = cli(
            "--tasks",
            "ferry",
            "grid",
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
            "--out",
            tmp_path / "t.jsonl",
        )
    assert proc.returncode == 1
    assert "policy-error: example/ferry (ferry): BadRequestError (HTTP 400): context too long" in proc.stdout
    assert [r["ended"] for r in rows_of(tmp_path / "t.jsonl") if r["kind"] == "episode"] == ["policy-error"] * 2
    with ScriptedModel(in_order([Status(401, "invalid x-api-key")])) as model:
        proc = cli(
            "--tasks", "ferry", "--policy", "anthropic:m", "--base-url", model.url, env={"ANTHROPIC_API_KEY": "k"}
        )
    assert proc.returncode == 2 and "AuthenticationError (HTTP 401): invalid x-api-key" in proc.stderr
    assert "Traceback" not in proc.stderr and model.keys == ["k"]


def _untimed(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in rows]


def test_resume_runs_only_what_did_not_finish(tmp_path):
    out = tmp_path / "t.jsonl"
    args = ("--tasks", "ferry", "grid", "gripper-strips", "--policy", "random", "--seed", "3", "--max-steps", "6")
    assert cli(*args, "--out", out).returncode == 0
    full = rows_of(out)
    # cut the file inside the last episode, as a killed run leaves it (half a line at the end)
    last_start = next(i for i, r in enumerate(full) if r["kind"] == "step" and r["episode"] == "example/gripper-strips")
    out.write_text("".join(json.dumps(r) + "\n" for r in full[: last_start + 2]) + '{"kind": "st')
    proc = cli(*args, "--out", out, "--resume", "--report", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr
    assert _untimed(rows_of(out)) == _untimed(full)
    assert json.loads((tmp_path / "r.json").read_text())["overall"]["episodes"] == 3
    other = cli("--tasks", "ferry", "--policy", "optimal", "--out", out, "--resume")
    assert other.returncode == 2 and 'made with --policy "random", now "optimal"' in other.stderr


def test_unknown_optimality_is_reported_apart(tmp_path):
    proc = cli(
        "--tasks",
        "grid",
        "--policy",
        "random",
        "--budget",
        "1e-9",
        "--max-steps",
        "3",
        "--out",
        tmp_path / "t.jsonl",
        "--report",
        tmp_path / "r.json",
    )
    assert proc.returncode == 0, proc.stderr
    overall = json.loads((tmp_path / "r.json").read_text())["overall"]
    assert overall["applied_steps"] == overall["unknown_steps"] == 3 and overall["unknown_start"] == 1
    assert overall["optimal_step_rate"] is None and overall["mean_regret"] is None
    assert all(s["optimal"] is None and s["known"] is False for s in steps_of(rows_of(tmp_path / "t.jsonl")))


# ---- inputs ------------------------------------------------------------------------------------------


def test_task_sources(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    domain, problem = examples.texts("ferry")
    (folder / "domain.pddl").write_text(domain)
    (folder / "p1.pddl").write_text(problem)
    (folder / "p2.pddl").write_text(problem.replace("(at c1 l1)", "(at c1 l0)"))
    recs = records("dev", "val")[:3]
    (tmp_path / "recs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    tasks = rollout.load_tasks(
        folder, folder / "p1.pddl", "example:ferry", tmp_path / "recs.jsonl", "acpbench-hard:dev:val"
    )
    # p1 and the bundled ferry example are one state; the record file and the named source overlap; records
    # asking about one state are one episode
    states = {}
    for r in records("dev", "val"):
        states.setdefault((r["PDDL_domain"], r["PDDL_problem"]), f"val/{r['id']}")
    assert [t.id for t in tasks] == ["mine/p1", "mine/p2", *states.values()]
    assert tasks[0].load().init != tasks[1].load().init
    assert len(rollout.load_tasks(tmp_path)) == 2 + 3  # a folder of task folders and record files


def test_a_task_that_does_not_load_ends_as_an_error_and_the_rest_run(tmp_path):
    domain, problem = examples.texts("ferry")
    (tmp_path / "domain.pddl").write_text(domain)
    (tmp_path / "good.pddl").write_text(problem)
    (tmp_path / "bad.pddl").write_text(problem.replace("(:goal (and", "(:goal (and (fly)"))
    proc = cli("--tasks", tmp_path, "--policy", "optimal", "--report", tmp_path / "r.json")
    assert proc.returncode == 1
    name = tmp_path.name
    assert re.search(
        rf"error: {name}/bad \(ferry\): PddlError: problem line 6, column \d+: "
        "undeclared predicate 'fly'",
        proc.stdout,
    ), proc.stdout
    overall = json.loads((tmp_path / "r.json").read_text())["overall"]
    assert overall["episodes"] == 1 and overall["solved_rate"] == 1.0 and overall["ended"]["error"] == 1


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--tasks", "nowhere/", "--policy", "random"), "no such file or folder"),
        (("--tasks", "acpbench-hard:dev:nope", "--policy", "random"), "'nope' is not a split or task"),
        (("--tasks", "ferry", "--policy", "greedy"), "unknown policy 'greedy'"),
        (("--tasks", "ferry", "--policy", "openai:m"), "OPENAI_API_KEY is not set"),
        (("--tasks", "ferry", "--policy", "random", "--base-url", "http://x"), "--base-url is for openai:MODEL"),
        (("--tasks", "ferry", "--policy", "python:nomodule_here:act"), "cannot import 'nomodule_here'"),
        (("--tasks", "ferry", "--policy", "random", "--resume"), "--resume needs --out"),
        (("--tasks", "ferry", "--policy", "random", "--max-steps", "0"), "--max-steps must be at least 1"),
        (("--tasks", "ferry", "--policy", "cmd:/no/such/agent"), "cannot start '/no/such/agent'"),
    ],
)
def test_bad_input_is_one_clear_line(args, needle):
    proc = cli(*args)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_bad_prompt_template_names_the_file(tmp_path):
    (tmp_path / "observation.txt").write_text("State: $state, weather: $weather")
    proc = cli("--tasks", "ferry", "--policy", "random", "--prompts", tmp_path)
    assert proc.returncode == 2 and "observation.txt" in proc.stderr and "$weather" in proc.stderr


def test_a_missing_sdk_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)  # what `import anthropic` meets when it is not installed
    with pytest.raises(AcpError, match=r"pip install 'acptools\[anthropic\]'"):
        rollout.make_policy("anthropic:claude", base_url="http://127.0.0.1:9")


def test_plots(tmp_path):
    """Three PNG charts, read back with matplotlib's image reader: real images, not blank."""
    import matplotlib.image

    proc = cli("--tasks", "ferry", "grid", "--policy", "random", "--max-steps", "4", "--plots", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    for name in ("rates.png", "verdicts.png", "regret.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = matplotlib.image.imread(tmp_path / "plots" / name)
        assert pixels.shape[0] > 100 and pixels[..., :3].std() > 0.05, name


def test_plots_without_matplotlib_say_how_to_get_it(tmp_path, monkeypatch, capsys):
    from acptools.cli import main

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what `import matplotlib` meets when it is absent
    code = main(
        [
            "rollout",
            "--tasks",
            "ferry",
            "--policy",
            "random",
            "--max-steps",
            "2",
            "--quiet",
            "--plots",
            str(tmp_path / "plots"),
        ]
    )
    assert code == 2 and "matplotlib is not installed" in capsys.readouterr().err

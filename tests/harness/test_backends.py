"""The Ray backend: the same items (score), bytes (generate) and traces (rollout) as the local
backend, and proofs shared with the driver's store; an unknown backend is a clear error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acptools import AcpError, Budget, examples, rollout
from acptools.cli import main
from acptools.dataset import acpbench_hard
from acptools.engine import race
from acptools.generate import Options, dumps, generate
from acptools.proofs import store
from acptools.rollout.policies import FatalPolicyError, RandomPolicy
from acptools.rollout.traces import read_rows
from tests.support.data import ROOT
from tests.support.scripted_api import ScriptedModel, Status, in_order

pytest.importorskip("ray", reason="the [ray] extra (part of the test extra) is not installed")

STABLE = ("id", "task", "score", "verdict", "metrics", "parsed", "model")  # the witness may be another optimal plan


def _score(tmp_path, name, *flags):
    out = tmp_path / f"{name}.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "score",
            "--data",
            str(tmp_path / "data.jsonl"),
            "--gold",
            "--quiet",
            "--out",
            str(out),
            "--jobs",
            "2",
            *flags,
        ],
        check=False,
        stdout=subprocess.DEVNULL,
        env=env,
        timeout=600,
    )
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_ray_gives_the_local_items_and_returns_its_proofs(tmp_path):
    records = [r for t in ("nexta", "land", "areach", "val") for r in acpbench_hard("dev", t)[:4]]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    local = _score(tmp_path, "local", "--no-cache")
    ray_cache = tmp_path / "ray.sqlite"
    remote = _score(tmp_path, "ray", "--backend", "ray", "--cache", str(ray_cache))
    assert len(local) == len(remote) == len(records)
    assert [{k: r[k] for k in STABLE} for r in local] == [{k: r[k] for k in STABLE} for r in remote]
    facts = store.ProofStore(ray_cache).stats()["facts"]
    assert any("h*" in k for k in facts) and any("landmark" in k or "list" in k for k in facts)


# ---- generate and rollout: one local Ray instance shared by the tests below ---------------------

# what may differ between two runs on any backend: timings, and which racing planner proved h* first
TIMING = ("seconds", "grading_seconds", "harness_seconds", "policy_seconds", "start_seconds", "h_star_how")


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray instance (2 CPUs) for this module: the library calls below use it as it is, and
    subprocesses reach it with --address."""
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}},
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _ferry(cars: int, locations: int) -> str:
    """A ferry problem: car i starts at location i mod L and must reach location i+1 mod L."""
    cs, ls = [f"c{i}" for i in range(cars)], [f"l{j}" for j in range(locations)]
    init = [f"(at c{i} l{i % locations})" for i in range(cars)] + ["(at-ferry l0)", "(empty-ferry)"]
    init += [f"(not-eq {a} {b})" for a in ls for b in ls if a != b]
    goal = " ".join(f"(at c{i} l{(i + 1) % locations})" for i in range(cars))
    return (
        f"(define (problem ferry-{cars}-{locations}) (:domain ferry) (:objects {' '.join(cs)} - car "
        f"{' '.join(ls)} - location) (:init {' '.join(init)}) (:goal (and {goal})))"
    )


@pytest.fixture(scope="module")
def ferry_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ferry")
    (folder / "domain.pddl").write_text(examples.texts("ferry")[0])
    problems = []
    for cars, locations in ((2, 3), (3, 3), (2, 4)):
        problems.append(folder / f"p{cars}{locations}.pddl")
        problems[-1].write_text(_ferry(cars, locations))
    return folder / "domain.pddl", problems


def _bytes(generated) -> str:
    return "".join(dumps(r) + "\n" for r in generated.records)


@pytest.mark.parametrize("form", ["hard", "mcq"])
def test_generate_gives_the_same_bytes_on_every_backend(ray_address, ferry_files, form):
    domain, problems = ferry_files
    opt = Options(form=form, n=3, seed=7, budget=20.0)
    alone = generate(domain, problems, opt)
    assert len(alone.records) == sum(alone.made.values()) and len({r["id"] for r in alone.records}) == len(
        alone.records
    )
    # a task short of 3 records says why (small ferries have few questions without a giveaway)
    assert all(alone.short.get(task) for task, made in alone.made.items() if made < 3), alone.short
    assert sum(alone.made.values()) >= 2 * len(alone.made)
    asked = {
        name for r in alone.records for name in ("ferry-2-3", "ferry-3-3", "ferry-2-4") if name in r["PDDL_problem"]
    }
    assert len(asked) == 3  # every problem is asked about
    for jobs, backend in ((2, "local"), (2, "ray")):
        other = generate(domain, problems, opt, jobs=jobs, backend=backend)
        assert _bytes(other) == _bytes(alone), (jobs, backend)
        assert (other.made, other.dropped) == (alone.made, alone.dropped)


def test_generate_cli_at_a_ray_address_writes_the_local_file(ray_address, ferry_files, tmp_path):
    domain, problems = ferry_files
    outs = {}
    for name, flags in (
        ("local", ["--jobs", "2"]),
        ("ray", ["--jobs", "2", "--backend", "ray", "--address", ray_address]),
    ):
        outs[name] = tmp_path / f"{name}.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "acptools.cli",
                "generate",
                "--domain",
                str(domain),
                "--problem",
                *map(str, problems),
                "--tasks",
                "app,nexta,land",
                "-n",
                "4",
                "--seed",
                "5",
                "--quiet",
                "--out",
                str(outs[name]),
                *flags,
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
    assert outs["ray"].read_bytes() == outs["local"].read_bytes() and outs["local"].stat().st_size > 0


def _episodes(rows: list[dict]) -> dict[str, list[dict]]:
    """Each episode's rows without the TIMING fields (the settings row apart)."""
    out: dict[str, list[dict]] = {}
    for r in rows[1:]:
        out.setdefault(r["episode"], []).append({k: v for k, v in r.items() if k not in TIMING})
    return out


@pytest.mark.parametrize("policy", ["random", "optimal"])
def test_rollout_on_ray_gives_the_local_traces_and_returns_its_proofs(ray_address, tmp_path, policy):
    tasks = ["ferry", "gripper-strips", "grid", "blocksworld-4ops"]
    local = rollout.run(tasks, policy, rollout.RolloutConfig(jobs=2, seed=5, max_steps=8))
    store.use(tmp_path / "proofs.sqlite")
    try:
        remote = rollout.run(
            tasks,
            policy,
            rollout.RolloutConfig(jobs=2, seed=5, max_steps=8, backend="ray"),
            out=tmp_path / "traces.jsonl",
        )
        facts = store.active().stats()["facts"]
    finally:
        store.use(None)
    assert len(local.episodes) == len(tasks) and len(local.steps) > len(tasks)
    assert _episodes(remote.rows) == _episodes(local.rows)
    assert remote.rows[0] == local.rows[0]  # the settings
    written = [json.loads(line) for line in (tmp_path / "traces.jsonl").read_text().splitlines()]
    assert _episodes(written) == _episodes(local.rows)
    assert sum(n for k, n in facts.items() if k.endswith("h*")) >= len(local.steps)  # the workers' proofs came back


def test_a_resumed_ray_rollout_runs_only_the_unfinished_episodes(ray_address, tmp_path):
    config = rollout.RolloutConfig(jobs=2, seed=2, max_steps=4, backend="ray")
    first = rollout.run(["ferry"], "random", config, out=tmp_path / "t.jsonl")
    both = rollout.run(["ferry", "grid"], "random", config, out=tmp_path / "t.jsonl", resume=True)
    assert [e["episode"] for e in both.episodes] == ["example/ferry", "example/grid"]  # ferry's kept, not run again
    assert _episodes(both.rows)["example/ferry"] == _episodes(first.rows)["example/ferry"]
    assert len(read_rows(tmp_path / "t.jsonl")) == len(both.rows)


def test_rollout_cli_at_a_ray_address_gives_the_local_traces(ray_address, tmp_path):
    outs = {}
    for name, flags in (("local", []), ("ray", ["--backend", "ray", "--address", ray_address])):
        outs[name] = tmp_path / f"{name}.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "acptools.cli",
                "rollout",
                "--tasks",
                "ferry",
                "grid",
                "--policy",
                "random",
                "--seed",
                "3",
                "--max-steps",
                "6",
                "--jobs",
                "2",
                "--no-cache",
                "--quiet",
                "--out",
                str(outs[name]),
                *flags,
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    rows = {name: [json.loads(line) for line in path.read_text().splitlines()] for name, path in outs.items()}
    assert _episodes(rows["ray"]) == _episodes(rows["local"]) and len(_episodes(rows["local"])) == 2


# ---- a backend that does not exist ---------------------------------------------------------------


def test_an_unknown_backend_is_a_clear_error(ferry_files, capsys):
    domain, problems = ferry_files
    for command in (
        ["generate", "--domain", str(domain), "--problem", str(problems[0]), "--out", os.devnull],
        ["rollout", "--tasks", "ferry", "--policy", "random"],
        ["score", "--data", "acpbench-hard:dev:app", "--gold"],
    ):
        with pytest.raises(SystemExit) as stop:
            main(command + ["--backend", "spark"])
        assert stop.value.code == 2
        assert "argument --backend: invalid choice: 'spark' (choose from 'local', 'ray')" in capsys.readouterr().err
    with pytest.raises(AcpError, match=r"--backend: unknown backend 'spark' \(use one of local, ray\)"):
        generate(domain, problems, Options(n=1), backend="spark")
    with pytest.raises(AcpError, match="unknown backend 'spark'"):
        rollout.run(["ferry"], "random", rollout.RolloutConfig(backend="spark"))


def test_ray_needs_a_policy_it_can_make_again():
    policy = RandomPolicy(0)  # made directly, not from a --policy string
    with pytest.raises(AcpError, match="makes the policy again in each worker"):
        rollout.run(["ferry"], policy, rollout.RolloutConfig(backend="ray"))


# ---- local workers are forked: what the parent started must not hang them ------------------------


def _race_in_child() -> int:
    return race.race([lambda budget: 1], Budget(30))


def test_a_forked_worker_races_after_its_parent_did():
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform: workers start afresh")
    assert race.race([lambda budget: 1], Budget(30)) == 1  # the parent's race threads now run
    with mp.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_race_in_child).get(timeout=60) == 1


def test_a_policy_that_cannot_work_stops_a_ray_run(ray_address):
    with ScriptedModel(in_order([Status(401, "invalid api key")])) as model:
        policy = rollout.make_policy("openai:m", base_url=model.openai_url)
        with pytest.raises(FatalPolicyError, match=r"AuthenticationError \(HTTP 401\): invalid api key"):
            rollout.run(["ferry"], policy, rollout.RolloutConfig(backend="ray"))

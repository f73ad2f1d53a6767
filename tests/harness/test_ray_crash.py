"""A Ray worker killed mid-run (SIGKILL, as the OOM killer or a lost node would) does not lose the
run: its task runs again (acptools.backends.RAY_RETRIES times at most) and the run ends with the
same items as an undisturbed local run; or, when every attempt dies, it stops with one line and a
partial --out that --resume completes. A real local Ray instance; only its own workers are killed
(the descendants of this test process)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acptools.dataset import acpbench_hard
from tests.support.data import ROOT
from tests.support.load import slack

pytest.importorskip("ray", reason="the [ray] extra (part of the test extra) is not installed")

STABLE = ("id", "task", "score", "verdict", "metrics", "parsed", "model")  # the witness may be another optimal plan


@pytest.fixture(scope="module")
def ray_address():
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


def _children() -> dict[int, int]:
    """pid -> parent pid of every process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                out[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return out


def _busy_workers(title: str, root: int | None = None) -> list[int]:
    """The processes of a Ray instance (descendants of `root`, default this process) running `title`."""
    parents, mine, found = _children(), {root or os.getpid()}, []
    changed = True
    while changed:
        changed = False
        for pid, ppid in parents.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                changed = True
    for pid in mine:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cmdline.startswith(title):
            found.append(pid)
    return found


def _score(*args, retries: int | None = None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if retries is not None:
        env["ACPTOOLS_RAY_RETRIES"] = str(retries)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "score",
            "--gold",
            "--quiet",
            "--no-cache",
            "--jobs",
            "2",
            *map(str, args),
        ],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _items(path) -> list[dict]:
    return [{k: it[k] for k in STABLE} for it in map(json.loads, Path(path).read_text().splitlines())]


@pytest.fixture(scope="module")
def nexta(tmp_path_factory):
    """Six records that keep a worker busy for a while (optimal planning), and their local items."""
    folder = tmp_path_factory.mktemp("nexta")
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in acpbench_hard("dev", "nexta")[:6]))
    local = _score("--data", data, "--out", folder / "local.jsonl")
    assert local.wait(timeout=slack(600)) in (0, 1), local.stderr.read()
    return data, _items(folder / "local.jsonl")


def _kill_when_busy(run, title: str = "ray::_worker", root: int | None = None) -> int | None:
    """SIGKILL one process `title` of a Ray instance (the descendants of `root`, default this process)
    once its workers are busy with `run`'s work: its pid, or None when none was seen."""
    deadline = time.monotonic() + slack(300)
    while run.poll() is None and time.monotonic() < deadline:
        if _busy_workers("ray::_worker", root):
            for pid in _busy_workers(title, root):
                os.kill(pid, signal.SIGKILL)
                return pid
        time.sleep(0.02)
    return None


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's workers in /proc (Linux)")
def test_a_killed_ray_worker_is_retried_to_the_same_items(ray_address, nexta, tmp_path):
    data, local = nexta
    out = tmp_path / "ray.jsonl"
    run = _score("--data", data, "--out", out, "--backend", "ray", "--address", ray_address)
    assert _kill_when_busy(run) is not None, "no busy Ray worker was seen"
    stdout, stderr = run.communicate(timeout=slack(600))
    assert run.returncode in (0, 1) and "Traceback" not in stderr, stderr
    assert _items(out) == local and len(local) == 6


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's workers in /proc (Linux)")
def test_without_retries_the_run_stops_in_one_line_and_resume_completes_it(ray_address, nexta, tmp_path):
    data, local = nexta
    out = tmp_path / "ray.jsonl"
    run = _score("--data", data, "--out", out, "--backend", "ray", "--address", ray_address, retries=0)
    assert _kill_when_busy(run) is not None, "no busy Ray worker was seen"
    stdout, stderr = run.communicate(timeout=slack(600))
    assert run.returncode == 2, stdout + stderr
    command = (
        f"acptools score --gold --quiet --no-cache --jobs 2 --data {data} --out {out} --backend ray "
        f"--address {ray_address} --resume"
    )
    assert stderr.strip() == (
        "acptools: error: --backend ray: a Ray worker died 1 time(s) running one unit of work "
        f"(WorkerCrashedError) (what finished is in {out}: resume with {command})"
    )
    partial = _items(out)
    assert len(partial) < 6 and all(it in local for it in partial)
    resumed = _score("--data", data, "--out", out, "--backend", "ray", "--address", ray_address, "--resume")
    assert resumed.wait(timeout=slack(600)) in (0, 1), resumed.stderr.read()
    assert _items(out) == local


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds Ray's processes in /proc (Linux)")
def test_a_dead_ray_system_process_stops_the_run_in_one_line_with_the_resume_command(ray_address, nexta, tmp_path):
    """Killing the DashboardAgent of the Ray instance a run started (its raylet goes down with it: no retry
    can help) stops the run with one line naming what failed and the exact command that resumes it, no
    traceback; that command (here on another Ray instance) completes the run to the local items."""
    data, local = nexta
    out = tmp_path / "ray.jsonl"
    run = _score("--data", data, "--out", out, "--backend", "ray")
    assert _kill_when_busy(run, "ray::DashboardAgent", run.pid) is not None, "no DashboardAgent was seen"
    stdout, stderr = run.communicate(timeout=slack(600))
    print(f"\n{stderr}")
    assert run.returncode == 2 and "Traceback" not in stdout + stderr, stdout + stderr
    (line,) = stderr.strip().splitlines()
    command = f"acptools score --gold --quiet --no-cache --jobs 2 --data {data} --out {out} --backend ray --resume"
    assert line.startswith("acptools: error: --backend ray: Ray stopped working (") and line.endswith(
        f"(what finished is in {out}: resume with {command})"
    ), line
    partial = _items(out) if out.exists() else []
    assert len(partial) < 6 and all(it in local for it in partial)
    resumed = _score("--data", data, "--out", out, "--backend", "ray", "--address", ray_address, "--resume")
    assert resumed.wait(timeout=slack(600)) in (0, 1), resumed.stderr.read()
    assert _items(out) == local

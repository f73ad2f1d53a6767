"""The Ray backend: the same items as the local backend, and proofs shared with the driver's store."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acptools import store
from acptools.dataset import acpbench_hard

pytest.importorskip("ray", reason="the [ray] extra (part of the test extra) is not installed")

STABLE = ("id", "task", "score", "verdict", "metrics", "parsed", "model")  # the witness may be another optimal plan


def _score(tmp_path, name, *flags):
    out = tmp_path / f"{name}.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    subprocess.run([sys.executable, "-m", "acptools.cli", "score", "--data", str(tmp_path / "data.jsonl"), "--gold",
                    "--quiet", "--out", str(out), "--jobs", "2", *flags], check=False, stdout=subprocess.DEVNULL,
                   env=env, timeout=600)
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

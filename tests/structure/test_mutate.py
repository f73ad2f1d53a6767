"""The mutation-testing command works from the project's files alone: `scripts/mutate.py` mutates a small core
module in its own folder, runs the mapped tests against each mutant and records every mutant's fate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_mutation_command_mutates_a_core_module_and_kills_its_mutants(tmp_path):
    pytest.importorskip("mutmut", reason="mutmut comes with the test extra: pip install -e '.[test]'")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTOOLS_", "MUTANT_", "PYTEST_"))}
    run = subprocess.run(
        [sys.executable, "scripts/mutate.py", "acptools/verdict.py", "--work", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    meta = tmp_path / "acptools.verdict" / "mutants" / "acptools" / "verdict.py.meta"
    fates = json.loads(meta.read_text())["exit_code_by_key"]
    assert fates and all(name.startswith("acptools.verdict.") for name in fates)
    assert None not in fates.values(), fates  # every mutant was run
    assert all(code != 0 for code in fates.values()), fates  # and killed: no survivor in verdict.py
    assert not (ROOT / "mutants").exists()  # the checkout stays clean


def test_a_module_outside_the_core_is_refused_by_name(tmp_path):
    run = subprocess.run(
        [sys.executable, "scripts/mutate.py", "acptools/cli/score.py", "--work", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "acptools/cli/score.py is not a core module" in run.stderr
    assert not list(tmp_path.iterdir())  # nothing copied, nothing run

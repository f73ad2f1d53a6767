"""The plugin's files as the tests read them: manifests, skills and the tool names they mention, a copy of
the working tree as a user gets it, the venv the tests' own acptools lives in, and the launcher's first
start held and finished at will (`build_held`, `lay_out_ready_venv`)."""

from __future__ import annotations

import fcntl
import json
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUGIN_NAME = "acptools"
SERVER_NAME = "acptools"
TOOL_PREFIX = f"mcp__plugin_{PLUGIN_NAME}_{SERVER_NAME}__"  # how Claude Code names a plugin's MCP tools
SKILLS = sorted((REPO / "skills").glob("*/SKILL.md"))
TEST_VENV = Path(sys.prefix)


def read_json(relative: str) -> dict:
    return json.loads((REPO / relative).read_text(encoding="utf-8"))


def frontmatter(text: str) -> tuple[dict[str, object], str]:
    """A SKILL.md's frontmatter (scalars and `- item` lists, all this project's skills use) and body."""
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.DOTALL)
    assert match, "a SKILL.md starts with a --- frontmatter block"
    fields: dict[str, object] = {}
    key = None
    for line in match.group(1).splitlines():
        if line.startswith("  - ") and key is not None:
            fields.setdefault(key, [])
            fields[key].append(line[4:].strip())  # type: ignore[union-attr]
        elif ":" in line and not line.startswith(" "):
            key, value = (part.strip() for part in line.split(":", 1))
            if value:
                fields[key] = value
    return fields, match.group(2)


def tools_named(text: str) -> set[str]:
    """Every MCP tool a skill names: prefixed names anywhere, and `name(` calls in its worked examples."""
    prefixed = set(re.findall(re.escape(TOOL_PREFIX) + r"([A-Za-z0-9_]+)", text))
    called = set(re.findall(r"(?<![\w.$-])([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\(", text))
    return prefixed | called


def tree_copy(target: Path) -> Path:
    """The working tree's tracked and unignored files (what a clone of this commit plus local edits
    holds, without node_modules or build output) copied to `target`."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def venv_script(name: str) -> Path:
    return TEST_VENV / ("Scripts" if sys.platform == "win32" else "bin") / name


@contextmanager
def build_held(venv: Path):
    """Hold the lock of the launcher's venv build (plugin/private_venv.py): a builder waits until the
    block ends, as a second client's builder does, so a first start stays a first start meanwhile."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def lay_out_ready_venv(venv: Path, version: str) -> None:
    """What a finished build leaves, with this test run's own server: a venv that holds `version`."""
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "acptools-server").symlink_to(venv_script("acptools-server"))
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    (site / f"acptools-{version}.dist-info").mkdir(parents=True)

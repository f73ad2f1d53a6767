"""The launcher's private virtualenv: where it lives, whether it holds this plugin's acptools, and how it
is built (`pip install <plugin root>`, or `uv` when it is on PATH, which is faster). Standard library only.

Where the venv lives: $ACPTOOLS_PLUGIN_VENV if set, else $CLAUDE_PLUGIN_DATA/venv (Claude Code's
per-plugin data folder, kept across plugin updates), else the user's cache folder.

A venv this launcher makes carries a marker file that says the version it holds and whether its install
finished; only such a venv is ever removed and rebuilt. A venv without the marker that already holds this
acptools version (a developer's own, through ACPTOOLS_PLUGIN_VENV) is used as it is.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "acptools-plugin.json"


def log(message: str) -> None:
    print(f"[acptools launcher] {message}", file=sys.stderr, flush=True)


def plugin_version() -> str:
    """The version of the package in the plugin's files (acptools/__init__.py), without importing it."""
    text = (ROOT / "acptools" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.MULTILINE)
    if not found:
        raise SystemExit(f"acptools launcher: no __version__ in {ROOT / 'acptools' / '__init__.py'}")
    return found.group(1)


def venv_dir() -> Path:
    if os.environ.get("ACPTOOLS_PLUGIN_VENV"):
        return Path(os.environ["ACPTOOLS_PLUGIN_VENV"]).expanduser()
    if os.environ.get("CLAUDE_PLUGIN_DATA"):
        return Path(os.environ["CLAUDE_PLUGIN_DATA"]) / "venv"
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "acptools" / "plugin-venv"


def venv_bin(venv: Path, name: str) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / f"{name}.exe"
    return venv / "bin" / name


def lock_path(venv: Path) -> Path:
    """The file whose lock a build holds, beside the venv (two first starts at once build it once)."""
    return venv.parent / f".{venv.name}.lock"


def log_path(venv: Path) -> Path:
    """Where a build writes its output: a build outlives the client that started it, so not to stderr."""
    return venv.parent / f"{venv.name}-build.log"


def installed_version(venv: Path) -> str | None:
    """The acptools version installed in `venv` (from its dist-info; no process start), or None."""
    if not venv_bin(venv, "acptools-server").exists():
        return None
    found = [
        *venv.glob("lib/python3*/site-packages/acptools-*.dist-info"),
        *venv.glob("Lib/site-packages/acptools-*.dist-info"),
    ]
    return found[0].name[len("acptools-") : -len(".dist-info")] if len(found) == 1 else None


def is_ready(venv: Path, version: str) -> bool:
    """True when `venv` holds `version` and, if this launcher made it, its install finished."""
    if installed_version(venv) != version:
        return False
    try:
        return json.loads((venv / MARKER).read_text(encoding="utf-8")).get("ready", False) is True
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False


def mark(venv: Path, version: str, ready: bool) -> None:
    """Say that this launcher made `venv` and whether its install finished."""
    (venv / MARKER).write_text(json.dumps({"version": version, "ready": ready, "source": str(ROOT)}), encoding="utf-8")


def run(cmd: list[str]) -> None:
    """Run an install step with its output on stdout (the build log); stop with the step's error if it fails."""
    print("$ " + " ".join(cmd), flush=True)
    done = subprocess.run(cmd, stdout=sys.stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(
            f"acptools launcher: `{' '.join(cmd)}` failed with exit code {done.returncode}; "
            f"see the lines above. Python {sys.version.split()[0]} at {sys.executable}; "
            f"acptools needs Python >= 3.10 and network access to PyPI on the first start."
        )


def build(venv: Path, version: str) -> None:
    """A fresh venv with the plugin's package installed into it, marked ready once the install finished."""
    if sys.version_info < (3, 10):
        raise SystemExit(
            f"acptools launcher: acptools needs Python >= 3.10; this is {sys.version.split()[0]} "
            f"({sys.executable}). Start the launcher with a newer python3."
        )
    started = time.monotonic()
    if venv.exists() and any(venv.iterdir()):
        if not (venv / MARKER).exists():
            raise SystemExit(
                f"acptools launcher: {venv} holds acptools {installed_version(venv)}, not {version}, "
                f"and this launcher did not make it, so it leaves it alone: remove it or set "
                f"ACPTOOLS_PLUGIN_VENV to another folder."
            )
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    uv = shutil.which("uv")
    if uv:
        run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
        mark(venv, version, ready=False)
        run([uv, "pip", "install", "--quiet", "--python", str(venv_bin(venv, "python")), str(ROOT)])
    else:
        run([sys.executable, "-m", "venv", str(venv)])
        mark(venv, version, ready=False)
        run(
            [str(venv_bin(venv, "python")), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(ROOT)]
        )
    mark(venv, version, ready=True)
    print(f"virtualenv ready in {time.monotonic() - started:.0f} s", flush=True)


def locked_build(venv: Path, version: str) -> None:
    """Build under a lock, so that two clients starting the server at once build it once."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path(venv), "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # Windows has no flock: two first starts at the same moment may both build
            pass
        print(f"=== build of acptools {version} in {venv} (pid {os.getpid()}, {time.ctime()})", flush=True)
        if not is_ready(venv, version):
            build(venv, version)


def start_build(venv: Path, version: str, launcher: Path, flag: str) -> subprocess.Popen:
    """Start `launcher flag` (which calls `locked_build`) in a session of its own, writing to the build log:
    a client that stops this launcher (Claude Code does when it gives up waiting, and after
    `claude mcp list`) does not stop the build, so a later start finds the venv ready."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    log(
        f"first start of acptools {version}: building a private virtualenv in {venv} (a minute or two); "
        f"its log: {log_path(venv)}"
    )
    with open(log_path(venv), "ab") as out:
        return subprocess.Popen(
            [sys.executable, str(launcher), flag],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def build_failure(venv: Path, returncode: int, lines: int = 15) -> str:
    """What a failed build says: the exit code and the end of its log."""
    try:
        tail = log_path(venv).read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    except OSError:
        tail = []
    shown = "\n".join(tail) if tail else "(the build log is empty)"
    return (
        f"acptools could not start: building its private Python environment in {venv} failed "
        f"(exit code {returncode}). The end of {log_path(venv)}:\n{shown}\n"
        f"Fix the cause, then restart the server (in Claude Code: /mcp, or a new session)."
    )

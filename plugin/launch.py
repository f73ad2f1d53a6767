#!/usr/bin/env python3
"""Start `acptools-server` on a machine that has only Python 3: the Claude Code plugin's `.mcp.json` and
the Claude Desktop bundle run this file.

The first start builds a private virtualenv from the plugin's own files (`pip install <plugin root>`,
or `uv` when it is on PATH, which is faster); later starts find the venv with the same acptools version
and exec the server at once. Everything it says goes to stderr: stdout belongs to the MCP stream.
Standard library only. Arguments are passed on to `acptools-server` (e.g. `--profile policy`).

Where the venv lives: $ACPTOOLS_PLUGIN_VENV if set, else $CLAUDE_PLUGIN_DATA/venv (Claude Code's
per-plugin data folder, kept across plugin updates), else the user's cache folder.
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
BUILD_FLAG = "--build-venv"


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


def installed_version(venv: Path) -> str | None:
    """The acptools version installed in `venv` (from its dist-info; no process start), or None."""
    if not venv_bin(venv, "acptools-server").exists():
        return None
    found = [*venv.glob("lib/python3*/site-packages/acptools-*.dist-info"),
             *venv.glob("Lib/site-packages/acptools-*.dist-info")]
    return found[0].name[len("acptools-"):-len(".dist-info")] if len(found) == 1 else None


def run(cmd: list[str]) -> None:
    """Run an install step with its output on stderr; stop with the step's own error if it fails."""
    log("$ " + " ".join(cmd))
    done = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"acptools launcher: `{' '.join(cmd)}` failed with exit code {done.returncode}; "
                         f"see the lines above. Python {sys.version.split()[0]} at {sys.executable}; "
                         f"acptools needs Python >= 3.10 and network access to PyPI on the first start.")


def mark(venv: Path, version: str) -> None:
    """Say that this launcher made `venv`: only such a venv is ever removed and rebuilt."""
    (venv / MARKER).write_text(json.dumps({"version": version, "source": str(ROOT)}), encoding="utf-8")


def build(venv: Path, version: str) -> None:
    """A fresh venv with the plugin's package installed into it, marked with the version it holds."""
    if sys.version_info < (3, 10):
        raise SystemExit(f"acptools launcher: acptools needs Python >= 3.10; this is {sys.version.split()[0]} "
                         f"({sys.executable}). Start the launcher with a newer python3.")
    started = time.monotonic()
    if venv.exists() and any(venv.iterdir()):
        if not (venv / MARKER).exists():
            raise SystemExit(f"acptools launcher: {venv} holds acptools {installed_version(venv)}, not {version}, "
                             f"and this launcher did not make it, so it leaves it alone: remove it or set "
                             f"ACPTOOLS_PLUGIN_VENV to another folder.")
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    uv = shutil.which("uv")
    if uv:
        run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
        mark(venv, version)
        run([uv, "pip", "install", "--quiet", "--python", str(venv_bin(venv, "python")), str(ROOT)])
    else:
        run([sys.executable, "-m", "venv", str(venv)])
        mark(venv, version)
        run([str(venv_bin(venv, "python")), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             str(ROOT)])
    log(f"virtualenv ready in {time.monotonic() - started:.0f} s")


def locked_build(venv: Path, version: str) -> None:
    """Build under a lock, so that two clients starting the server at once build it once."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w") as lock:
        try:
            import fcntl
            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # Windows has no flock: two first starts at the same moment may both build
            pass
        if installed_version(venv) != version:
            build(venv, version)


def build_detached(venv: Path, version: str) -> None:
    """Build in a process of its own session: a client that gives up waiting (Claude Code allows 30 s by
    default) and kills this launcher does not stop the build, so its next start finds the venv ready."""
    log(f"first start of acptools {version}: building a private virtualenv in {venv} (a minute or two; "
        f"a client that times out meanwhile connects on its next start)")
    builder = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), BUILD_FLAG],
                               stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr,
                               start_new_session=True)
    if builder.wait() != 0 or installed_version(venv) != version:
        raise SystemExit(f"acptools launcher: building {venv} failed; see the lines above.")


def main() -> None:
    version = plugin_version()
    venv = venv_dir()
    if sys.argv[1:] == [BUILD_FLAG]:
        return locked_build(venv, version)
    if installed_version(venv) != version:
        build_detached(venv, version)
    server = venv_bin(venv, "acptools-server")
    args = [str(server), *sys.argv[1:]]
    if os.name == "nt":
        raise SystemExit(subprocess.call(args))
    os.execv(str(server), args)


if __name__ == "__main__":
    main()

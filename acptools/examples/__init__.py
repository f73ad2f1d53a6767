"""Bundled example tasks (from ACPBench Hard, IBM, CDLA-Permissive-2.0): one folder per domain."""

from __future__ import annotations

import functools
from pathlib import Path

from ..errors import AcpError

ROOT = Path(__file__).parent
DEFAULT = "ferry"  # the demo's task: small, and every question has a non-trivial answer on it


def names() -> list[str]:
    """The bundled example names, sorted."""
    return list(_names())


@functools.cache
def _names() -> tuple[str, ...]:
    """The bundled folders, read once (they ship with the package and do not change)."""
    return tuple(sorted(p.name for p in ROOT.iterdir() if (p / "domain.pddl").is_file()))


def texts(name: str) -> tuple[str, str]:
    """(domain text, problem text) of a bundled example."""
    if name not in _names():
        raise AcpError(f"no bundled example {name!r}", "example", f"examples: {', '.join(names())}")
    return _texts(name)


@functools.cache
def _texts(name: str) -> tuple[str, str]:
    folder = ROOT / name
    return (folder / "domain.pddl").read_text(), (folder / "problem.pddl").read_text()

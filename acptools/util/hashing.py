"""Content keys of PDDL tasks: one hash for caches, the server's ids and proof stores, and of the code
that answers (a light module, so that code which only names tasks does not load the engine)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


def task_key(domain_text: str, problem_text: str) -> str:
    """The content hash of a task's PDDL: one key for caches, the server's ids and proof stores."""
    data = domain_text.encode("utf-8", "surrogatepass") + b"\0" + problem_text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of every file of the acptools package (its code, grammars and prompts; not the bundled
    records, which are data): what one version of the code kept (grades, grounded tasks) is never
    read by another."""
    root = Path(__file__).resolve().parents[1]  # the acptools package, not this folder
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and not path.name.endswith(".gz"):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()

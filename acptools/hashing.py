"""Content keys of PDDL tasks: one hash for caches, the server's ids and proof stores (a light module, so
that code which only names tasks does not load the engine)."""

from __future__ import annotations

import hashlib


def task_key(domain_text: str, problem_text: str) -> str:
    """The content hash of a task's PDDL: one key for caches, the server's ids and proof stores."""
    data = domain_text.encode("utf-8", "surrogatepass") + b"\0" + problem_text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()

"""Grounded tasks kept in the proof store, so that a later run reads a task instead of parsing and
grounding it again.

The truth service (acptools.truth) loads every task it has not met through `load`: with a proof store
(acptools.proofs.store, on by default) it reads the task from the store's `grounded` table, else loads
the PDDL and keeps what loading made (acptools.ground.snapshot). A row is keyed by the task's content
hash and by a digest of the acptools code (`hashing.code_version`: a task kept by one version of the
code is never read by another), and carries an HMAC under the store's key like every proof row: a row
that does not authenticate is bypassed and counted, and its bytes are never read. The bytes are plain
data (snapshot.py): even a signed row cannot make its reader run code. `acptools cache verify` loads
each kept task again from its PDDL and compares (acptools.proofs.verify).

A kept task is held to the limits its caller loads under, as a fresh load is: its operators to
`max_operators`, its bytes to `max_bytes` and its ground actions to `max_actions`.
"""

from __future__ import annotations

from ..errors import AcpError
from ..ground import snapshot
from ..ground.grounding import MAX_GROUND_OPERATORS
from ..task import Task, load_task
from ..util.hashing import code_version, task_key
from . import store


def load(
    found: store.ProofStore | None,
    domain_text: str,
    problem_text: str,
    max_operators: int = MAX_GROUND_OPERATORS,
    budget=None,
    max_bytes: int | None = None,
    max_actions: int | None = None,
) -> Task:
    """The task of this PDDL: read from the store `found` when it keeps it for this code, else loaded
    under the limits (see acptools.task.load_task) and kept there when the store may be written."""
    limits = dict(max_operators=max_operators, budget=budget, max_bytes=max_bytes, max_actions=max_actions)
    if found is None or found.broken:
        return load_task(domain_text, problem_text, **limits)
    key, version = task_key(domain_text, problem_text), code_version()
    blob = found.get_grounded(key, version)
    if blob is not None:
        try:
            grounded = snapshot.loads(blob, domain_text)
        except Exception as e:  # noqa: BLE001 -- bytes this key signed, yet unreadable: load afresh
            found.bypass(store.GROUNDED_KIND, key, f"unreadable ({type(e).__name__})")
        else:
            if grounded.key == key:
                return Task(within_limits(grounded, max_operators, budget, max_bytes, max_actions))
            found.bypass(store.GROUNDED_KIND, key, "the kept bytes are another task")
    task = load_task(domain_text, problem_text, **limits)
    if not found.readonly:
        found.remember_task(key, domain_text, problem_text)
        if task.grounded.numeric is None:  # a numeric task is not kept (snapshot.dumps)
            found.put_grounded(key, version, snapshot.dumps(task.grounded))
    return task


def within_limits(grounded, max_operators: int, budget, max_bytes: int | None, max_actions: int | None):
    """A kept grounded task, held to the limits of the load that reads it (an AcpError naming the limit
    when it is past one, as the load would have raised)."""
    grounded.max_operators = max_operators
    if len(grounded.operators) > max_operators:
        raise AcpError(f"the task has more than {max_operators} ground operators", "grounding", "use a smaller problem")
    if max_bytes is not None and grounded.approx_bytes > max_bytes:
        raise AcpError(
            f"the task needs about {grounded.approx_bytes / 1e6:,.0f} MB, more than the memory limit of "
            f"{max_bytes / 1e6:,.0f} MB",
            "memory",
            "use a smaller problem",
        )
    if max_actions is not None and len(grounded.possible_actions(budget)) > max_actions:
        raise AcpError(
            f"the task has more than {max_actions:,} ground actions that its static facts do not rule out",
            "ground actions",
            "use a smaller problem (fewer objects)",
        )
    return grounded

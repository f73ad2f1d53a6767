"""A grounded task as bytes and back: what acptools.task_store keeps in the proof store.

Pickled as loading left it (see GroundedTask.__getstate__): names, operators, init and goal, the
reached atoms. The parsed domain is not written but shared with the process's other tasks of that
domain, PDDL words are written as plain strings (a Token's line and column matter only while the
text is read), and the exploration that continues lazy grounding is rebuilt only if a question needs
it. Reading runs code, so callers hand `loads` only bytes their key authenticated; besides, the bytes
may name only acptools' own classes and plain builtin containers.
"""

from __future__ import annotations

import io
import pickle
import zlib

from ..pddl.sexpr import Token
from .grounded import GroundedTask, parsed_domain

DOMAIN = "domain"  # the persistent id of the task's parsed domain
BUILTINS = frozenset(("str", "int", "bool", "float", "bytes", "tuple", "list", "dict", "set", "frozenset"))


class _Pickler(pickle.Pickler):
    def __init__(self, file, task: GroundedTask):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.domain = task.domain

    def persistent_id(self, obj):
        return DOMAIN if obj is self.domain else None

    def reducer_override(self, obj):
        if type(obj) is Token:
            return str, (str.__str__(obj),)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, domain_text: str):
        super().__init__(file)
        self.domain_text = domain_text

    def persistent_load(self, pid):
        if pid != DOMAIN:
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return parsed_domain(self.domain_text)

    def find_class(self, module: str, name: str):
        if module == "builtins" and name in BUILTINS:
            return super().find_class(module, name)
        if module.split(".")[0] == "acptools":
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module:  # a class of ours, not a name it imports
                return found
        raise pickle.UnpicklingError(f"a kept task may not name {module}.{name}")


def dumps(task: GroundedTask) -> bytes:
    """The task as compressed bytes (take it right after loading: questions' engines are not kept)."""
    buf = io.BytesIO()
    _Pickler(buf, task).dump(task)
    return zlib.compress(buf.getvalue(), 1)


def loads(blob: bytes, domain_text: str) -> GroundedTask:
    """The task `dumps` wrote; `domain_text` is its domain's PDDL. Bad bytes raise ValueError,
    pickle.UnpicklingError, zlib.error or whatever reading them raises."""
    task = _Unpickler(io.BytesIO(zlib.decompress(blob)), domain_text).load()
    if not isinstance(task, GroundedTask):
        raise pickle.UnpicklingError(f"the bytes hold a {type(task).__name__}, not a grounded task")
    return task


def fingerprint(task: GroundedTask) -> tuple:
    """What a restored task must share with a fresh load of its PDDL: names, operators, init, goal and
    the reached atoms."""
    return (task.key, task.atom_names, task.action_names, task.ops_of_action, task.operators, task.init,
            task.goal, task.reached, sorted(task.static_true))

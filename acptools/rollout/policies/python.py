"""`python:module:function` (or `python:path/to/file.py:function`): a Python function as the policy.

The function receives the `Observation` (its `.prompt`, `.system`, `.atoms`, `.applicable`,
`.history`, and `.task` / `.state` for library calls) and returns the reply: a string, a `Reply`,
or a dict with 'reply' and optional 'input_tokens' / 'output_tokens'. An `async def` function is
awaited; a plain one runs in a worker thread, so --jobs episodes can wait on it side by side.
An exception it raises ends that episode as 'policy-error'.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

import anyio

from ...errors import AcpError
from .interface import Policy, PolicyError, Reply, as_reply


def load_function(spec: str):
    """The function named by 'module:function' or 'file.py:function'."""
    where = f"--policy python:{spec}"
    module_name, _, function = spec.rpartition(":")
    if not module_name or not function:
        raise AcpError("expected python:MODULE:FUNCTION or python:FILE.py:FUNCTION", where, "e.g. python:my_agent:act")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise AcpError(f"no such file: {path}", where)
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules.setdefault(path.stem, module)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except AcpError:
        raise
    except Exception as e:  # the user's module failed to import: say how, not a traceback
        raise AcpError(f"cannot import {module_name!r}: {type(e).__name__}: {e}", where) from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise AcpError(
            f"{module_name!r} has no function {function!r}",
            where,
            f"functions there: {', '.join(n for n, v in vars(module).items() if inspect.isfunction(v))}",
        )
    return fn


class PythonPolicy(Policy):
    """`spec` is 'module:function' or 'file.py:function', or the function itself."""

    def __init__(self, spec):
        if callable(spec):
            self.name, self.function = f"python:{spec.__module__}:{spec.__qualname__}", spec
        else:
            self.name, self.function = f"python:{spec}", load_function(spec)

    async def act(self, obs) -> Reply:
        """Call the user's function on the observation (a sync one in a worker thread); its exceptions
        become PolicyError."""
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await self.function(obs)
            else:
                value = await anyio.to_thread.run_sync(self.function, obs)
        except Exception as e:  # the user's code failed on this step
            raise PolicyError(f"{type(e).__name__}: {e}") from None
        return as_reply(value)

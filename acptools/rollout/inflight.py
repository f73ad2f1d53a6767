"""Work items in flight against one policy: `jobs` anyio tasks sharing one queue, so the model calls
of several items overlap (used by rollouts, one episode per item, and by `acptools eval`, one
question per item)."""

from __future__ import annotations

import threading

import anyio

from .policies import FatalPolicyError, Policy


async def in_flight(
    policy: Policy,
    todo: list,
    jobs: int,
    work,
    cancel: threading.Event,
    progress=None,
    done: int = 0,
    total: int | None = None,
    cost=None,
) -> None:
    """await work(item) for every item, `jobs` at a time, inside `async with policy` (which closes it);
    `progress(done, total, **cost(result))` as each finishes (`cost`: what the item's result says of its
    measured cost, for the progress bar's estimate; none without it). On Ctrl-C or any error `cancel` is set (so gradings
    still running in threads stop at once), and a FatalPolicyError comes out as itself, not in a group."""
    total = len(todo) + done if total is None else total
    queue = iter(todo)
    if progress:
        progress(done, total)

    async def worker():
        nonlocal done
        for item in queue:  # one iterator shared by the workers: each item is taken once
            result = await work(item)
            done += 1
            if progress:
                progress(done, total, **(cost(result) if cost and isinstance(result, dict) else {}))

    async with policy:
        try:
            async with anyio.create_task_group() as tg:
                for _ in range(min(jobs, len(todo))):
                    tg.start_soon(worker)
        except BaseException as e:
            cancel.set()
            fatal = fatal_in(e)
            if fatal is None:
                raise
            raise fatal from None


def fatal_in(e: BaseException) -> FatalPolicyError | None:
    """The FatalPolicyError in `e` or in its exception groups, if any."""
    if isinstance(e, FatalPolicyError):
        return e
    for inner in getattr(e, "exceptions", ()):
        found = fatal_in(inner)
        if found is not None:
            return found
    return None

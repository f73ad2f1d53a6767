"""Deciding many items under one budget: an item may spend at most half of what is left (all of it
when it is the last), so one hard item cannot eat the whole budget before the others are looked
at, while an item that needs a long search still gets one; items that ran out are tried again with
what remains."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..budget import Budget

MIN_SLICE = 0.05  # CPU seconds: below this a share decides nothing worth its start-up


def decide_in_rounds(items: list, decide: Callable[[Any, Budget], bool], budget: Budget) -> list:
    """Call `decide(item, slice)` for each item with a CPU slice of the budget; it returns True
    when the item is settled (proven either way, or settled by another item's answer) and False
    when its slice ran out. Items that ran out are tried again in later rounds. Returns the items
    still open when the budget is spent."""
    pending = list(items)
    while pending:
        left = budget.left()
        if left is not None and left <= 0:
            break
        still: list = []
        for k, item in enumerate(pending):
            rest = budget.left()
            if rest is not None and rest <= 0:
                still.extend(pending[k:])
                break
            share = None if rest is None else max(MIN_SLICE, rest / min(2, len(pending) - k))
            if not decide(item, budget.child(share)):
                still.append(item)
        if len(still) == len(pending) and (budget.left() or 0) <= MIN_SLICE:
            pending = still
            break
        pending = still
    return pending

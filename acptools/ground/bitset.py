"""Sets of small ints (atom ids) as Python ints: bit i set means i is in the set."""

from __future__ import annotations


def bits(mask: int):
    """Indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low

"""Bounded text for values that may hold states.

A state, a mask or any other bit set is a Python int, and Python refuses to write an int of more than
4,300 digits (``sys.get_int_max_str_digits()``) in decimal: a task with more than ~14,300 atoms has
such states. So messages, logs, cache keys and reprs never write a big int: ``short`` names it by its
size and a digest, keeps small ints (ids, counts) as they are, and cuts long strings and containers
with a count of what it left out. ``bounded_repr`` gives a dataclass that holds bit sets such a repr.
"""

from __future__ import annotations

import dataclasses
import hashlib

SMALL_BITS = 64  # ints of at most this many bits (ids, counts, sizes) are written in full
MAX_ITEMS = 8  # items of a container written before the count of the rest
MAX_CHARS = 200  # characters of a string's repr kept before the count of the rest

__all__ = ["short", "int_text", "digest", "bounded_repr"]


def digest(n: int) -> str:
    """A short, stable digest of an int (its two's-complement bytes), to tell two bit sets apart."""
    return hashlib.sha256(n.to_bytes(n.bit_length() // 8 + 1, "little", signed=True)).hexdigest()[:12]


def int_text(n: int) -> str:
    """A small int as it is; a big one (a bit set) as its number of members and bits and a digest."""
    if n.bit_length() <= SMALL_BITS:
        return str(n)
    return f"<bit set: {n.bit_count()} of {n.bit_length()} bits, sha256 {digest(n)}>"


def short(value: object) -> str:
    """``repr(value)`` bounded: big ints by ``int_text``, at most MAX_ITEMS items of a container and
    MAX_CHARS characters of a string, each cut saying how much it left out."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return int_text(value)
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= MAX_CHARS else f"{text[:MAX_CHARS]}... ({len(value)} characters)"
    if isinstance(value, dict):
        return _items("{", [f"{short(k)}: {short(v)}" for k, v in _first(value.items())], len(value), "}")
    if isinstance(value, (tuple, list, set, frozenset)):
        ends = {tuple: "()", list: "[]"}.get(type(value), "{}")
        return _items(ends[0], [short(v) for v in _first(value)], len(value), ends[1], isinstance(value, tuple))
    try:
        return repr(value)
    except ValueError:  # an object whose own repr writes a big int
        return f"<{type(value).__name__}>"


def _first(values) -> list:
    out = []
    for v in values:
        if len(out) == MAX_ITEMS:
            break
        out.append(v)
    return out


def _items(opening: str, shown: list[str], total: int, closing: str, tuple_: bool = False) -> str:
    if total > len(shown):
        shown.append(f"... {total - len(shown)} more")
    elif tuple_ and total == 1:
        shown[0] += ","
    return opening + ", ".join(shown) + closing


def bounded_repr(cls: type) -> type:
    """Class decorator (after ``@dataclass``): the repr writes every repr field with ``short``, so an
    object that holds a state or mask can be logged, shown in an error or a debugger on any task."""
    names = [f.name for f in dataclasses.fields(cls) if f.repr]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={short(getattr(self, n))}' for n in names)})"

    cls.__repr__ = __repr__
    return cls

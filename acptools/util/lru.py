"""A thread-safe bounded LRU mapping, shared by the scorer's caches and the MCP server's.

Entries are bounded by count (``max_items``) and optionally by size (``max_bytes``, with ``sizeof``
measuring each value once, when it is put). Both ``get`` and ``put`` count as a use; a ``put``
evicts least recently used entries until both bounds hold again. Every operation takes one lock,
because callers run on worker threads (the server runs sync tools in a thread pool).

A miss raises a :class:`CacheMiss` (a ``KeyError``) that says why: :class:`EvictedKey` when the key
was dropped to make room (the last ``remember_evicted`` evicted keys are remembered), so the caller
can tell the user to create it again, and :class:`MissingKey` for a key never put (or popped).
Messages name a key in a bounded form (`acptools.util.shortrepr`): a key may be a state, an int bit set
too large for Python to write in decimal.
Override :meth:`LRUCache.miss` to raise a subclass of your own (the server's carry a tool error).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from .shortrepr import short

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

__all__ = ["LRUCache", "CacheMiss", "EvictedKey", "MissingKey"]


class CacheMiss(KeyError):
    """A key that is not in the cache; ``evicted`` tells an evicted key from an unknown one."""

    evicted = False

    def __init__(self, message: str, *, key: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.key = key

    def __str__(self) -> str:  # KeyError.__str__ would repr() the message
        return self.message


class EvictedKey(CacheMiss):
    """The key was in the cache but was evicted to make room for newer entries."""

    evicted = True


class MissingKey(CacheMiss):
    """The key was never put (or was popped, or evicted so long ago that it is forgotten)."""

    evicted = False


class LRUCache(Generic[K, V]):
    """Least-recently-used mapping with at most ``max_items`` entries and ``max_bytes`` bytes.

    ``kind`` names the entries in miss messages ("task", "episode"). The entry just put is never
    evicted, so one value larger than ``max_bytes`` is still kept (alone).
    """

    def __init__(
        self,
        max_items: int,
        *,
        max_bytes: int | None = None,
        sizeof: Callable[[V], int] | None = None,
        remember_evicted: int = 1024,
        kind: str = "item",
    ) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        if max_bytes is not None and (max_bytes < 0 or sizeof is None):
            raise ValueError("max_bytes must be >= 0 and needs a sizeof function to measure values")
        self._max_items = max_items
        self._max_bytes = max_bytes
        self._sizeof = sizeof
        self._kind = kind
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()  # key -> (value, its size), LRU first
        self._bytes = 0
        self._remember = max(0, remember_evicted)
        self._evicted: OrderedDict[K, None] = OrderedDict()  # recently evicted keys, oldest first
        self._lock = threading.Lock()

    @property
    def max_items(self) -> int:
        """The most entries the cache holds."""
        return self._max_items

    @property
    def max_bytes(self) -> int | None:
        """The most bytes the cache holds (None: no byte limit)."""
        return self._max_bytes

    @property
    def kind(self) -> str:
        """What the cache holds, for its messages ('task', 'episode', ...)."""
        return self._kind

    @property
    def bytes(self) -> int:
        """The sum of ``sizeof`` over the entries (0 without a ``sizeof`` function)."""
        with self._lock:
            return self._bytes

    def get(self, key: K) -> V:
        """The value of ``key``, now the most recently used; raises :class:`CacheMiss` if absent."""
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                raise self.miss(key, key in self._evicted)
            self._data.move_to_end(key)
            return entry[0]

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, or ``make()`` put under it. ``make`` runs outside the lock, so a slow
        computation does not block other keys; two threads missing the same key at once both compute,
        and the later ``put`` wins."""
        with self._lock:
            entry = self._data.get(key)
            if entry is not None:
                self._data.move_to_end(key)
                return entry[0]
        value = make()
        self.put(key, value)
        return value

    def put(self, key: K, value: V) -> list[K]:
        """Insert or replace ``key`` (now the most recently used); returns the keys evicted to make room."""
        size = self._sizeof(value) if self._sizeof is not None else 0
        evicted: list[K] = []
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._data[key] = (value, size)
            self._bytes += size
            self._evicted.pop(key, None)  # known again
            while len(self._data) > 1 and self._over_budget():
                old_key, (_value, old_size) = self._data.popitem(last=False)
                self._bytes -= old_size
                self._remember_evicted(old_key)
                evicted.append(old_key)
        return evicted

    def pop(self, key: K) -> V:
        """Remove and return ``key``; raises :class:`CacheMiss` if absent."""
        with self._lock:
            entry = self._data.pop(key, None)
            if entry is None:
                raise self.miss(key, key in self._evicted)
            self._bytes -= entry[1]
            return entry[0]

    def clear(self) -> None:
        """Drop every entry and forget the evicted keys."""
        with self._lock:
            self._data.clear()
            self._bytes = 0
            self._evicted.clear()

    def keys(self) -> list[K]:
        """Keys from least to most recently used (a snapshot)."""
        with self._lock:
            return list(self._data)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def miss(self, key: K, evicted: bool) -> CacheMiss:
        """The exception a miss on ``key`` raises (called with the lock held: must not use the cache)."""
        if evicted:
            budget = f"{self._max_items} {self._kind}s"
            if self._max_bytes is not None:
                budget += f" and {self._max_bytes} bytes"
            return EvictedKey(
                f"{self._kind} {short(key)} is no longer available: it was evicted because the cache "
                f"keeps at most {budget}; create it again",
                key=key,
            )
        return MissingKey(f"unknown {self._kind} {short(key)}", key=key)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is cached (not a use: the LRU order does not change)."""
        with self._lock:
            return key in self._data

    # -- internals (lock held) -------------------------------------------------

    def _over_budget(self) -> bool:
        if len(self._data) > self._max_items:
            return True
        return self._max_bytes is not None and self._bytes > self._max_bytes

    def _remember_evicted(self, key: K) -> None:
        if self._remember:
            self._evicted[key] = None
            if len(self._evicted) > self._remember:
                self._evicted.popitem(last=False)

"""A small thread-safe bounded LRU cache for server-side objects (tasks, episodes).

Tools may run on worker threads (the SDK runs sync tools via
``anyio.to_thread.run_sync``), so every operation takes a lock.

A missing key raises :class:`CacheKeyError`, which is both a ``KeyError`` and
an MCP ``ToolError``: raised from inside a tool, the client gets an
``isError`` result carrying the message (a plain ``KeyError`` would be
reported only as "Error executing tool <name>").
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Hashable
from typing import Generic, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class CacheKeyError(ToolError, KeyError):
    """Unknown or evicted cache key.  ``evicted`` tells the two apart."""

    def __init__(self, message: str, *, key: object, evicted: bool) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.evicted = evicted

    def __str__(self) -> str:  # KeyError.__str__ would repr() the message
        return self.message


class BoundedCache(Generic[K, V]):
    """Least-recently-used mapping holding at most ``max_items`` entries.

    ``get`` and ``put`` both count as a use.  When full, ``put`` of a new key
    evicts the least recently used entry.  The last ``remember_evicted`` evicted
    keys are remembered so a later ``get`` can say "evicted" instead of
    "unknown".
    """

    def __init__(self, max_items: int, *, kind: str = "item", remember_evicted: int = 1024) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        self._max_items = max_items
        self._kind = kind
        self._data: OrderedDict[K, V] = OrderedDict()
        self._evicted: deque[K] = deque(maxlen=max(0, remember_evicted))
        self._evicted_set: set[K] = set()
        self._lock = threading.Lock()

    @property
    def max_items(self) -> int:
        return self._max_items

    @property
    def kind(self) -> str:
        return self._kind

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def keys(self) -> list[K]:
        """Keys from least to most recently used (a snapshot)."""
        with self._lock:
            return list(self._data)

    def get(self, key: K) -> V:
        with self._lock:
            try:
                value = self._data[key]
            except KeyError:
                raise self._missing(key) from None
            self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> list[K]:
        """Insert or replace ``key``; returns the keys evicted to make room."""
        evicted: list[K] = []
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
            self._data[key] = value
            self._forget_evicted(key)
            while len(self._data) > self._max_items:
                old_key, _ = self._data.popitem(last=False)
                self._remember_evicted(old_key)
                evicted.append(old_key)
        return evicted

    def pop(self, key: K) -> V:
        """Remove and return ``key`` (raises :class:`CacheKeyError` if absent)."""
        with self._lock:
            try:
                return self._data.pop(key)
            except KeyError:
                raise self._missing(key) from None

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._evicted.clear()
            self._evicted_set.clear()

    # -- internals (lock held) -------------------------------------------------

    def _missing(self, key: K) -> CacheKeyError:
        if key in self._evicted_set:
            return CacheKeyError(
                f"{self._kind} {key!r} is no longer available: it was evicted because the server keeps "
                f"at most {self._max_items} {self._kind}s; create it again",
                key=key,
                evicted=True,
            )
        return CacheKeyError(f"unknown {self._kind} {key!r}", key=key, evicted=False)

    def _remember_evicted(self, key: K) -> None:
        if self._evicted.maxlen == 0:
            return
        if len(self._evicted) == self._evicted.maxlen:
            self._evicted_set.discard(self._evicted[0])
        self._evicted.append(key)
        self._evicted_set.add(key)

    def _forget_evicted(self, key: K) -> None:
        if key in self._evicted_set:
            self._evicted_set.discard(key)
            try:
                self._evicted.remove(key)
            except ValueError:  # pragma: no cover - set and deque kept in sync
                pass

"""The shared bounded LRU cache (acptools.util.lru): eviction order, byte budget, misses, threads."""

from __future__ import annotations

import threading

import pytest

from acptools.util.lru import CacheMiss, EvictedKey, LRUCache, MissingKey


def test_evicts_least_recently_used():
    cache: LRUCache[str, int] = LRUCache(2)
    assert cache.put("a", 1) == []
    assert cache.put("b", 2) == []
    assert cache.get("a") == 1  # "a" is now the most recently used
    assert cache.put("c", 3) == ["b"]
    assert cache.keys() == ["a", "c"] and len(cache) == 2
    assert "b" not in cache and "a" in cache
    assert cache.put("a", 10) == []  # replacing a key evicts nothing and makes it the newest
    assert cache.keys() == ["c", "a"]
    assert cache.put("d", 4) == ["c"]
    assert cache.get("a") == 10


def test_get_or_make_counts_as_use_and_makes_once():
    cache: LRUCache[str, int] = LRUCache(2)
    calls = []

    def make(v):
        def f():
            calls.append(v)
            return v

        return f

    assert cache.get_or_make("a", make(1)) == 1
    assert cache.get_or_make("a", make(99)) == 1
    assert calls == [1]
    cache.put("b", 2)
    cache.get_or_make("a", make(99))  # a hit: "a" becomes the newest, so "b" goes next
    assert cache.put("c", 3) == ["b"]


def test_byte_budget():
    cache: LRUCache[str, str] = LRUCache(100, max_bytes=10, sizeof=len)
    assert cache.put("a", "xxxx") == [] and cache.bytes == 4
    assert cache.put("b", "yyyy") == [] and cache.bytes == 8
    assert cache.put("c", "zzzz") == ["a"] and cache.bytes == 8
    assert cache.put("b", "y") == [] and cache.bytes == 5  # a replaced value gives its bytes back
    assert cache.put("big", "w" * 50) == ["c", "b"]  # never evicts the entry just put, even when too big
    assert cache.keys() == ["big"] and cache.bytes == 50
    assert cache.pop("big") == "w" * 50 and cache.bytes == 0
    assert LRUCache(3).bytes == 0
    counted: LRUCache[str, str] = LRUCache(3, sizeof=len)  # sizes counted without a byte budget
    counted.put("a", "abc")
    assert counted.bytes == 3
    with pytest.raises(ValueError):
        LRUCache(3, max_bytes=10)  # a byte budget needs sizeof
    with pytest.raises(ValueError):
        LRUCache(0)


def test_both_budgets_hold():
    cache: LRUCache[int, str] = LRUCache(3, max_bytes=5, sizeof=len)
    for i in range(5):
        cache.put(i, "x")
    assert cache.keys() == [2, 3, 4]
    assert cache.put(5, "xxxx") == [2, 3]
    assert cache.keys() == [4, 5] and cache.bytes == 5


def test_evicted_versus_missing():
    cache: LRUCache[str, int] = LRUCache(1, kind="task")
    cache.put("a", 1)
    cache.put("b", 2)
    with pytest.raises(EvictedKey) as evicted:
        cache.get("a")
    assert evicted.value.evicted is True and evicted.value.key == "a"
    assert isinstance(evicted.value, CacheMiss) and isinstance(evicted.value, KeyError)
    message = str(evicted.value)
    assert "task 'a'" in message and "evicted" in message and "at most 1 tasks" in message
    with pytest.raises(MissingKey) as missing:
        cache.get("zzz")
    assert missing.value.evicted is False and str(missing.value) == "unknown task 'zzz'"
    with pytest.raises(KeyError):
        cache.pop("zzz")
    cache.put("a", 3)  # known again: a later miss is not "evicted"
    assert cache.pop("a") == 3
    with pytest.raises(MissingKey):
        cache.get("a")
    cache.clear()
    assert len(cache) == 0
    with pytest.raises(MissingKey):
        cache.get("b")  # clear forgets evicted keys too


def test_a_miss_names_a_state_key_without_writing_it_in_decimal():
    """A state is an int bit set; one of 20,000 bits has more digits than Python writes (4,300 by
    default), so the message names it by its size and a digest (and a tuple key holding one too)."""
    state = 1 << 20_000 | 1 << 7 | 1
    cache: LRUCache[object, int] = LRUCache(1, kind="state")
    with pytest.raises(MissingKey) as missing:
        cache.get(state)
    assert str(missing.value).startswith("unknown state <bit set: 3 of 20001 bits, sha256 ")
    assert missing.value.key == state
    cache.put(("task", 7, state), 1)
    cache.put("other", 2)
    with pytest.raises(EvictedKey) as evicted:
        cache.get(("task", 7, state))
    assert "state ('task', 7, <bit set: 3 of 20001 bits, sha256 " in str(evicted.value)
    assert "at most 1 states" in str(evicted.value)


def test_remember_evicted_is_bounded():
    cache: LRUCache[int, int] = LRUCache(1, remember_evicted=2)
    for i in range(5):
        cache.put(i, i)
    with pytest.raises(EvictedKey):
        cache.get(3)
    with pytest.raises(EvictedKey):
        cache.get(2)
    with pytest.raises(MissingKey):
        cache.get(1)  # evicted too long ago to be remembered
    silent: LRUCache[int, int] = LRUCache(1, remember_evicted=0)
    silent.put(1, 1)
    silent.put(2, 2)
    with pytest.raises(MissingKey):
        silent.get(1)


def test_custom_miss():
    class ToolMiss(MissingKey):
        pass

    class Cache(LRUCache):
        def miss(self, key, evicted):
            return ToolMiss(f"no {key}", key=key)

    with pytest.raises(ToolMiss, match="no x"):
        Cache(2).get("x")


def test_thread_safety_smoke():
    cache: LRUCache[tuple, int] = LRUCache(16, max_bytes=64, sizeof=lambda v: v % 7 + 1)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(2000):
                key = (t, i % 40)
                if i % 3 == 0:
                    cache.put(key, i)
                elif i % 3 == 1:
                    assert cache.get_or_make(key, lambda: i) is not None
                else:
                    try:
                        cache.get(key)
                    except CacheMiss:
                        pass
                assert len(cache) <= 16
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(cache) <= 16 and cache.bytes <= 64
    assert cache.bytes == sum(cache.get(k) % 7 + 1 for k in cache.keys())

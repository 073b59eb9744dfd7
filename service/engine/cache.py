"""A bounded, thread-safe, least-recently-used cache with counters.

It owns memory bounds and the hit/miss/eviction statistics that operators
watch; it knows nothing about what it stores. The engine keeps finished exact
analyses in one (the proven bounds live in the compiled core's fixed table),
and the HTTP layer its answers to replay in another.

>>> cache = BoundedCache[str, int](max_entries=2)
>>> cache.put("a", 1); cache.put("b", 2); cache.put("c", 3)
>>> cache.get("a") is None, cache.get("c")
(True, 3)
>>> cache.stats()
CacheStats(hits=1, misses=1, entries=2, evictions=1, max_entries=2)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    entries: int
    evictions: int
    max_entries: int


class BoundedCache(Generic[K, V]):
    """At most ``max_entries`` items; the least recently used one goes first."""

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max_entries = max_entries
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = self._evictions = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self._misses += 1
                return None
            self._hits += 1
            self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            items = self._items
            items[key] = value
            items.move_to_end(key)
            if len(items) > self.max_entries:
                items.popitem(last=False)
                self._evictions += 1

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                self._hits, self._misses, len(self._items), self._evictions, self.max_entries
            )

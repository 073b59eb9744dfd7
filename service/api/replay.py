"""The answer cache: a repeated request gets the bytes of the answer it got before.

It owns which answers may be replayed and for how long: only answers a route
marked deterministic (exact scores, and no fresh randomness), only for bodies
up to ``MAX_KEY_BYTES``, in a bounded LRU (``TTT_RESPONSE_CACHE_ENTRIES``; 0
turns it off). Exact answers never change (the engine's exact results do not
depend on history), so a stored answer is the answer, byte for byte; the cache
only saves the work of producing it again. Bots and frontends ask the same
positions over and over, and this is what lets a repeated ``POST /v1/move``
cost about what the framework's own floor does (see docs/performance.md).

Two users: :class:`~service.api.guards.RequestGuard` replays the answers to
whole POST bodies and GET query strings before routing (with ``304`` when the
client's ``If-None-Match`` names the stored ETag), and the batch route reuses
the answer of each item.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from service.engine import BoundedCache, CacheStats

MAX_KEY_BYTES = 1024
# Keys a route sets in the request state (``request.state``) to offer its answer.
REPLAYABLE = "replayable_answer"
REPLAYED_DIFFICULTY = "replayable_difficulty"


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    body: bytes
    route: object  # the matched route, so metrics label a replay like the original
    difficulty: str | None  # for the moves-served counter, on move answers
    headers: tuple[tuple[bytes, bytes], ...] = ()  # as the route sent them (ETag, ...)

    @property
    def etag(self) -> str | None:
        for name, value in self.headers:
            if name == b"etag":
                return value.decode("latin-1")
        return None


def etag_matches(if_none_match: str | None, etag: str | None) -> bool:
    """Weak comparison, as If-None-Match asks (RFC 9110 13.1.2)."""
    if not if_none_match or etag is None:
        return False
    candidates = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in candidates or etag.removeprefix("W/") in candidates


class AnswerCache:
    def __init__(self, max_entries: int) -> None:
        self._entries: BoundedCache[tuple[str, Hashable], StoredAnswer] | None = (
            BoundedCache(max_entries) if max_entries > 0 else None
        )

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def get(self, kind: str, key: Hashable) -> StoredAnswer | None:
        """The stored answer to ``key`` (request bytes, or a batch item's fields)."""
        if self._entries is None or _too_long(key):
            return None
        return self._entries.get((kind, key))

    def put(self, kind: str, key: Hashable, answer: StoredAnswer) -> None:
        if self._entries is not None and not _too_long(key):
            self._entries.put((kind, key), answer)

    def stats(self) -> CacheStats | None:
        return None if self._entries is None else self._entries.stats()


def _too_long(key: Hashable) -> bool:
    if isinstance(key, bytes):
        return len(key) > MAX_KEY_BYTES
    return isinstance(key, tuple) and isinstance(key[0], str) and len(key[0]) > MAX_KEY_BYTES

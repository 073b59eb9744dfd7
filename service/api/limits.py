"""Per-client limits: who a client is, what a request costs, and the buckets that pay for it.

Who a client is, in this order (:meth:`Identify.__call__`):

* an API key sent as ``X-API-Key`` that the configuration knows (its SHA-256 in
  ``TTT_API_KEYS_FILE``), with that key's quota;
* otherwise the client's address: the peer, or, when the peer is one of
  ``TTT_TRUSTED_PROXIES``, the address the last trusted proxy put in the one
  header ``TTT_FORWARDED_HEADER`` names (``X-Forwarded-For`` by default, or
  RFC 7239 ``Forwarded``), read right to left past the trusted proxies. One
  header only: a proxy that sets one passes the other through from the
  client (ingress-nginx passes ``Forwarded``), and a client must not choose
  its own name. A header that does not parse is ignored whole, and the peer is
  the client. IPv6 addresses count by their /64 (one host's share).

A key that is not known is anonymous (the address is the client), unless
``TTT_REQUIRE_API_KEY`` is set: then a missing or unknown key is a 401. A key
over :data:`MAX_KEY_LENGTH` characters, or with characters outside visible
ASCII, is a 400 either way. Keys are never stored or logged: the log names a
client by ``key:`` and the first 16 hex digits of its hash, or by ``ip:``.

What a request costs, in units: one at the door for any ``/v1`` request (an
answer from a cache costs no more), plus, for each search it starts, the
board's cells times the seconds the search may take, over
:data:`CELL_SECONDS_PER_UNIT` (:func:`search_cost`); a batch also pays one unit
per item. What one request pays in all is capped at what the bucket holds, so
any request can pass with a full bucket.

The buckets (:class:`Buckets` in memory, :class:`RedisBuckets` across
replicas): a token bucket per client that holds ``burst`` units and refills at
``rate`` units a second. In memory at most ``TTT_RATE_LIMIT_CLIENTS`` buckets
are kept, the least recently used evicted (a new or evicted client starts with
a full bucket). In Redis each bucket is a hash that expires once it would be
full again. When Redis cannot be reached the limiter logs it, uses the
memory buckets, and tries Redis again after :data:`STORE_RETRY_SECONDS`.

How many searches a client may have running or waiting at once is decided by
the admission (``solver.py``), which knows them; this module builds the 429
and counts refusals by reason for ``/metrics``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import ProblemError, problem_response

MAX_KEY_LENGTH = 128
# A search's cost: cells x seconds / this. 15x15 at 0.8 s: 18 units; 20x20: 32.
CELL_SECONDS_PER_UNIT = 10.0
STORE_RETRY_SECONDS = 5.0
REASONS = ("rate", "concurrency")
ANONYMOUS_POLICY = "default"
log = logging.getLogger("service.api")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Quota:
    """A policy: ``rate`` units a second into a bucket of ``burst`` units (rate 0: no
    rate limit), and at most ``searches`` searches running or waiting (0: no cap)."""

    name: str
    rate: float
    burst: int
    searches: int

    @property
    def window_seconds(self) -> int:
        """The time an empty bucket takes to fill: the draft's ``w``."""
        return max(1, math.ceil(self.burst / self.rate)) if self.rate else 0

    @cached_property
    def quoted_name(self) -> str:
        return json.dumps(self.name)

    @cached_property
    def policy(self) -> bytes:
        """The ``RateLimit-Policy`` value (b"" with neither limit)."""
        policies = []
        if self.rate:
            policies.append(f"{self.quoted_name};q={self.burst};w={self.window_seconds}")
        if self.searches:
            policies.append(f'"searches";q={self.searches};qu="concurrent-requests"')
        return ", ".join(policies).encode()


@dataclass(frozen=True)
class Client:
    """Who sent a request: ``key`` names its bucket and its line in the access log."""

    key: str
    quota: Quota


@dataclass
class Verdict:
    """A bucket's answer: whether the units were taken, what is left, and when
    enough would be there (``retry_after``) or the bucket full (``reset``), in s."""

    allowed: bool
    remaining: float
    retry_after: float = 0.0
    reset: float = 0.0


def search_cost(cells: int, seconds: float) -> int:
    """Units a search costs: the board's cells times the seconds it may run.

    >>> search_cost(225, 0.8), search_cost(400, 0.8), search_cost(25, 0.8)
    (18, 32, 2)
    """
    return max(1, math.ceil(cells * seconds / CELL_SECONDS_PER_UNIT - 1e-9))


def parse_networks(text: str) -> tuple[Network, ...]:
    """``TTT_TRUSTED_PROXIES``: comma-separated addresses or CIDR blocks."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def load_keys(path: Path, default: Quota) -> dict[str, Quota]:
    """``TTT_API_KEYS_FILE``: ``{"keys": [{"name", "sha256", "rate"?, "burst"?,
    "searches"?}]}``, each missing quota field taken from ``default``. Keyed by hash."""
    document = json.loads(path.read_text())
    keys: dict[str, Quota] = {}
    for entry in document["keys"]:
        digest = str(entry["sha256"]).lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"{path}: {entry.get('name')!r}: sha256 must be 64 hex digits")
        quota = Quota(
            name=str(entry["name"]),
            rate=float(entry.get("rate", default.rate)),
            burst=int(entry.get("burst", default.burst)),
            searches=int(entry.get("searches", default.searches)),
        )
        if quota.rate < 0 or quota.burst < 1 or quota.searches < 0:
            raise ValueError(f"{path}: {quota.name!r}: rate >= 0, burst >= 1, searches >= 0")
        keys[digest] = quota
    return keys


class Identify:
    """Scope -> :class:`Client`, or a 400/401 problem for a key that cannot be used."""

    def __init__(
        self,
        anonymous: Quota,
        keys: dict[str, Quota],
        trusted_proxies: Sequence[Network],
        require_key: bool,
        forwarded_header: str = "x-forwarded-for",
    ) -> None:
        self.anonymous = anonymous
        self.keys = keys
        self.trusted = tuple(trusted_proxies)
        self.require_key = require_key
        self.header = forwarded_header.lower().encode()
        self.hops = _forwarded_hops if self.header == b"forwarded" else _forwarded_for_hops
        # Parsing addresses is most of identifying a client: remember the last few
        # thousand (peer, header) pairs, a bounded cache of a pure function.
        self.address_key = lru_cache(maxsize=4096)(self._address_key)
        self.keyed_client = lru_cache(maxsize=4096)(self._keyed_client)

    def __call__(self, scope: Scope) -> Client:
        api_key = forwarded = None
        for name, value in scope["headers"]:
            if name == b"x-api-key":
                api_key = value
            elif name == self.header:
                forwarded = value if forwarded is None else forwarded + b"," + value
        if api_key:
            keyed = self.keyed_client(api_key)
            if keyed is not None:
                return keyed
        if self.require_key:
            raise ProblemError(
                "api-key-required",
                "this server answers only requests with a known X-API-Key"
                if api_key
                else "send your API key in the X-API-Key header",
                headers={"www-authenticate": 'ApiKey header="X-API-Key"'},
            )
        peer = scope.get("client")
        host = peer[0] if peer else "unknown"
        return Client(self.address_key(host, forwarded), self.anonymous)

    def _keyed_client(self, api_key: bytes) -> Client | None:
        """The client a key names, None for an unknown key, a 400 for a malformed one."""
        if len(api_key) > MAX_KEY_LENGTH or not all(0x21 <= c <= 0x7E for c in api_key):
            raise ProblemError(
                "invalid-api-key",
                f"X-API-Key must be 1 to {MAX_KEY_LENGTH} visible ASCII characters",
            )
        digest = hash_key(api_key.decode())
        quota = self.keys.get(digest)
        return None if quota is None else Client(f"key:{digest[:16]}", quota)

    def _address_key(self, peer: str, forwarded: bytes | None) -> str:
        address = _address(peer)
        if address is not None and forwarded is not None and self._trusted(address):
            hops = self.hops(forwarded)
            if hops:
                for hop in reversed(hops):
                    address = hop
                    if not self._trusted(hop):
                        break
        if address is None:
            return f"peer:{peer[:64]}"
        if address.version == 6:
            return f"ip:{ipaddress.IPv6Network((address, 64), strict=False)}"
        return f"ip:{address}"

    def _trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(address in network for network in self.trusted)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _forwarded_for_hops(
    value: bytes,
) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address] | None:
    """``X-Forwarded-For: client, proxy1, proxy2``; None when any hop is not an address."""
    hops = []
    for part in value.split(b","):
        address = _address(part.strip().decode("latin-1"))
        if address is None:
            return None
        hops.append(address)
    return hops


def _forwarded_hops(value: bytes) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address] | None:
    """RFC 7239 ``Forwarded: for=192.0.2.1;proto=https, for="[2001:db8::1]:443"``:
    each element's ``for``; None when one is missing, hidden or not an address."""
    hops = []
    for element in value.decode("latin-1").split(","):
        node = None
        for pair in element.split(";"):
            name, _, text = pair.strip().partition("=")
            if name.lower() == "for":
                node = text.strip('"')
        if not node:
            return None
        if node.startswith("["):  # "[v6]" or "[v6]:port"
            node = node[1 : node.find("]")] if "]" in node else ""
        elif node.count(":") == 1:  # v4:port
            node = node.partition(":")[0]
        address = _address(node)
        if address is None:
            return None
        hops.append(address)
    return hops


class Store(Protocol):
    async def take(self, client: Client, cost: int) -> Verdict: ...


class Buckets:
    """Token buckets in memory, at most ``capacity`` clients, least recently used out.

    Used on the event loop only, so it needs no lock."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take_now(self, client: Client, cost: int, now: float | None = None) -> Verdict:
        quota = client.quota
        now = time.monotonic() if now is None else now
        tokens, then = self.buckets.pop(client.key, (quota.burst, now))
        tokens = min(quota.burst, tokens + (now - then) * quota.rate)
        cost = min(cost, quota.burst)
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
        self.buckets[client.key] = (tokens, now)
        if len(self.buckets) > self.capacity:
            self.buckets.popitem(last=False)
        return _verdict(quota, allowed, tokens, cost)

    async def take(self, client: Client, cost: int) -> Verdict:
        return self.take_now(client, cost)


def _verdict(quota: Quota, allowed: bool, tokens: float, cost: int) -> Verdict:
    return Verdict(
        allowed,
        tokens,
        retry_after=0.0 if allowed else (cost - tokens) / quota.rate,
        reset=(quota.burst - tokens) / quota.rate,
    )


# One round trip: refill by the time passed (Redis's clock, the same for every
# replica), take the cost if it is there, and expire the hash once it would be
# full again. KEYS[1] the bucket; ARGV rate, burst, cost. Returns {taken, tokens}.
TAKE_SCRIPT = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]) or burst, tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local taken = 0
if tokens >= cost then
  tokens = tokens - cost
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return {taken, tostring(tokens)}
"""


class RedisBuckets:
    """The same buckets in Redis, shared by every replica that names the same server;
    the memory buckets while Redis cannot be reached."""

    def __init__(self, url: str, fallback: Buckets, prefix: str = "tictactoe:bucket:") -> None:
        import redis.asyncio  # noqa: PLC0415 - only when a Redis store is configured

        self.client = redis.asyncio.Redis.from_url(
            url, socket_timeout=0.25, socket_connect_timeout=0.25, retry_on_timeout=False
        )
        self.script = self.client.register_script(TAKE_SCRIPT)
        self.fallback = fallback
        self.prefix = prefix
        self.down_until = 0.0  # no call to Redis before then
        self.up = True  # whether the last call to Redis succeeded
        self.errors = (redis.exceptions.RedisError, OSError)

    async def take(self, client: Client, cost: int) -> Verdict:
        quota = client.quota
        cost = min(cost, quota.burst)
        if time.monotonic() >= self.down_until:
            try:
                taken, tokens = await self.script(
                    keys=[self.prefix + client.key], args=[quota.rate, quota.burst, cost]
                )
            except self.errors as error:
                self.up = False
                self.down_until = time.monotonic() + STORE_RETRY_SECONDS
                log.warning(
                    "rate limit store unreachable (%s: %s); per-replica limits for %g s",
                    type(error).__name__,
                    error,
                    STORE_RETRY_SECONDS,
                )
            else:
                self.up = True
                return _verdict(quota, bool(taken), float(tokens), cost)
        return self.fallback.take_now(client, cost)

    async def close(self) -> None:
        await self.client.aclose()


@dataclass
class Limits:
    """What the app holds: who clients are, their buckets, and the refusals counted."""

    identify: Identify
    store: Store
    refused: Counter[str] = field(default_factory=Counter)

    @property
    def enabled(self) -> bool:
        """Whether any request can be limited (if not, the app installs no middleware)."""
        anonymous = self.identify.anonymous
        return bool(
            anonymous.rate or anonymous.searches or self.identify.keys or self.identify.require_key
        )

    @property
    def store_up(self) -> bool | None:
        """None in memory; whether Redis answers, with a Redis store."""
        return self.store.up if isinstance(self.store, RedisBuckets) else None

    async def charge(self, client: Client, cost: int, state: dict[str, Any]) -> None:
        """Take ``cost`` units from the client's bucket, or raise the 429.

        ``state`` is the request's: what one request pays in all is capped at the
        bucket's size, so any request passes with a full bucket."""
        if not client.quota.rate:
            return
        spent = state.get("spent", 0)
        cost = max(0, min(cost, client.quota.burst - spent))
        verdict = await self.store.take(client, cost)
        state["rate_verdict"] = verdict
        if verdict.allowed:
            state["spent"] = spent + cost
        if not verdict.allowed:
            self.refused["rate"] += 1
            wait = max(1, math.ceil(verdict.retry_after))
            raise ProblemError(
                "rate-limited",
                f"this client's request rate is over its quota ({client.quota.burst} units, "
                f"{client.quota.rate:g} a second); retry in {wait} s",
                headers={"retry-after": str(wait)},
                reason="rate",
            )

    def too_many_searches(
        self, client: Client, typical_seconds: float, displaced: bool = False
    ) -> ProblemError:
        """The 429 for a client with its quota of searches running or waiting, or
        one whose waiting search gave its place in a full queue to another client's."""
        self.refused["concurrency"] += 1
        wait = max(1, math.ceil(typical_seconds))
        detail = (
            f"this client already has {client.quota.searches} searches running or waiting; "
            "wait for an answer before asking again"
        )
        if displaced:
            detail = (
                "the search queue is full and this client holds more of it than others: "
                "this waiting search gave its place to another client's"
            )
        return ProblemError(
            "rate-limited",
            detail,
            headers={"retry-after": str(wait)},
            reason="concurrency",
        )


def rate_limit_headers(client: Client, verdict: Verdict | None) -> list[tuple[bytes, bytes]]:
    """``RateLimit-Policy`` and ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers-10)."""
    quota = client.quota
    headers = []
    if quota.rate and verdict is not None:
        remaining = max(0, math.floor(verdict.remaining))
        reset = max(0, math.ceil(verdict.reset))
        headers.append((b"ratelimit", f"{quota.quoted_name};r={remaining};t={reset}".encode()))
    if quota.policy:
        headers.append((b"ratelimit-policy", quota.policy))
    return headers


class ClientLimits:
    """ASGI middleware on ``/v1``: identify the client, charge the door's unit, and
    add the rate limit headers to whatever the request is answered with.

    The client is left in ``scope["state"]["client"]`` for the solver and the
    access log."""

    def __init__(
        self,
        app: ASGIApp,
        limits: Limits,
        routes: Mapping[str, object],
        prefixes: Iterable[str] = ("/v1/",),
    ) -> None:
        self.app = app
        self.limits = limits
        self.routes = routes  # path -> route: a refusal here is still counted under its route
        self.prefixes = tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        try:
            client = self.limits.identify(scope)
            state["client"] = client
            await self.limits.charge(client, 1, state)
        except ProblemError as problem:
            route = self.routes.get(scope["path"])
            if route is not None:
                scope["route"] = route
            client = state.get("client")
            headers = dict(problem.headers)
            if client is not None:
                headers.update(
                    (k.decode(), v.decode())
                    for k, v in rate_limit_headers(client, state.get("rate_verdict"))
                )
            response = problem_response(
                problem.kind.slug,
                problem.detail,
                instance=scope["path"],
                headers=headers,
                extensions=problem.extensions,
            )
            await response(scope, receive, send)
            return

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", ()),
                    *rate_limit_headers(client, state.get("rate_verdict")),
                ]
            await send(message)

        await self.app(scope, receive, send_with_limits)

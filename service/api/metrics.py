"""Prometheus metrics: what operators watch, in one registry per app.

Owns metric names (base units, ``_total`` on counters, ``tictactoe_`` for the
service's own), labels and buckets. HTTP metrics are recorded by
``observe.py``, and request heads refused below the app by ``connection.py``
(through :meth:`Metrics.observe_refused_head`, which ``__main__`` hands it);
engine figures are read from :meth:`Engine.stats` at scrape time, so the
engine stays free of prometheus_client.

One process per container: no multiprocess mode. Running uvicorn with
``--workers N`` would give each worker its own registry and a scrape would see
one worker at random, so the service offers no workers option; scale with
replicas instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from service.api.connection import HEAD_REFUSALS
from service.api.limits import REASONS, Limits
from service.api.replay import AnswerCache, StoredAnswer
from service.api.solver import Admission
from service.engine import Difficulty, Engine, StopReason

# Sub-millisecond resolution for cached answers, up to the long searches.
HTTP_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
)
SEARCH_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
BATCH_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
# A search's board, by its longer side, in few classes: the exact core's boards,
# and two sizes of the big-board search's (gomoku's 15x15 and 20x20 in the last).
BOARD_SIZES = (("3-7", 7), ("8-12", 12), ("13-20", 20))
UNMATCHED_ROUTE = "unmatched"


class Metrics:
    def __init__(
        self,
        engine: Engine,
        replays: AnswerCache,
        admission: Admission | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.registry = registry = CollectorRegistry()
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)
        registry.register(_EngineCollector(engine, replays, admission))
        if limits is not None:
            registry.register(_LimitsCollector(limits))
        self.requests = Counter(
            "http_requests",
            "HTTP requests answered, by route template and status.",
            ["method", "route", "status"],
            registry=registry,
        )
        self.duration = Histogram(
            "http_request_duration_seconds",
            "Time from request start to last byte sent.",
            ["method", "route"],
            buckets=HTTP_BUCKETS,
            registry=registry,
        )
        self.in_flight = Gauge(
            "http_requests_in_flight", "HTTP requests being answered now.", registry=registry
        )
        # Below the app, so never in http_requests: a head over TTT_HEADER_LIMIT_BYTES
        # (431) or not complete within TTT_HEADER_TIMEOUT_SECONDS (408), counted by
        # the connection layer through observe_refused_head.
        self.heads_refused = Counter(
            "tictactoe_request_heads_refused",
            "Requests refused for their line and headers before reaching the app, "
            "by problem type: headers-too-large (431), headers-timeout (408).",
            ["reason"],
            registry=registry,
        )
        self.search_duration = Histogram(
            "tictactoe_search_duration_seconds",
            "Wall time of searches that ran, by the board's longer side: 3-7 (the exact "
            "core), 8-12 and 13-20 (the big-board search).",
            ["board"],
            buckets=SEARCH_BUCKETS,
            registry=registry,
        )
        self.moves = Counter(
            "tictactoe_moves_served",
            "Moves suggested, by difficulty.",
            ["difficulty"],
            registry=registry,
        )
        self.batch_size = Histogram(
            "tictactoe_batch_size",
            "Move requests per batch.",
            buckets=BATCH_BUCKETS,
            registry=registry,
        )
        self.startup_solve = Gauge(
            "tictactoe_startup_solve_seconds",
            "Time the start-up solve of 3x3 took.",
            registry=registry,
        )
        for level in Difficulty:
            self.moves.labels(level.value)
        for reason in HEAD_REFUSALS:
            self.heads_refused.labels(reason)
        for size, _ in BOARD_SIZES:
            self.search_duration.labels(size)

    def observe_refused_head(self, reason: str) -> None:
        """The connection layer refused a request's head (a reason of HEAD_REFUSALS)."""
        self.heads_refused.labels(reason).inc()

    def observe_search(
        self, nodes: int, seconds: float, stopped_by: StopReason | None, longest_side: int
    ) -> None:
        size = next(name for name, largest in BOARD_SIZES if longest_side <= largest)
        self.search_duration.labels(size).observe(seconds)

    def observe_batch(self, size: int, moves: Mapping[str, int]) -> None:
        """A batch of ``size`` requests that served ``moves`` by difficulty name."""
        self.batch_size.observe(size)
        for level, count in moves.items():
            self.moves.labels(level).inc(count)

    def observe_replay(self, answer: StoredAnswer) -> None:
        """A stored answer was sent again: count the move it carries."""
        if answer.difficulty is not None:
            self.moves.labels(answer.difficulty).inc()

    def exposition(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _LimitsCollector(Collector):
    """Refusals by reason, never by client (limits.py counts them), and the shared store."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def collect(self) -> Iterator[Metric]:
        refused = CounterMetricFamily(
            "tictactoe_requests_limited",
            "Requests refused with 429 by the per-client limits, by reason: rate (the "
            "client's bucket of work units was short) or concurrency (it had its share of "
            "searches running or waiting).",
            labels=["reason"],
        )
        for reason in REASONS:
            refused.add_metric([reason], self.limits.refused[reason])
        yield refused
        up = self.limits.store_up
        if up is not None:
            yield GaugeMetricFamily(
                "tictactoe_rate_limit_store_up",
                "1 while the shared store of rate limit buckets (Redis) answers; 0 while "
                "each replica limits on its own.",
                value=int(up),
            )


class _EngineCollector(Collector):
    """Engine and cache figures, read at scrape time."""

    def __init__(self, engine: Engine, replays: AnswerCache, admission: Admission | None) -> None:
        self.engine = engine
        self.replays = replays
        self.admission = admission

    def collect(self) -> Iterator[Metric]:
        stats = self.engine.stats()
        caches = [("positions", stats.positions), ("answers", stats.answers)]
        replayed = self.replays.stats()
        if replayed is not None:  # the answer cache of replay.py, unless turned off
            caches.append(("responses", replayed))
        families: list[tuple[str, str, str]] = [
            ("tictactoe_cache_hits", "Cache lookups that found an entry.", "hits"),
            ("tictactoe_cache_misses", "Cache lookups that found nothing.", "misses"),
            (
                "tictactoe_cache_evictions",
                "Entries dropped to keep the cache bounded.",
                "evictions",
            ),
        ]
        for name, documentation, field in families:
            family = CounterMetricFamily(name, documentation, labels=["cache"])
            for label, cache in caches:
                family.add_metric([label], getattr(cache, field))
            yield family
        entries = GaugeMetricFamily(
            "tictactoe_cache_entries", "Entries held now.", labels=["cache"]
        )
        capacity = GaugeMetricFamily(
            "tictactoe_cache_capacity_entries", "Entries the cache may hold.", labels=["cache"]
        )
        for label, cache in caches:
            entries.add_metric([label], cache.entries)
            capacity.add_metric([label], cache.max_entries)
        yield entries
        yield capacity
        yield CounterMetricFamily(
            "tictactoe_search_nodes", "Positions visited by searches.", value=stats.nodes
        )
        yield CounterMetricFamily(
            "tictactoe_searches", "Searches run (cache misses).", value=stats.searches
        )
        yield CounterMetricFamily(
            "tictactoe_searches_budget_exhausted",
            "Searches that ran out of node budget and answered with estimates.",
            value=stats.searches_exhausted,
        )
        yield CounterMetricFamily(
            "tictactoe_searches_deadline_exceeded",
            "Searches stopped by their wall-clock deadline, answered with estimates.",
            value=stats.searches_deadline,
        )
        yield GaugeMetricFamily(
            "tictactoe_table_bytes",
            "Bytes of the shared table of proven bounds (fixed at start-up).",
            value=stats.table_bytes,
        )
        if self.admission is not None:
            yield GaugeMetricFamily(
                "tictactoe_search_queue_waiting",
                "Searches admitted and waiting for a search thread.",
                value=len(self.admission.waiting),
            )
            yield GaugeMetricFamily(
                "tictactoe_searches_running",
                "Searches running now, each on a thread of its own.",
                value=len(self.admission.running),
            )

"""GET /metrics: Prometheus text that promtool accepts, with bounded labels."""

from __future__ import annotations

import logging
import math
import re
import subprocess
import sys
import threading
import time

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from service.app import create_app
from service.settings import Settings
from tests.heavy import LONG_BUDGET, heavy
from tests.ops.promtool import promtool
from tests.ops.waiting import ready, sample


@pytest.fixture(scope="module")
def scrape(client: TestClient) -> str:
    client.post("/v1/move", json={"board": "X...O...."})
    client.post("/v1/move", json={"board": "X...O....", "difficulty": "easy", "seed": 1})
    client.post("/v1/analysis", json=heavy())  # beyond the budget
    client.post("/v1/move", json={"moves": ["h8", "h9"], "time_limit_ms": 50})  # 15x15
    client.post("/v1/batch", json={"requests": [{"board": "........."}] * 3})
    for junk in ("/nope", "/wp-admin", "/a/b/c", "/v1/move/extra"):
        client.get(junk)
    client.request("BREW", "/v1/move")
    client.head("/livez")
    client.head("/v1/move?board=X...O....")
    client.head("/static/playground/app.js")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def test_promtool_accepts_the_exposition(scrape: str) -> None:
    result = subprocess.run(
        [promtool(), "check", "metrics"],
        input=scrape.encode(),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()


@pytest.mark.parametrize(
    "name",
    [
        "http_requests_total",
        "http_request_duration_seconds_bucket",
        "http_requests_in_flight",
        "tictactoe_request_heads_refused_total",
        "tictactoe_requests_limited_total",
        "tictactoe_cache_hits_total",
        "tictactoe_cache_misses_total",
        "tictactoe_cache_entries",
        "tictactoe_cache_evictions_total",
        "tictactoe_search_nodes_total",
        "tictactoe_search_duration_seconds_bucket",
        "tictactoe_searches_budget_exhausted_total",
        "tictactoe_moves_served_total",
        "tictactoe_batch_size_bucket",
        "tictactoe_startup_solve_seconds",
        "process_resident_memory_bytes",
        "python_info",
        "python_gc_collections_total",
    ],
)
def test_metric_is_exposed(scrape: str, name: str) -> None:
    assert re.search(rf"^{name}(\{{| )", scrape, re.MULTILINE), name


def _samples(scrape: str, name: str) -> dict[str, float]:
    pattern = re.compile(rf"^{name}\{{(.*)\}} (\S+)$", re.MULTILINE)
    return {labels: float(value) for labels, value in pattern.findall(scrape)}


def test_routes_are_templates_and_unmatched_paths_share_one_label(scrape: str) -> None:
    labels = _samples(scrape, "http_requests_total")
    routes = {re.search(r'route="([^"]*)"', key).group(1) for key in labels}  # type: ignore[union-attr]
    assert routes <= {
        "/v1/move",
        "/v1/analysis",
        "/v1/batch",
        "/livez",
        "/readyz",
        "/metrics",
        "/static/{path}",
        "unmatched",
    }
    assert 'method="GET",route="unmatched",status="404"' in labels
    assert labels['method="GET",route="unmatched",status="404"'] >= 4
    assert any('method="other"' in key for key in labels)


def test_head_is_counted_under_its_route_like_get() -> None:
    """On an app of its own, so that mutation testing credits the HEAD requests
    to this test (mutmut gives a module fixture's calls to one test only)."""
    with TestClient(create_app(Settings(node_budget=2_000))) as fresh:
        ready(fresh)
        fresh.head("/livez")
        fresh.head("/v1/move?board=X...O....")
        fresh.head("/static/playground/app.js")
        labels = _samples(fresh.get("/metrics").text, "http_requests_total")
    assert labels['method="HEAD",route="/livez",status="200"'] == 1
    assert labels['method="HEAD",route="/v1/move",status="200"'] == 1
    assert labels['method="HEAD",route="/static/{path}",status="200"'] == 1
    assert not any('method="HEAD",route="unmatched"' in key for key in labels)


def test_refused_heads_are_exported_by_reason_from_the_start(scrape: str) -> None:
    """Counted below the app (tests/ops/test_connection.py sends each kind), so the test
    client never moves them; both series exist at 0, for rate() and the alert."""
    assert _samples(scrape, "tictactoe_request_heads_refused_total") == {
        'reason="headers-too-large"': 0.0,
        'reason="headers-timeout"': 0.0,
    }


def test_engine_figures_move(scrape: str) -> None:
    moves = _samples(scrape, "tictactoe_moves_served_total")
    assert moves['difficulty="perfect"'] >= 4 and moves['difficulty="easy"'] >= 1
    assert _samples(scrape, "tictactoe_cache_hits_total")['cache="answers"'] >= 1
    exhausted = re.search(r"^tictactoe_searches_budget_exhausted_total (\S+)$", scrape, re.M)
    assert exhausted and float(exhausted.group(1)) >= 1
    solve = re.search(r"^tictactoe_startup_solve_seconds (\S+)$", scrape, re.M)
    assert solve and float(solve.group(1)) > 0
    assert re.search(r"^tictactoe_batch_size_count 1\.0$", scrape, re.M)


def test_startup_solve_seconds_lie_within_the_start_up() -> None:
    """The gauge is the solve's duration, in seconds: more than nothing, and no more
    than the time from building the app to its first ready answer, measured here
    (a figure in milliseconds, or a clock reading, would be far more)."""
    started = time.perf_counter()
    app = create_app(Settings())
    with TestClient(app) as fresh:
        ready(fresh)
        window = time.perf_counter() - started
        solve = sample(fresh.get("/metrics").text, "tictactoe_startup_solve_seconds")
    assert 0 < solve <= window


def test_duration_buckets_resolve_sub_millisecond_handlers(scrape: str) -> None:
    buckets = re.findall(r'http_request_duration_seconds_bucket\{le="([^"]+)"', scrape)
    bounds = sorted({float(b) for b in buckets if b != "+Inf"})
    assert bounds[0] <= 0.0001 and 1.0 <= bounds[-1] <= 10


def test_searches_are_timed_by_board_size(scrape: str) -> None:
    """Three classes of the longer side, each there from the start: 3-7 (the
    exact core), 8-12 and 13-20 (the big-board search)."""
    counts = _samples(scrape, "tictactoe_search_duration_seconds_count")
    assert set(counts) == {'board="3-7"', 'board="8-12"', 'board="13-20"'}
    assert counts['board="3-7"'] >= 1 and counts['board="13-20"'] == 1
    assert counts['board="8-12"'] == 0


def test_engine_gauges_have_their_values(client: TestClient, scrape: str) -> None:
    stats = client.app.state.engine.stats()  # type: ignore[attr-defined]
    assert sample(scrape, "tictactoe_table_bytes") == stats.table_bytes > 0
    # Scraped between requests: nothing runs, nothing waits.
    assert sample(scrape, "tictactoe_searches_running") == 0
    assert sample(scrape, "tictactoe_search_queue_waiting") == 0


def test_a_running_and_a_waiting_search_are_counted_while_they_last() -> None:
    """One search thread, two searches that each think for a second: while the
    first runs, the second waits, and the gauges say so (read until they do,
    while the searches last). Both end at their deadline, and are counted so."""
    settings = Settings(search_threads=1, search_queue=4, node_budget=LONG_BUDGET)
    with TestClient(create_app(settings)) as one_thread:
        statuses: list[int] = []

        def search(i: int) -> None:
            body = {**heavy(i), "time_limit_ms": 1_000}
            statuses.append(one_thread.post("/v1/analysis", json=body).status_code)

        workers = [threading.Thread(target=search, args=(i,)) for i in range(2)]
        for worker in workers:
            worker.start()
        seen = set()
        while any(worker.is_alive() for worker in workers):
            text = one_thread.get("/metrics").text
            seen.add(
                (
                    sample(text, "tictactoe_searches_running"),
                    sample(text, "tictactoe_search_queue_waiting"),
                )
            )
            if (1, 1) in seen:
                break
        for worker in workers:
            worker.join()
        after = one_thread.get("/metrics").text
    assert (1, 1) in seen, seen
    assert statuses == [200, 200]
    assert sample(after, "tictactoe_searches_deadline_exceeded_total") == 2
    assert sample(after, "tictactoe_searches_running") == 0
    assert sample(after, "tictactoe_search_queue_waiting") == 0


# The service's metric families as dashboards and alerts read them: name, type,
# help text and label names (the exposition is an interface).
FAMILIES = {
    "http_requests": (
        "counter",
        "HTTP requests answered, by route template and status.",
        ("method", "route", "status"),
    ),
    "http_request_duration_seconds": (
        "histogram",
        "Time from request start to last byte sent.",
        ("le", "method", "route"),
    ),
    "http_requests_in_flight": ("gauge", "HTTP requests being answered now.", ()),
    "tictactoe_request_heads_refused": (
        "counter",
        "Requests refused for their line and headers before reaching the app, by problem "
        "type: headers-too-large (431), headers-timeout (408).",
        ("reason",),
    ),
    "tictactoe_requests_limited": (
        "counter",
        "Requests refused with 429 by the per-client limits, by reason: rate (the client's "
        "bucket of work units was short) or concurrency (it had its share of searches "
        "running or waiting).",
        ("reason",),
    ),
    "tictactoe_search_duration_seconds": (
        "histogram",
        "Wall time of searches that ran, by the board's longer side: 3-7 (the exact core), "
        "8-12 and 13-20 (the big-board search).",
        ("board", "le"),
    ),
    "tictactoe_moves_served": ("counter", "Moves suggested, by difficulty.", ("difficulty",)),
    "tictactoe_batch_size": ("histogram", "Move requests per batch.", ("le",)),
    "tictactoe_startup_solve_seconds": ("gauge", "Time the start-up solve of 3x3 took.", ()),
    "tictactoe_cache_hits": ("counter", "Cache lookups that found an entry.", ("cache",)),
    "tictactoe_cache_misses": ("counter", "Cache lookups that found nothing.", ("cache",)),
    "tictactoe_cache_evictions": (
        "counter",
        "Entries dropped to keep the cache bounded.",
        ("cache",),
    ),
    "tictactoe_cache_entries": ("gauge", "Entries held now.", ("cache",)),
    "tictactoe_cache_capacity_entries": ("gauge", "Entries the cache may hold.", ("cache",)),
    "tictactoe_search_nodes": ("counter", "Positions visited by searches.", ()),
    "tictactoe_searches": ("counter", "Searches run (cache misses).", ()),
    "tictactoe_searches_budget_exhausted": (
        "counter",
        "Searches that ran out of node budget and answered with estimates.",
        (),
    ),
    "tictactoe_searches_deadline_exceeded": (
        "counter",
        "Searches stopped by their wall-clock deadline, answered with estimates.",
        (),
    ),
    "tictactoe_table_bytes": (
        "gauge",
        "Bytes of the shared table of proven bounds (fixed at start-up).",
        (),
    ),
    "tictactoe_search_queue_waiting": (
        "gauge",
        "Searches admitted and waiting for a search thread.",
        (),
    ),
    "tictactoe_searches_running": (
        "gauge",
        "Searches running now, each on a thread of its own.",
        (),
    ),
}


def test_the_families_have_their_names_types_help_and_labels() -> None:
    """On an app of its own, built in the test (what is set up when the app is
    built is then this test's, for mutation testing too)."""
    app = create_app(Settings(node_budget=2_000))
    with TestClient(app) as client:
        ready(client)
        client.post("/v1/move", json={"board": "X...O...."})
        client.post("/v1/batch", json={"requests": [{"board": "X...O...."}] * 3})
        scrape = client.get("/metrics").text
    found = {}
    values: dict[str, dict[str, set[str]]] = {}
    for family in text_string_to_metric_families(scrape):
        if not family.name.startswith(("http_", "tictactoe_")) or family.name.endswith("_created"):
            continue
        names = set().union(*(sample.labels for sample in family.samples))
        found[family.name] = (family.type, family.documentation, tuple(sorted(names)))
        values[family.name] = {
            name: {sample.labels[name] for sample in family.samples if name in sample.labels}
            for name in names
        }
    assert found == FAMILIES
    # One series per cache (the shared table's positions, the engine's answers,
    # the replayed responses); both refusal reasons from the start; the batch
    # buckets from 1 to 1000.
    for name, (_, _, labels) in FAMILIES.items():
        if "cache" in labels:
            assert values[name]["cache"] == {"answers", "positions", "responses"}, name
    assert values["tictactoe_request_heads_refused"]["reason"] == {
        "headers-too-large",
        "headers-timeout",
    }
    assert values["tictactoe_requests_limited"]["reason"] == {"rate", "concurrency"}
    buckets = {float(le) for le in values["tictactoe_batch_size"]["le"]}
    assert buckets == {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, math.inf}


@pytest.mark.parametrize(
    ("level", "logged"), [("info", logging.INFO), ("warning", logging.WARNING)]
)
def test_the_access_log_is_one_bare_json_line_per_request_on_stdout(
    level: str, logged: int
) -> None:
    """configure_access_log: the line is the message alone (a JSON object), on
    stdout, not passed on to the root logger (no second copy), at INFO only when
    the log level asks for it; configured once."""
    from service.api.observe import access_log, configure_access_log  # noqa: PLC0415

    handlers, kept_level, propagate = access_log.handlers[:], access_log.level, access_log.propagate
    access_log.handlers.clear()
    try:
        configure_access_log(level)
        configure_access_log("debug")  # once configured, left as it is
        [handler] = access_log.handlers
        assert isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout
        record = access_log.makeRecord("service.access", logging.INFO, "", 0, '{"a":1}', (), None)
        assert handler.format(record) == '{"a":1}'
        assert access_log.level == logged and access_log.propagate is False
    finally:
        access_log.handlers[:] = handlers
        access_log.setLevel(kept_level)
        access_log.propagate = propagate

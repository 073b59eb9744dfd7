"""The Grafana dashboard, and every metric that it and the alerts query.

The dashboard (k8s/monitoring/tictactoe-service-dashboard.json) must be one
valid dashboard with a row for each thing operators watch, reading its data
source and its namespace and pod variables, in valid PromQL. Then a live
server (``python -m service``) is scraped: every metric that a panel, a
dashboard variable or an alert (k8s/monitoring/prometheusrule.yaml) reads must
be one the service exports, with every label the queries match on. The only
exceptions are the cluster's own series, listed in ``CLUSTER_METRICS``.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.ops.promql import Selector, selectors, variable_query_selectors
from tests.ops.promtool import promtool
from tests.server import free_port, running_server

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "k8s" / "monitoring" / "tictactoe-service-dashboard.json"
RULES = ROOT / "k8s" / "monitoring" / "prometheusrule.yaml"
OPERATIONS = ROOT / "docs" / "operations.md"
JOB = "tictactoe-service"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}

# Series that come from the cluster, not from the service: Prometheus' own
# `up`, and kube-state-metrics' replicas, readiness, restarts and limits.
# Kept short; docs/operations.md names each one.
CLUSTER_METRICS = frozenset(
    {
        "up",
        "kube_deployment_status_replicas_available",
        "kube_pod_status_ready",
        "kube_pod_container_status_restarts_total",
        "kube_pod_container_resource_limits",
    }
)
# Labels Prometheus adds to the service's series when it scrapes them (the
# target's labels, from the ServiceMonitor); /metrics itself has none of them.
TARGET_LABELS = frozenset(
    {"job", "instance", "namespace", "pod", "service", "container", "endpoint"}
)

# What issue 12 asks the dashboard to show: a row each, and the metrics the
# row's panels must read (issue 20 adds the heads refused below the app, the
# per-client limits add their refusals and their shared store).
REQUIRED_ROWS = {
    "Requests": {"http_requests_total", "tictactoe_request_heads_refused_total"},
    "Latency": {"http_request_duration_seconds_bucket", "tictactoe_search_duration_seconds_bucket"},
    "In flight and queue": {"http_requests_in_flight", "tictactoe_search_queue_waiting"},
    "Caches": {"tictactoe_cache_hits_total", "tictactoe_cache_misses_total"},
    "Search": {
        "tictactoe_search_nodes_total",
        "tictactoe_searches_total",
        "tictactoe_searches_budget_exhausted_total",
        "tictactoe_searches_deadline_exceeded_total",
    },
    "Batches": {"tictactoe_batch_size_bucket"},
    "Process": {"process_resident_memory_bytes", "process_cpu_seconds_total"},
    "Rate limits": {"tictactoe_requests_limited_total", "tictactoe_rate_limit_store_up"},
}


# --- Reading the dashboard and the rules --------------------------------------


def dashboard() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return document


def rows() -> dict[str, list[dict[str, Any]]]:
    """Row title -> its panels, in Grafana's layout (a row owns the panels after it)."""
    by_row: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for panel in dashboard()["panels"]:
        if panel["type"] == "row":
            assert panel["title"] not in by_row, f"two rows titled {panel['title']}"
            current = by_row[panel["title"]] = list(panel.get("panels", []))
        else:
            assert current is not None, f"panel {panel['title']} before the first row"
            current.append(panel)
    return by_row


def panels() -> list[dict[str, Any]]:
    return [panel for row in rows().values() for panel in row]


def panel_queries() -> list[tuple[str, str]]:
    """(where, expr) for every panel target."""
    return [
        (f"panel {panel['title']!r} {target['refId']}", target["expr"])
        for panel in panels()
        for target in panel["targets"]
    ]


def variable_queries() -> list[tuple[str, str]]:
    return [
        (f"variable {variable['name']}", variable["query"]["query"])
        for variable in dashboard()["templating"]["list"]
        if variable["type"] == "query"
    ]


def alert_queries() -> list[tuple[str, str]]:
    with RULES.open() as stream:
        spec = yaml.safe_load(stream)["spec"]
    return [
        (f"alert {rule['alert']}", rule["expr"])
        for group in spec["groups"]
        for rule in group["rules"]
    ]


def queried() -> list[tuple[str, Selector]]:
    """(where, selector) for every metric read anywhere, dashboard and alerts."""
    found = [
        (where, s) for where, expr in panel_queries() + alert_queries() for s in selectors(expr)
    ]
    found += [
        (where, s) for where, query in variable_queries() for s in variable_query_selectors(query)
    ]
    return found


QUERIED_METRICS = sorted({selector.metric for _, selector in queried()})
SERVICE_METRICS = [name for name in QUERIED_METRICS if name not in CLUSTER_METRICS]


# --- The dashboard ------------------------------------------------------------


def test_the_dashboard_is_one_grafana_dashboard_with_a_stable_uid() -> None:
    document = dashboard()
    assert document["uid"] == JOB and document["title"] == JOB
    assert isinstance(document["schemaVersion"], int)
    nested = [p for row in document["panels"] if row["type"] == "row" for p in row["panels"]]
    ids = [panel["id"] for panel in document["panels"] + nested]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for panel in panels():
        assert panel["type"] == "timeseries" and panel["targets"], panel["title"]
        ref_ids = [target["refId"] for target in panel["targets"]]
        assert len(ref_ids) == len(set(ref_ids)), panel["title"]
        assert all(target["expr"].strip() for target in panel["targets"]), panel["title"]
        assert panel["fieldConfig"]["defaults"]["unit"], f"{panel['title']}: no unit"


def test_panels_do_not_overlap_on_the_24_column_grid() -> None:
    boxes = [(p["title"], p["gridPos"]) for p in dashboard()["panels"]]
    for title, box in boxes:
        assert box["x"] >= 0 and box["w"] > 0 and box["x"] + box["w"] <= 24, title
    for index, (title, a) in enumerate(boxes):
        for other, b in boxes[index + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart, f"{title!r} overlaps {other!r}"


def test_panels_read_the_data_source_variable() -> None:
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    for panel in panels():
        assert panel["datasource"] == DATASOURCE, panel["title"]
        for target in panel["targets"]:
            assert target["datasource"] == DATASOURCE, panel["title"]
    for name in ("namespace", "pod"):
        assert variables[name]["datasource"] == DATASOURCE, name
    assert variables["pod"]["includeAll"] and variables["pod"]["allValue"] == ".*"


def test_panels_follow_the_namespace_and_pod_variables() -> None:
    for where, expr in panel_queries():
        for selector in selectors(expr):
            assert selector.value_of("namespace") == "$namespace", (where, selector)
            if selector.metric in CLUSTER_METRICS:
                continue
            assert selector.value_of("job") == JOB, (where, selector)
            pods = [m for m in selector.matchers if m.label == "pod"]
            assert [(m.op, m.value) for m in pods] == [("=~", "$pod")], (where, selector)


@pytest.mark.parametrize(("row", "metrics"), sorted(REQUIRED_ROWS.items()))
def test_the_dashboard_has_a_row_for(row: str, metrics: set[str]) -> None:
    by_row = rows()
    assert row in by_row, f"no row {row!r}; rows: {sorted(by_row)}"
    read = {
        selector.metric
        for panel in by_row[row]
        for target in panel["targets"]
        for selector in selectors(target["expr"])
    }
    assert metrics <= read, f"row {row!r} reads none of {sorted(metrics - read)}"


def row_expressions(row: str) -> list[str]:
    return [target["expr"] for panel in rows()[row] for target in panel["targets"]]


def test_requests_are_split_by_route_with_errors_apart() -> None:
    expressions = row_expressions("Requests")
    assert any("by (route)" in e for e in expressions)
    assert any('status=~"4..|5.."' in e and "by (route, status)" in e for e in expressions)
    assert any('status=~"5.."' in e for e in expressions)
    assert any('status="503"' in e for e in expressions)
    refused = [e for e in expressions if "tictactoe_request_heads_refused_total" in e]
    assert refused and all("by (reason)" in e for e in refused)


def test_rate_limit_refusals_are_split_by_reason_and_the_store_by_pod() -> None:
    expressions = row_expressions("Rate limits")
    refused = [e for e in expressions if "tictactoe_requests_limited_total" in e]
    assert any("by (reason)" in e for e in refused)
    store = [e for e in expressions if "tictactoe_rate_limit_store_up" in e]
    assert store and all("by (pod)" in e for e in store)


def test_latency_shows_p50_p90_and_p99_by_route() -> None:
    http = [e for e in row_expressions("Latency") if "http_request_duration_seconds_bucket" in e]
    quantiles = {q for e in http for q in re.findall(r"histogram_quantile\(([\d.]+),", e)}
    assert quantiles == {"0.5", "0.9", "0.99"}
    assert all("by (le, route)" in e for e in http)


def test_cache_hit_ratio_divides_hits_by_lookups() -> None:
    ratios = [
        e
        for e in row_expressions("Caches")
        if "/" in e and "tictactoe_cache_hits_total" in e.split("/", 1)[0]
    ]
    assert ratios, "no hit ratio in the Caches row"
    denominator = ratios[0].split("/", 1)[1]
    assert "tictactoe_cache_hits_total" in denominator
    assert "tictactoe_cache_misses_total" in denominator


def grafana_free(expr: str) -> str:
    """``expr`` with Grafana's variables replaced by values PromQL accepts."""
    expr = re.sub(r"\$__\w+", "5m", expr)
    return re.sub(r"\$\{\w+\}|\$\w+", "x", expr)


def test_every_query_is_valid_promql(tmp_path: Path) -> None:
    # promtool parses each expression as a recording rule's.
    expressions = [expr for _, expr in panel_queries()]
    for _, query in variable_queries():
        inner = re.fullmatch(r"label_values\((.*),\s*\w+\)", query, re.DOTALL)
        assert inner, query
        expressions.append(inner.group(1))
    rules = [
        {"record": f"dashboard:query_{index}", "expr": grafana_free(expr)}
        for index, expr in enumerate(expressions)
    ]
    path = tmp_path / "dashboard.rules.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(
        [promtool(), "check", "rules", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert f"SUCCESS: {len(rules)} rules found" in report, report


# --- Against a live server ----------------------------------------------------


def exported_series(exposition: str) -> dict[str, set[str]]:
    """Sample name -> the label names its samples carry, from Prometheus text.

    >>> series = exported_series('# HELP a x\\na_total{b="1",c="}"} 2.0\\nd 1\\n')
    >>> {name: sorted(labels) for name, labels in series.items()}
    {'a_total': ['b', 'c'], 'd': []}
    """
    series: dict[str, set[str]] = {}
    for line in exposition.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.match(r"([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+\S+", line)
        assert match, f"not a sample line: {line}"
        labels = re.findall(r'([A-Za-z_]\w*)="(?:[^"\\]|\\.)*"', match.group(2) or "")
        series.setdefault(match.group(1), set()).update(labels)
    return series


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, set[str]]]:
    logs = tmp_path_factory.mktemp("dashboard-server")
    # A Redis store where nothing listens: the server exports the store's
    # gauge only with a Redis store, and answers with per-replica limits
    # while Redis cannot be reached.
    store = f"redis://127.0.0.1:{free_port()}/0"
    with running_server(logs, TTT_NODE_BUDGET="2000", TTT_RATE_LIMIT_STORE=store) as server:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            client.post("/v1/move", json={"board": "X...O...."})
            client.get("/v1/move", params={"board": "X...O....", "difficulty": "easy"})
            client.post("/v1/analysis", json={"board": "." * 25, "k": 4})  # a search
            client.post("/v1/batch", json={"requests": [{"board": "XO../..../..../...."}] * 2})
            client.get("/nope")
            response = client.get("/metrics")
        assert response.status_code == 200, response.text
        yield exported_series(response.text)


@pytest.mark.server
@pytest.mark.parametrize("metric", SERVICE_METRICS)
def test_queried_metric_is_exported_with_the_labels_queried(
    metric: str, exported: dict[str, set[str]]
) -> None:
    uses = [(where, s) for where, s in queried() if s.metric == metric]
    readers = sorted({where for where, _ in uses})
    assert metric in exported, f"/metrics of a live server has no {metric}, read by {readers}"
    for where, selector in uses:
        matched = {m.label for m in selector.matchers}
        unknown = matched - exported[metric] - TARGET_LABELS
        assert not unknown, f"{where} matches {metric} on {sorted(unknown)}, which it lacks"


@pytest.mark.server
def test_cluster_metrics_are_few_used_named_in_the_docs_and_not_the_services(
    exported: dict[str, set[str]],
) -> None:
    docs = OPERATIONS.read_text()
    for name in sorted(CLUSTER_METRICS):
        assert name == "up" or name.startswith("kube_"), name
        assert name in QUERIED_METRICS, f"{name} is allowed but nothing reads it"
        assert name not in exported, f"{name} is the service's own: check it against /metrics"
        assert f"`{name}`" in docs, f"{OPERATIONS.name} does not name {name}"
    assert SERVICE_METRICS, "nothing to check against the live server"

"""tests/ops/promql.py reads the metric names out of PromQL, or refuses to."""

from __future__ import annotations

import pytest

from tests.ops.promql import Matcher, Selector, metric_names, selectors, variable_query_selectors


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("up == 0", {"up"}),
        ('rate(http_requests_total{status=~"5.."}[5m])', {"http_requests_total"}),
        ("histogram_quantile(0.99, sum by (le, route) (rate(h_bucket[5m])))", {"h_bucket"}),
        ("sum without (le) (a) / on (ns) group_left (pod) b", {"a", "b"}),
        ("a * ignoring (x) group_right b", {"a", "b"}),
        ("a > bool 1e3 or b offset 5m", {"a", "b"}),
        ("a offset -5m unless b @ 1609746000", {"a", "b"}),
        ("c @ start() and d @ end()", {"c", "d"}),
        ('count_values("le", c{le="1"})', {"c"}),
        ('label_replace(d, "x", "$1", "y", "(.*)")', {"d"}),
        ('rate(e[$__rate_interval]) * on(pod) group_left f{pod=~"$pod"}', {"e", "f"}),
        ('sum by(route)(rate(n{a=~"${x}"}[${i}]))', {"n"}),
        ('sum by (route) (rate(g{a="}{ by (x)"}[5m]))', {"g"}),
        ("vector(0) + scalar(h) + time()", {"h"}),
        ("SUM(i) AND j OR Inf", {"i", "j"}),
        ("max_over_time(l[1h:5m])", {"l"}),
        ("topk(3, m) + quantile(0.9, n) - atan2 o", {"m", "n", "o"}),
        ('m{a="x",}', {"m"}),
        ("namespace:rate5m:sum", {"namespace:rate5m:sum"}),
        ("sum(rate(x[5m])) / sum(rate(x[5m]))", {"x"}),
    ],
)
def test_metric_names(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


@pytest.mark.parametrize(
    "expr",
    [
        '{__name__="x"}',  # the name is a label value: cannot be checked
        '{job="x"}',  # every metric of a job
        "a{b}",  # not a matcher
    ],
)
def test_unreadable_expressions_are_refused(expr: str) -> None:
    with pytest.raises(ValueError):
        metric_names(expr)


def test_selectors_keep_matchers_in_order() -> None:
    expr = 'sum(rate(a{job="x", route!~"/livez|/readyz"}[5m])) / b{c!="d", e="$pod"}'
    assert selectors(expr) == [
        Selector("a", (Matcher("job", "=", "x"), Matcher("route", "!~", "/livez|/readyz"))),
        Selector("b", (Matcher("c", "!=", "d"), Matcher("e", "=", "$pod"))),
    ]
    assert selectors(expr)[0].value_of("job") == "x"
    assert selectors(expr)[0].value_of("route") is None  # not an equality


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ('label_values(http_requests_total{job="a"}, namespace)', ["http_requests_total"]),
        ("query_result(sum by (pod) (rate(x[5m])))", ["x"]),
    ],
)
def test_variable_queries(query: str, names: list[str]) -> None:
    assert [s.metric for s in variable_query_selectors(query)] == names


@pytest.mark.parametrize("query", ["label_values(pod)", "metrics(tictactoe_.*)", "x"])
def test_variable_queries_that_read_no_named_metric_are_refused(query: str) -> None:
    with pytest.raises(ValueError):
        variable_query_selectors(query)

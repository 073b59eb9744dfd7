"""The metrics a PromQL expression reads, for tests that compare them with a scrape.

Not a PromQL parser (promtool checks the syntax): a reader that knows enough of
the grammar to tell a metric name from a function, an operator keyword, a label
name in ``by (...)``, a string, a duration or a number, and that fails rather
than guess on the forms it cannot read (``{__name__=...}``, a selector with no
metric name). It also reads Grafana's variables (``$pod``, ``${pod}``,
``$__rate_interval``) and the two variable queries a dashboard here may use,
``label_values(<selector>, <label>)`` and ``query_result(<expr>)``.

>>> sorted(metric_names('sum by (le) (rate(x_bucket{a="}"}[5m])) / on (a) y'))
['x_bucket', 'y']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Operator keywords and aggregations (PromQL keywords are case-insensitive).
KEYWORDS = frozenset(
    {
        "and",
        "or",
        "unless",
        "atan2",
        "bool",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "offset",
        "inf",
        "nan",
        "sum",
        "min",
        "max",
        "avg",
        "group",
        "stddev",
        "stdvar",
        "count",
        "count_values",
        "bottomk",
        "topk",
        "quantile",
        "limitk",
        "limit_ratio",
    }
)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_GRAFANA_VARIABLE = re.compile(r"\$\{[^}]*\}|\$\w+")
_RANGE = re.compile(r"\[[^\]]*\]")
_SELECTOR = re.compile(r"(?<![\w:.])([A-Za-z_:][\w:]*)\s*\{([^}]*)\}")
_MATCHER = re.compile(r"\s*([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*\"(\d+)\"\s*(?:,|$)")
_LABEL_LIST = re.compile(
    r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", re.IGNORECASE
)
_MODIFIER = re.compile(r"\boffset\s+-?[\w.]+|@\s*(?:start\(\)|end\(\)|[\d.]+)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"(?<![\w:.])[A-Za-z_:][\w:]*(?![\w:])")
_LABEL_VALUES = re.compile(r"\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*", re.DOTALL)
_QUERY_RESULT = re.compile(r"\s*query_result\((.*)\)\s*", re.DOTALL)


@dataclass(frozen=True)
class Matcher:
    label: str
    op: str
    value: str


@dataclass(frozen=True)
class Selector:
    """One metric an expression reads, with its label matchers."""

    metric: str
    matchers: tuple[Matcher, ...] = ()

    def value_of(self, label: str) -> str | None:
        """The value an equality matcher requires of ``label``, if any."""
        for matcher in self.matchers:
            if matcher.label == label and matcher.op == "=":
                return matcher.value
        return None


def selectors(expr: str) -> list[Selector]:
    """Every metric ``expr`` reads, in order, with its matchers.

    >>> selectors('rate(a{job="x", route!~"/livez|/readyz"}[5m]) > bool 1e3 or b offset 5m')
    ... # doctest: +NORMALIZE_WHITESPACE
    [Selector(metric='a', matchers=(Matcher(label='job', op='=', value='x'),
                                    Matcher(label='route', op='!~', value='/livez|/readyz'))),
     Selector(metric='b', matchers=())]
    """
    if "__name__" in expr:
        raise ValueError(f"a metric chosen by __name__ cannot be read: {expr}")
    strings: list[str] = []

    def hide(match: re.Match[str]) -> str:
        strings.append(match.group(0)[1:-1])
        return f'"{len(strings) - 1}"'

    # Strings first: they may hold anything, braces and keywords included.
    text = _STRING.sub(hide, expr)
    text = _GRAFANA_VARIABLE.sub("", text)
    text = _RANGE.sub("", text)
    found: list[tuple[int, Selector]] = []

    def take(match: re.Match[str]) -> str:
        body = match.group(2)
        matchers = []
        position = 0
        while body[position:].strip():
            matcher = _MATCHER.match(body, position)
            if matcher is None:
                raise ValueError(f"cannot read the matchers {{{body}}} in: {expr}")
            label, op, index = matcher.groups()
            matchers.append(Matcher(label, op, strings[int(index)]))
            position = matcher.end()
        found.append((match.start(), Selector(match.group(1), tuple(matchers))))
        return " " * len(match.group(0))  # keep positions for the ordering

    text = _SELECTOR.sub(take, text)
    if "{" in text:
        raise ValueError(f"a selector without a metric name cannot be read: {expr}")
    text = _LABEL_LIST.sub(lambda m: " " * len(m.group(0)), text)
    text = _MODIFIER.sub(lambda m: " " * len(m.group(0)), text)
    for match in _IDENTIFIER.finditer(text):
        name = match.group(0)
        is_call = text[match.end() :].lstrip().startswith("(")
        if is_call or name.lower() in KEYWORDS:
            continue
        found.append((match.start(), Selector(name)))
    return [selector for _, selector in sorted(found, key=lambda pair: pair[0])]


def metric_names(expr: str) -> set[str]:
    """The names of the metrics ``expr`` reads.

    >>> sorted(metric_names("histogram_quantile(0.99, sum by (le, route) (rate(h_bucket[5m])))"))
    ['h_bucket']
    """
    return {selector.metric for selector in selectors(expr)}


def variable_query_selectors(query: str) -> list[Selector]:
    """The metrics a Grafana variable's Prometheus query reads.

    >>> variable_query_selectors('label_values(up{job="a"}, pod)')
    [Selector(metric='up', matchers=(Matcher(label='job', op='=', value='a'),))]
    """
    for form in (_LABEL_VALUES, _QUERY_RESULT):
        match = form.fullmatch(query)
        if match:
            return selectors(match.group(1))
    raise ValueError(f"not label_values(<selector>, <label>) nor query_result(<expr>): {query}")

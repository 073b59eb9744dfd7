"""The alerts of k8s/monitoring/prometheusrule.yaml: promtool's checks and unit tests.

The PrometheusRule is the only copy of the rules. promtool reads plain rule
files, and a PrometheusRule's ``spec`` is one (``groups:``), so each test
writes that spec to ``rules.yaml`` in a temporary folder, beside a copy of the
unit tests of ``alerts.test.yaml`` (one test group per alert, named after it),
and runs promtool there. Nothing is generated into the repository, so there is
nothing to drift.
"""

from __future__ import annotations

import copy
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ops.promql import selectors
from tests.ops.promtool import promtool

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "k8s" / "monitoring" / "prometheusrule.yaml"
SERVICE_MONITOR = ROOT / "k8s" / "monitoring" / "servicemonitor.yaml"
SERVICE = ROOT / "k8s" / "service.yaml"
UNIT_TESTS = Path(__file__).with_name("alerts.test.yaml")
RUNBOOK = ROOT / "docs" / "operations.md"
RUNBOOK_HEADING = "## Alerts and runbook"


def load(path: Path) -> Any:
    with path.open() as stream:
        return yaml.safe_load(stream)


def rule_groups() -> dict[str, Any]:
    spec: dict[str, Any] = load(RULES)["spec"]
    return spec


def alerting_rules() -> list[dict[str, Any]]:
    return [rule for group in rule_groups()["groups"] for rule in group["rules"] if "alert" in rule]


ALERTS = [rule["alert"] for rule in alerting_rules()]


def unit_tests() -> dict[str, Any]:
    suite: dict[str, Any] = load(UNIT_TESTS)
    return suite


def unit_test_group(name: str) -> dict[str, Any]:
    (group,) = [g for g in unit_tests()["tests"] if g.get("name") == name]
    return group


def run_promtool(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [promtool(), *args], cwd=folder, capture_output=True, text=True, timeout=60, check=False
    )


def write_suite(folder: Path, groups: list[dict[str, Any]]) -> Path:
    """rules.yaml from the PrometheusRule, and a unit-test file holding ``groups``."""
    with (folder / "rules.yaml").open("w") as stream:
        yaml.safe_dump(rule_groups(), stream, sort_keys=False)
    suite = {**unit_tests(), "tests": groups}
    assert suite["rule_files"] == ["rules.yaml"]
    path = folder / "alerts.test.yaml"
    with path.open("w") as stream:
        yaml.safe_dump(suite, stream, sort_keys=False)
    return path


def output(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def test_promtool_checks_the_rules(tmp_path: Path) -> None:
    write_suite(tmp_path, [])
    result = run_promtool(tmp_path, "check", "rules", "rules.yaml")
    assert result.returncode == 0, output(result)
    assert f"SUCCESS: {len(ALERTS)} rules found" in result.stdout, output(result)


@pytest.mark.parametrize("alert", ALERTS)
def test_alert_passes_its_unit_tests(alert: str, tmp_path: Path) -> None:
    suite = write_suite(tmp_path, [unit_test_group(alert)])
    result = run_promtool(tmp_path, "test", "rules", suite.name)
    assert result.returncode == 0, output(result)
    assert "SUCCESS" in result.stdout, output(result)


@pytest.mark.parametrize("alert", ALERTS)
def test_unit_tests_fail_when_a_firing_case_is_not_expected(alert: str, tmp_path: Path) -> None:
    # The harness can fail: expecting silence where the group expects the
    # alert must make promtool report it.
    group = copy.deepcopy(unit_test_group(alert))
    for case in group["alert_rule_test"]:
        case["exp_alerts"] = []
    suite = write_suite(tmp_path, [group])
    result = run_promtool(tmp_path, "test", "rules", suite.name)
    assert result.returncode != 0, output(result)
    assert f"alertname: {alert}" in result.stdout + result.stderr, output(result)


def test_each_alert_has_one_test_group_that_fires_and_stays_silent() -> None:
    groups = unit_tests()["tests"]
    names = [group.get("name") for group in groups]
    assert sorted(names) == sorted(ALERTS), "one test group per alert, named after it"
    for group in groups:
        cases = group["alert_rule_test"]
        assert {case["alertname"] for case in cases} == {group["name"]}, group["name"]
        assert any(case["exp_alerts"] for case in cases), f"{group['name']}: nothing fires"
        assert any(not case["exp_alerts"] for case in cases), (
            f"{group['name']}: no case where the alert must not fire"
        )


def runbook_rows() -> dict[str, str]:
    """Alert name -> its row in the runbook table of docs/operations.md."""
    text = RUNBOOK.read_text()
    assert RUNBOOK_HEADING in text, f"{RUNBOOK.name} has no '{RUNBOOK_HEADING}' section"
    section = text.split(RUNBOOK_HEADING, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        match = re.match(r"\|\s*`(\w+)`", line)
        if match:
            assert match.group(1) not in rows, f"two runbook lines for {match.group(1)}"
            rows[match.group(1)] = line
    return rows


def test_every_alert_has_a_runbook_line_and_links_to_it() -> None:
    rows = runbook_rows()
    assert sorted(rows) == sorted(ALERTS)
    anchor = "#" + re.sub(r"[^a-z0-9 -]", "", RUNBOOK_HEADING.lstrip("# ").lower()).replace(
        " ", "-"
    )
    for rule in alerting_rules():
        # name (severity) | fires when | first check | what to do
        cells = [cell.strip() for cell in rows[rule["alert"]].strip().strip("|").split("|")]
        assert len(cells) == 4 and all(cells), rows[rule["alert"]]
        assert cells[0] == f"`{rule['alert']}` ({rule['labels']['severity']})", cells[0]
        assert rule["annotations"]["runbook_url"] == f"docs/operations.md{anchor}", rule["alert"]


def test_rules_read_the_job_the_servicemonitor_scrapes() -> None:
    # The operator names the job after the Service, unless the ServiceMonitor
    # sets jobLabel; every selector of the service's own series must carry it.
    monitor = load(SERVICE_MONITOR)
    assert "jobLabel" not in monitor["spec"]
    # kube-state-metrics' series are about our objects but scraped under its
    # own job: they are picked by deployment, pod and container instead.
    job = load(SERVICE)["metadata"]["name"]
    for rule in alerting_rules():
        for selector in selectors(rule["expr"]):
            if selector.metric.startswith("kube_"):
                assert selector.value_of("job") is None, (rule["alert"], selector)
            else:
                assert selector.value_of("job") == job, (rule["alert"], selector)


def test_five_xx_ratio_counts_only_5xx() -> None:
    # 499 (the client left) is not a server error; the numerator is 5xx only.
    (rule,) = [r for r in alerting_rules() if r["alert"] == "TictactoeHighErrorRatio"]
    numerator, denominator = selectors(rule["expr"])
    statuses = [m for m in numerator.matchers if m.label == "status"]
    assert [(m.op, m.value) for m in statuses] == [("=~", "5..")]
    assert not [m for m in denominator.matchers if m.label == "status"]

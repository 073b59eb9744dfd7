"""Waiting for an event, not for a time: what the real-server tests synchronise on.

Timing belongs in ``bench/``: these machines are shared and noisy, so a test
that sleeps "long enough" or asserts "within N s" fails when the machine is
busy and passes when the code is wrong. A test waits instead for the thing
itself (a value on ``/metrics``, a line in a log, a process exit), polling
with :func:`wait_for`, whose timeout only stops a test that would otherwise
hang: when it expires, the event never happened, and the test fails saying so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import httpx
from prometheus_client.parser import text_string_to_metric_families

# Generous on any machine: reaching it means the event is not coming.
HUNG_TEST_SECONDS = 60.0
POLL_SECONDS = 0.02
T = TypeVar("T")


def wait_for(what: str, happened: Callable[[], T | None], timeout: float = HUNG_TEST_SECONDS) -> T:
    """Poll ``happened`` until it returns something true, and return that; fail
    naming ``what`` if it has not after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        outcome = happened()
        if outcome:
            return outcome
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen within {timeout:g} s")
        time.sleep(POLL_SECONDS)


def ready(client: httpx.Client) -> None:
    """Wait until the app behind ``client`` (a TestClient, or an httpx client with
    the server's base URL) is ready: its start-up solve is done."""
    wait_for("the start-up solve", lambda: client.get("/readyz").status_code == 200)


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample (``name`` as exposed, ``_total`` included) in a scrape."""
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return float(found.value)
    raise LookupError(f"no sample {name}{labels or ''} on /metrics")


def metric(url: str, name: str, **labels: str) -> float:
    """One sample's value, scraped from the server at ``url`` now."""
    return sample(httpx.get(url + "/metrics", timeout=10).text, name, **labels)


def counted(url: str, name: str, **labels: str) -> float:
    """A counter's value, scraped now: 0 while the labelled series has not appeared
    (a series such as a route's 499s appears with its first event)."""
    text = httpx.get(url + "/metrics", timeout=10).text
    try:
        return sample(text, name, **labels)
    except LookupError:
        return 0.0


def searches(url: str) -> tuple[float, float]:
    """(running, waiting): the searches on a thread now, and those queued for one."""
    text = httpx.get(url + "/metrics", timeout=10).text
    return (
        sample(text, "tictactoe_searches_running"),
        sample(text, "tictactoe_search_queue_waiting"),
    )

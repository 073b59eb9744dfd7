"""Health, graceful shutdown and access logs, on the real server (uvicorn)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from service.__main__ import Server
from service.app import create_app
from service.settings import Settings
from tests.heavy import LONG_BUDGET, heavy
from tests.ops.waiting import HUNG_TEST_SECONDS, searches, wait_for
from tests.server import NO_CLIENT_LIMITS, RunningServer, running_server

pytestmark = pytest.mark.server
SHUTTING_DOWN = "Shutting down"  # uvicorn's log line as its shutdown begins


def test_readyz_waits_for_the_start_up_solve_and_turns_503_when_shutdown_begins() -> None:
    app = create_app(Settings())
    with TestClient(app) as client:
        assert client.get("/livez").status_code == 200
        deadline = time.monotonic() + HUNG_TEST_SECONDS
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "never became ready"
            time.sleep(0.01)
        assert app.state.engine.stats().answers.entries >= 4520
        Server(uvicorn.Config(app), app).handle_exit(signal.SIGTERM, None)
        response = client.get("/readyz")
        assert response.status_code == 503
        assert response.json()["type"] == "/problems/service-unavailable"
        assert client.get("/livez").status_code == 200


def test_sigterm_drains_requests_in_flight(tmp_path: Path) -> None:
    """Slow searches in flight when SIGTERM arrives all get their answers."""
    settings = {
        "TTT_NODE_BUDGET": "20000000",  # about 1.5 s of searching each (at f50ad4d)
        "TTT_SEARCH_DEADLINE_MS": "60000",
        "TTT_SEARCH_THREADS": "2",
        "TTT_GRACEFUL_TIMEOUT_SECONDS": "20",
        **NO_CLIENT_LIMITS,
    }
    boards = [heavy(i) for i in range(6)]
    results: list[int | str] = []
    with running_server(tmp_path, **settings) as server:

        def ask(board: dict[str, object]) -> None:
            try:
                answer = httpx.post(server.url + "/v1/analysis", json=board, timeout=60)
                results.append(answer.status_code)
            except httpx.HTTPError as error:
                results.append(repr(error))

        threads = [threading.Thread(target=ask, args=(b,)) for b in boards]
        for thread in threads:
            thread.start()
        wait_for("two searching, four queued", lambda: searches(server.url) == (2, 4))
        server.process.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=HUNG_TEST_SECONDS)
        exit_code = server.process.wait(timeout=HUNG_TEST_SECONDS)
        with pytest.raises(httpx.TransportError):
            httpx.get(server.url + "/livez", timeout=2)
        log = server.output()
    assert results == [200] * len(boards), log
    assert_drained_within_the_grace_period(log)
    assert exit_code in (0, -signal.SIGTERM)
    # Answers logged after uvicorn began shutting down were in flight at SIGTERM.
    after_shutdown = log.partition(SHUTTING_DOWN)[2]
    assert '"route":"/v1/analysis","status":200' in after_shutdown, log


def test_access_log_is_one_json_line_per_request(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        httpx.get(server.url + "/livez", headers={"x-request-id": "probe-1"})
        moved = httpx.post(server.url + "/v1/move", json={"board": "XX......."})
        echoed = httpx.get(server.url + "/nope").headers["x-request-id"]
        # A request's line is written once its answer is sent: wait for all three.
        asked = {"probe-1", moved.headers["x-request-id"], echoed}

        def logged() -> list[dict[str, Any]] | None:
            lines = access_log(server)
            return lines if asked <= {line["request_id"] for line in lines} else None

        lines = wait_for("the three requests' log lines", logged)
    by_id = {line["request_id"]: line for line in lines}
    assert by_id["probe-1"]["route"] == "/livez" and by_id["probe-1"]["status"] == 200
    assert by_id[echoed]["route"] == "unmatched" and by_id[echoed]["status"] == 404
    refused = [line for line in lines if line["route"] == "/v1/move"]
    assert refused and refused[0]["status"] == 422 and refused[0]["method"] == "POST"
    assert all(
        set(line) == {"ts", "method", "route", "status", "duration_ms", "request_id", "client"}
        for line in lines
    )
    assert refused[0]["client"] == "ip:127.0.0.1"  # who limits.py says sent it
    assert by_id["probe-1"]["client"] is None  # probes are nobody's: never limited


def test_sigterm_with_searches_longer_than_the_grace_period_drops_none(tmp_path: Path) -> None:
    """Twelve searches that would each take a minute: on SIGTERM the running ones
    answer with what they found before the grace period ends, the queued ones
    get a 503 problem, and no connection closes without an answer."""
    settings = {
        "TTT_NODE_BUDGET": str(LONG_BUDGET),
        "TTT_SEARCH_DEADLINE_MS": "60000",
        "TTT_SEARCH_THREADS": "2",
        "TTT_SEARCH_QUEUE": "12",
        "TTT_GRACEFUL_TIMEOUT_SECONDS": "6",
        **NO_CLIENT_LIMITS,
    }
    boards = [heavy(i) for i in range(12)]
    answers: list[tuple[int, dict[str, object]] | str] = []
    with running_server(tmp_path, **settings) as server:

        def ask(board: dict[str, object]) -> None:
            try:
                response = httpx.post(server.url + "/v1/analysis", json=board, timeout=60)
                answers.append((response.status_code, response.json()))
            except httpx.HTTPError as error:
                answers.append(repr(error))

        threads = [threading.Thread(target=ask, args=(b,)) for b in boards]
        for thread in threads:
            thread.start()
        # Every search admitted: two on the threads, ten queued. Each would run
        # for a minute, so none ends before SIGTERM but by the drain.
        wait_for("two searching, ten queued", lambda: searches(server.url) == (2, 10))
        server.process.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=HUNG_TEST_SECONDS)
        exit_code = server.process.wait(timeout=HUNG_TEST_SECONDS)
        log = server.output()
    assert all(isinstance(a, tuple) for a in answers), answers
    by_status: dict[int, list[dict[str, object]]] = {}
    for status, body in (a for a in answers if isinstance(a, tuple)):
        by_status.setdefault(status, []).append(body)
    # The two running searches answer with what they found by the drain's deadline;
    # the ten that never started are refused, each with the problem.
    assert {status: len(bodies) for status, bodies in by_status.items()} == {200: 2, 503: 10}
    assert all(b["exact"] is False and b["stopped_by"] == "deadline" for b in by_status[200])
    assert all(b["type"] == "/problems/service-unavailable" for b in by_status[503])
    assert_drained_within_the_grace_period(log)
    assert exit_code in (0, -signal.SIGTERM), log


def access_log(server: RunningServer) -> list[dict[str, Any]]:
    """The JSON lines of the server's output so far (uvicorn's own lines are not JSON)."""
    return [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]


def assert_drained_within_the_grace_period(log: str) -> None:
    """Uvicorn says so when TTT_GRACEFUL_TIMEOUT_SECONDS runs out with requests still
    open (measured by its own clock, from the start of its shutdown), and then
    cancels them: the drain must have finished first."""
    assert SHUTTING_DOWN in log, log
    assert "timeout graceful shutdown exceeded" not in log, log

"""Health, graceful shutdown and access logs, on the real server (uvicorn)."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from service.__main__ import Server
from service.app import create_app
from service.settings import Settings
from tests.heavy import LONG_BUDGET, heavy
from tests.server import running_server

pytestmark = pytest.mark.server


def test_readyz_waits_for_the_start_up_solve_and_turns_503_when_shutdown_begins() -> None:
    app = create_app(Settings())
    with TestClient(app) as client:
        assert client.get("/livez").status_code == 200
        deadline = time.monotonic() + 10
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
    }
    boards = [heavy(i) for i in range(6)]
    results: list[int | str] = []
    finished: list[float] = []
    with running_server(tmp_path, **settings) as server:

        def ask(board: dict[str, object]) -> None:
            try:
                answer = httpx.post(server.url + "/v1/analysis", json=board, timeout=60)
                results.append(answer.status_code)
                finished.append(time.monotonic())
            except httpx.HTTPError as error:
                results.append(repr(error))

        threads = [threading.Thread(target=ask, args=(b,)) for b in boards]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # all six are in flight: two searching, four queued
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=60)
        server.process.wait(timeout=30)
        drained = time.monotonic() - started
        with pytest.raises(httpx.TransportError):
            httpx.get(server.url + "/livez", timeout=2)
    assert results == [200] * len(boards), server.output()
    assert drained < 20
    assert max(finished) > started + 0.5, "no request was still running at SIGTERM"
    assert server.process.returncode in (0, -signal.SIGTERM)


def test_access_log_is_one_json_line_per_request(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        httpx.get(server.url + "/livez", headers={"x-request-id": "probe-1"})
        httpx.post(server.url + "/v1/move", json={"board": "XX......."})
        echoed = httpx.get(server.url + "/nope").headers["x-request-id"]
        time.sleep(0.2)
        lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    by_id = {line["request_id"]: line for line in lines}
    assert by_id["probe-1"]["route"] == "/livez" and by_id["probe-1"]["status"] == 200
    assert by_id[echoed]["route"] == "unmatched" and by_id[echoed]["status"] == 404
    refused = [line for line in lines if line["route"] == "/v1/move"]
    assert refused and refused[0]["status"] == 422 and refused[0]["method"] == "POST"
    assert all(
        set(line) == {"ts", "method", "route", "status", "duration_ms", "request_id"}
        for line in lines
    )


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
        time.sleep(1.0)  # two searching, ten queued
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=60)
        server.process.wait(timeout=30)
        drained = time.monotonic() - started
    assert all(isinstance(a, tuple) for a in answers), answers
    statuses = sorted(a[0] for a in answers if isinstance(a, tuple))
    assert statuses == [200, 200] + [503] * 10, statuses
    for status, body in (a for a in answers if isinstance(a, tuple)):
        if status == 200:
            assert body["exact"] is False and body["stopped_by"] == "deadline"
        else:
            assert body["type"] == "/problems/service-unavailable"
    assert drained < 6, f"the drain took {drained:.1f} s of a 6 s grace period"

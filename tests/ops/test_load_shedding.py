"""Searches are bounded: a full queue answers 503, a departed client stops its search,
and a batch answers as single requests do."""

from __future__ import annotations

import random
import re
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.engine import Board
from service.settings import Settings
from tests.heavy import LONG_BUDGET, heavy
from tests.server import running_server

pytestmark = pytest.mark.server
BIG = [heavy(i) for i in range(0, 40, 3)]


def test_a_full_search_queue_answers_503_with_retry_after(tmp_path: Path) -> None:
    # Each search runs until its 3 s deadline: the compiled core needs a budget
    # far beyond any default to keep a thread busy that long.
    settings = {
        "TTT_SEARCH_THREADS": "1",
        "TTT_SEARCH_QUEUE": "1",
        "TTT_NODE_BUDGET": str(LONG_BUDGET),
        "TTT_SEARCH_DEADLINE_MS": "3000",
    }
    statuses: list[int] = []
    retry_after: list[str] = []
    with running_server(tmp_path, **settings) as server:

        def ask(board: dict[str, object]) -> None:
            response = httpx.post(server.url + "/v1/analysis", json=board, timeout=60)
            statuses.append(response.status_code)
            if response.status_code == 503:
                retry_after.append(response.headers.get("retry-after", ""))
                assert response.json()["type"] == "/problems/service-unavailable"

        threads = [threading.Thread(target=ask, args=(board,)) for board in BIG[:5]]
        for thread in threads:
            thread.start()
            time.sleep(0.05)
        for thread in threads:
            thread.join(timeout=60)
        assert httpx.get(server.url + "/readyz").status_code == 200
    assert statuses.count(200) >= 2 and statuses.count(503) >= 1, statuses
    assert set(retry_after) == {"1"}


def test_a_search_stops_when_its_client_leaves(tmp_path: Path) -> None:
    settings = {"TTT_SEARCH_THREADS": "1", "TTT_NODE_BUDGET": str(LONG_BUDGET)}
    with running_server(tmp_path, **settings) as server:
        for board in BIG[:3]:  # each alone would search for well over a minute
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(server.url + "/v1/analysis", json=board, timeout=0.3)
        started = time.monotonic()
        small = httpx.post(
            server.url + "/v1/analysis", json={"board": "XO../..../..../...."}, timeout=60
        )
        waited = time.monotonic() - started
    assert small.status_code == 200 and small.json()["exact"]
    assert waited < 10, f"the abandoned searches held the only thread for {waited:.1f} s"


def test_a_client_that_leaves_is_counted_as_499_without_a_traceback(tmp_path: Path) -> None:
    """nginx's "client closed request": not a server error, and nothing to log but the line.

    One client leaves during a search on a 7x7 board, two half-way through their
    bodies: one read by the route (a batch), one by the guard before routing (a move,
    whose answer could be replayed), which therefore has no route label.
    """
    settings = {
        "TTT_SEARCH_THREADS": "1",
        "TTT_NODE_BUDGET": str(LONG_BUDGET),
        "TTT_LOG_LEVEL": "info",
    }
    board_7x7 = heavy(24)
    with running_server(tmp_path, **settings) as server:
        with pytest.raises(httpx.ReadTimeout):  # the client gives up mid-search and leaves
            httpx.post(server.url + "/v1/analysis", json=board_7x7, timeout=0.5)
        port = int(server.url.rsplit(":", 1)[1])
        for path in (b"/v1/batch", b"/v1/move"):
            with socket.create_connection(("127.0.0.1", port)) as sock:  # leaves mid-body
                sock.sendall(
                    b"POST " + path + b" HTTP/1.1\r\nHost: x\r\n"
                    b'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{"board": '
                )
                time.sleep(0.2)
        deadline = time.monotonic() + 20
        while True:
            scrape = httpx.get(server.url + "/metrics", timeout=5).text
            counted = dict(
                re.findall(r'^http_requests_total\{(.*status="499")\} (\S+)$', scrape, re.M)
            )
            if len(counted) == 3 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        log = server.output()
    assert counted == {
        'method="POST",route="/v1/analysis",status="499"': "1.0",
        'method="POST",route="/v1/batch",status="499"': "1.0",
        'method="POST",route="unmatched",status="499"': "1.0",
    }, scrape
    assert 'status="500"' not in scrape
    assert "Traceback" not in log and "unhandled error" not in log and "Exception" not in log, log
    assert log.count('"status":499') == 3, log


def test_a_batch_answers_as_single_requests_do() -> None:
    rng = random.Random(4)
    boards = []
    while len(boards) < 12:
        board = Board.parse("................", k=rng.choice((3, 4)))
        for cell in rng.sample(range(16), 2):
            board = board.play(cell)
        boards.append({"board": board.format(), "k": board.k})
    with TestClient(create_app(Settings())) as client:
        batch = client.post("/v1/batch", json={"requests": boards}).json()["results"]
    with TestClient(create_app(Settings())) as client:
        singles = [client.post("/v1/move", json=body).json() for body in boards]
    assert all(answer["exact"] for answer in batch)
    assert batch == singles

"""Searches are bounded: a full queue answers 503, a departed client stops its search,
and a batch answers as single requests do."""

from __future__ import annotations

import random
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.engine import Board
from service.settings import Settings
from tests.heavy import LONG_BUDGET, heavy
from tests.ops.waiting import counted, metric, searches, wait_for
from tests.server import NO_CLIENT_LIMITS, RunningServer, running_server

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
    with running_server(tmp_path, **settings) as server:

        def ask(board: dict[str, object]) -> httpx.Response:
            return httpx.post(server.url + "/v1/analysis", json=board, timeout=60)

        with ThreadPoolExecutor(2) as pool:
            # One search on the only thread, then one in the only place in the queue.
            admitted = [pool.submit(ask, BIG[0])]
            wait_for("a search running", lambda: searches(server.url) == (1, 0))
            admitted.append(pool.submit(ask, BIG[1]))
            wait_for("a search queued behind it", lambda: searches(server.url) == (1, 1))
            # Thread and queue full: each further search is refused at once, while
            # the two admitted ones still have seconds to go.
            refused = [ask(board) for board in BIG[2:5]]
            answered = [future.result() for future in admitted]
        assert httpx.get(server.url + "/readyz").status_code == 200
    assert [r.status_code for r in answered] == [200, 200], [r.text for r in answered]
    assert all(r.json()["stopped_by"] == "deadline" for r in answered)
    assert [r.status_code for r in refused] == [503] * 3, [r.text for r in refused]
    assert all(r.json()["type"] == "/problems/service-unavailable" for r in refused)
    assert {r.headers.get("retry-after") for r in refused} == {"1"}


def test_a_search_stops_when_its_client_leaves(tmp_path: Path) -> None:
    # Neither the budget nor the deadline ends these searches within a minute:
    # only their clients leaving can.
    settings = {
        "TTT_SEARCH_THREADS": "1",
        "TTT_NODE_BUDGET": str(LONG_BUDGET),
        "TTT_SEARCH_DEADLINE_MS": "600000",
        **NO_CLIENT_LIMITS,  # each 600 s search would cost a whole bucket
    }
    with running_server(tmp_path, **settings) as server:
        for board in BIG[:3]:  # each alone would search for well over a minute
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(server.url + "/v1/analysis", json=board, timeout=0.3)
        wait_for(
            "the abandoned searches stopped and counted as 499",
            lambda: searches(server.url) == (0, 0) and left(server, "/v1/analysis") == 3,
        )
        small = httpx.post(
            server.url + "/v1/analysis", json={"board": "XO../..../..../...."}, timeout=60
        )
    assert small.status_code == 200 and small.json()["exact"]


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
        wait_for("the search's 499", lambda: left(server, "/v1/analysis") == 1)
        port = int(server.url.rsplit(":", 1)[1])
        for path, route in ((b"/v1/batch", "/v1/batch"), (b"/v1/move", "unmatched")):
            with socket.create_connection(("127.0.0.1", port)) as sock:  # leaves mid-body
                sock.sendall(
                    b"POST " + path + b" HTTP/1.1\r\nHost: x\r\n"
                    b'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{"board": '
                )
                # Leave once the request is in the app, reading its body (the
                # scrape that says so is in flight too).
                wait_for(
                    f"{path!r} in the app",
                    lambda: metric(server.url, "http_requests_in_flight") == 2,
                )
            wait_for(f"{path!r}'s 499", lambda: left(server, route) == 1)  # noqa: B023
        scrape = httpx.get(server.url + "/metrics", timeout=5).text
        series_499 = r'^http_requests_total\{(.*status="499")\} (\S+)$'
        left_by_route = dict(re.findall(series_499, scrape, re.M))
        log = wait_for("three 499s in the access log", lambda: access_log_499(server))
    assert left_by_route == {
        'method="POST",route="/v1/analysis",status="499"': "1.0",
        'method="POST",route="/v1/batch",status="499"': "1.0",
        'method="POST",route="unmatched",status="499"': "1.0",
    }, scrape
    assert 'status="500"' not in scrape
    assert "Traceback" not in log and "unhandled error" not in log and "Exception" not in log, log
    assert log.count('"status":499') == 3, log


def left(server: RunningServer, route: str) -> float:
    """POST requests to ``route`` whose clients left (499) so far."""
    return counted(server.url, "http_requests_total", method="POST", route=route, status="499")


def access_log_499(server: RunningServer) -> str | None:
    """The server's output, once its access log has three 499 lines."""
    log = server.output()
    return log if log.count('"status":499') >= 3 else None


def test_a_batch_answers_as_single_requests_do() -> None:
    rng = random.Random(4)
    boards = []
    while len(boards) < 12:
        board = Board.parse("................", k=rng.choice((3, 4)))
        for cell in rng.sample(range(16), 2):
            board = board.play(cell)
        boards.append({"board": board.format(), "k": board.k})
    # Deadlines no busy machine reaches, so that each proof runs to its end
    # both ways (in a CI run on a loaded machine the first single request took
    # 1.36 s, past the default 800 ms deadline, and its answer differed: most
    # likely a proof cut short), and no rate limit (a search's cost grows with
    # its deadline: this one client would be refused).
    settings = Settings(search_deadline_ms=60_000, batch_deadline_ms=60_000, rate_limit_rate=0)
    with TestClient(create_app(settings)) as client:
        batch = client.post("/v1/batch", json={"requests": boards}).json()["results"]
    with TestClient(create_app(settings)) as client:
        singles = [client.post("/v1/move", json=body).json() for body in boards]
    assert all(answer["exact"] for answer in batch)
    for body, in_batch, single in zip(boards, batch, singles, strict=True):
        assert in_batch == single, body

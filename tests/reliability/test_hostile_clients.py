"""Slow and hostile clients against the real server, over raw sockets.

Each case sends bytes no well-behaved client would (a body larger than the
limit, declared or growing; a body that stops half-way; a 100 KB URL; JSON
nested 5,000 deep; integers of 5,000 digits; bytes that are not UTF-8; a line
that is not HTTP) and must get a clear answer (the status, and the problem type
where the app answers) or a closed connection, within a bound. After every
case the same server still answers ``/livez`` and a move, correctly.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.reliability.conftest import Backend

pytestmark = pytest.mark.server

READ_SLICE_SECONDS = 0.2


def post(headers: bytes, body: bytes = b"") -> bytes:
    return (
        b"POST /v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + headers
        + b"\r\n"
        + body
    )


def post_json(body: bytes) -> bytes:
    return post(b"Content-Length: %d\r\n" % len(body), body)


def get(target: bytes) -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@dataclass(frozen=True)
class Hostile:
    name: str
    parts: tuple[bytes, ...]  # sent in order, PAUSE_SECONDS apart
    statuses: frozenset[int]  # acceptable answers (a closed connection is always acceptable)
    problem: str | None  # the problem type, when the app (not uvicorn) answers
    within: float  # seconds until the answer or the close
    pause: float = 0.0


CHUNK = b"400\r\n" + b" " * 1024 + b"\r\n"  # 1 KiB chunks of JSON whitespace
CASES = [
    Hostile(
        "declared length too large",
        (post(b"Content-Length: 1000000000\r\n", b"{" * 100),),
        frozenset({413}),
        "/problems/body-too-large",
        2,
    ),
    Hostile(
        "chunked body growing past 16 KiB",
        (post(b"Transfer-Encoding: chunked\r\n"), *(CHUNK for _ in range(24))),
        frozenset({413}),
        "/problems/body-too-large",
        5,
        pause=0.01,
    ),
    Hostile(
        "body stalls at half its declared length",
        (post(b"Content-Length: 200\r\n", b'{"board": "' + b"." * 89),),
        frozenset({408}),
        "/problems/body-timeout",
        15,
    ),
    Hostile(
        "100 KB URL",
        (get(b"/v1/move?board=" + b"X" * 100_000),),
        frozenset({400, 414, 422, 431}),
        None,
        3,
    ),
    Hostile(
        "JSON nested 5,000 deep",
        (post_json(b'{"board": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"),),
        frozenset({400, 422}),
        None,
        3,
    ),
    Hostile(
        "k with 5,000 digits",
        (post_json(b'{"board": "X........", "k": 1' + b"0" * 5_000 + b"}"),),
        frozenset({400, 422}),
        None,
        3,
    ),
    Hostile(
        "seed of 10^40",
        (post_json(b'{"board": "X........", "seed": 1' + b"0" * 40 + b"}"),),
        frozenset({422}),
        "/problems/validation",
        3,
    ),
    Hostile(
        "k with 5,000 digits in the query",
        (get(b"/v1/move?board=X........&k=1" + b"0" * 5_000),),
        frozenset({422}),
        "/problems/validation",
        3,
    ),
    Hostile(
        "body that is not UTF-8",
        (post_json(b'{"board": "\xff\xfe\xfd"}'),),
        frozenset({400}),
        "/problems/malformed-json",
        3,
    ),
    Hostile(
        "raw bytes that are not UTF-8 in the query",
        (get(b"/v1/move?board=X\xff\xfe......."),),
        frozenset({400, 422}),
        None,
        3,
    ),
    Hostile(
        "percent-encoded bytes that are not UTF-8",
        (get(b"/v1/move?board=X%FF%FE......."),),
        frozenset({422}),
        "/problems/invalid-board",
        3,
    ),
    Hostile("a line that is not HTTP", (b"HELLO THERE\r\n\r\n",), frozenset({400}), None, 3),
]


@dataclass(frozen=True)
class Outcome:
    status: int | None  # None: closed without an answer
    body: bytes
    seconds: float


def exchange(port: int, case: Hostile) -> Outcome:
    """Send the case's bytes; wait for one response or the close, up to ``within`` + 5 s."""
    started = time.monotonic()
    received = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(READ_SLICE_SECONDS)
        for part in case.parts:
            try:
                sock.sendall(part)
            except OSError:  # the server answered and closed while we were still sending
                break
            time.sleep(case.pause)
        deadline = started + case.within + 5
        while time.monotonic() < deadline and not _complete(received):
            try:
                chunk = sock.recv(65_536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            received += chunk
    seconds = time.monotonic() - started
    if not received:
        return Outcome(None, b"", seconds)
    head, _, body = received.partition(b"\r\n\r\n")
    return Outcome(int(head.split(b" ", 2)[1]), body, seconds)


def _complete(received: bytes) -> bool:
    head, separator, body = received.partition(b"\r\n\r\n")
    if not separator:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def still_serves(url: str) -> None:
    assert httpx.get(f"{url}/livez", timeout=5).status_code == 200
    answer = httpx.post(f"{url}/v1/move", json={"board": "XX.OO...."}, timeout=5).json()
    assert answer["move"]["index"] == 2 and answer["score"] == 9


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_request_gets_a_clear_answer_or_a_closed_connection(
    server: Backend, case: Hostile, figures: dict[str, Any]
) -> None:
    outcome = exchange(server.port, case)
    figures.setdefault("hostile_clients", {})[case.name] = {
        "status": outcome.status if outcome.status is not None else "closed",
        "seconds": round(outcome.seconds, 2),
        "rss_mib_after": server.rss_mib(),
    }
    assert outcome.seconds <= case.within, f"answered after {outcome.seconds:.1f} s"
    if outcome.status is not None:
        assert outcome.status in case.statuses, outcome.body[:300]
        if case.problem is not None:
            assert f'"type":"{case.problem}"'.encode() in outcome.body, outcome.body[:300]
    still_serves(server.url)


def test_headers_that_never_end_do_not_hold_up_other_clients(
    server: Backend, figures: dict[str, Any]
) -> None:
    """Uvicorn sets no time limit on request headers (a proxy in front must); meanwhile
    every other client is served."""
    stop = threading.Event()
    sent = 0

    def trickle() -> None:
        nonlocal sent
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            while not stop.wait(0.01):
                sock.sendall(b"a" * 1024)
                sent += 1024

    trickler = threading.Thread(target=trickle)
    trickler.start()
    served = 0
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            still_serves(server.url)
            served += 1
    finally:
        stop.set()
        trickler.join(timeout=5)
    figures.setdefault("hostile_clients", {})["headers that never end (3 s)"] = {
        "header_bytes_sent": sent,
        "other_requests_served": served * 2,
        "rss_mib_after": server.rss_mib(),
    }
    assert sent > 0 and served > 10

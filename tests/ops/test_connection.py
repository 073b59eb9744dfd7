"""The request head's bounds, on the real server (uvicorn with httptools).

The server is the one ``python -m service`` builds, run on a thread of the test
process (``serving_in_process``), so that mutation testing sees which mutant of
``service/api/connection.py`` it runs; the other server tests start it as a
process of its own.

The request line and headers together may take ``TTT_HEADER_LIMIT_BYTES`` and
must arrive within ``TTT_HEADER_TIMEOUT_SECONDS`` of their first byte; past
either, the connection is answered with a problem and closed. Keep-alive and
pipelined requests are each measured on their own. A small limit (2 KiB) and a
short timeout (1 s) keep the cases quick; the defaults are exercised by
``tests/reliability/test_hostile_clients.py``.

Each refusal is counted on ``/metrics`` by its reason; the answer is written
after the count, so a scrape sent once the answer is read already shows it.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from tests.server import InProcessServer, serving_in_process

pytestmark = pytest.mark.server

LIMIT = 2048
TIMEOUT_SECONDS = 1.0
SETTINGS = {
    "TTT_HEADER_LIMIT_BYTES": str(LIMIT),
    "TTT_HEADER_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
    "TTT_LOG_LEVEL": "warning",
}


@pytest.fixture(scope="module")
def server() -> Iterator[InProcessServer]:
    with serving_in_process(**SETTINGS) as running:
        yield running


def head(size: int, target: bytes = b"/livez") -> bytes:
    """A GET whose request line and headers take exactly ``size`` bytes, blank line included."""
    start = b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
    end = b"\r\n\r\n"
    assert size >= len(start) + len(end)
    return start + b"a" * (size - len(start) - len(end)) + end


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Exchange:
    answers: list[Answer] = field(default_factory=list)
    closed: bool = False  # the server closed the connection
    seconds: float = 0.0  # until the last answer or the close


def exchange(
    server: InProcessServer,
    parts: list[bytes],
    pause: float = 0.0,
    expect: int = 1,
    wait: float = 5.0,
) -> Exchange:
    """Send ``parts``, ``pause`` s apart; read ``expect`` answers, up to the close or ``wait`` s."""
    port = int(server.url.rsplit(":", 1)[1])
    result = Exchange()
    received = b""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for part in parts:
            try:
                sock.sendall(part)
            except OSError:  # closed on us: what was answered is still to be read
                break
            time.sleep(pause)
        sock.settimeout(0.1)
        deadline = time.monotonic() + wait
        while len(result.answers) < expect and time.monotonic() < deadline:
            try:
                chunk = sock.recv(65_536)
            except TimeoutError:
                continue
            if not chunk:
                result.closed = True
                break
            received += chunk
            received = _take_answers(received, result.answers)
        if not result.closed and len(result.answers) >= expect:
            # Is the connection closed after the answers? A short look.
            sock.settimeout(0.5)
            try:
                result.closed = sock.recv(1) == b""
            except TimeoutError:
                result.closed = False
    result.seconds = time.monotonic() - started
    return result


def _take_answers(received: bytes, answers: list[Answer]) -> bytes:
    while b"\r\n\r\n" in received:
        top, _, rest = received.partition(b"\r\n\r\n")
        status_line, *lines = top.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        if len(rest) < length:
            break
        answers.append(Answer(int(status_line.split(" ")[1]), headers, rest[:length]))
        received = rest[length:]
    return received


def refused(server: InProcessServer) -> dict[str, float]:
    """tictactoe_request_heads_refused_total by reason, scraped from /metrics now."""
    text = httpx.get(server.url + "/metrics", timeout=10).text
    pattern = r'^tictactoe_request_heads_refused_total\{reason="([^"]+)"\} (\S+)$'
    return {reason: float(value) for reason, value in re.findall(pattern, text, re.MULTILINE)}


def assert_problem(answer: Answer, status: int, kind: str) -> dict[str, object]:
    assert answer.status == status, answer
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["connection"] == "close"
    problem: dict[str, object] = json.loads(answer.body)
    assert problem["type"] == f"/problems/{kind}" and problem["status"] == status
    return problem


@pytest.mark.parametrize("size", [LIMIT - 1, LIMIT])
def test_a_head_up_to_the_limit_is_served(server: InProcessServer, size: int) -> None:
    result = exchange(server, [head(size)])
    assert [a.status for a in result.answers] == [200] and not result.closed


@pytest.mark.parametrize(
    ("size", "pieces"),
    [(LIMIT + 1, 1), (LIMIT + 1, 3), (LIMIT * 4, 1), (LIMIT * 4, 7), (1024 * 1024, 1)],
)
def test_a_head_over_the_limit_gets_431_and_a_closed_connection(
    server: InProcessServer, size: int, pieces: int
) -> None:
    request = head(size)
    step = -(-len(request) // pieces)
    parts = [request[i : i + step] for i in range(0, len(request), step)]
    result = exchange(server, parts, pause=0.05)
    assert len(result.answers) == 1 and result.closed
    problem = assert_problem(result.answers[0], 431, "headers-too-large")
    assert problem["detail"] == (
        f"the request line and headers must be at most {LIMIT} bytes; "
        "send fewer or shorter headers, and long data in a POST body"
    )
    assert f"uvicorn.error WARNING Request headers larger than {LIMIT} bytes." in server.output()


def test_an_unfinished_head_is_refused_once_it_passes_the_limit(server: InProcessServer) -> None:
    """No blank line ever comes: the answer comes at the limit, not at the end of the head."""
    result = exchange(server, [head(LIMIT + 100)[:-4]])
    assert len(result.answers) == 1 and result.closed
    assert_problem(result.answers[0], 431, "headers-too-large")


def test_each_keep_alive_request_has_its_own_limit(server: InProcessServer) -> None:
    parts = [head(LIMIT - 10) for _ in range(4)]
    result = exchange(server, parts, pause=0.1, expect=4)
    assert [a.status for a in result.answers] == [200] * 4 and not result.closed


def test_pipelined_requests_are_measured_one_by_one(server: InProcessServer) -> None:
    """Five heads of 1,500 bytes in one write (7,500 bytes) are five heads under the limit."""
    burst = b"".join(head(1500) for _ in range(5))
    result = exchange(server, [burst], expect=5)
    assert [a.status for a in result.answers] == [200] * 5 and not result.closed


def post_with_length() -> bytes:
    """A POST with a 10 KB Content-Length body: JSON whitespace, blank lines included."""
    body = b'{"board": "X...O....",' + b"\r\n" * 5_000 + b'"k": 3}'
    return (
        b"POST /v1/analysis HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body


def post_chunked() -> bytes:
    """A POST whose 3 KB body comes in two chunks, then the last (empty) chunk."""
    body = b'{"board": "X...O....",' + b" " * 3_000 + b'"k": 3}'
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:1000], body[1000:]))
    return (
        b"POST /v1/analysis HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    )


@pytest.mark.parametrize("post", [post_with_length(), post_chunked()], ids=["length", "chunked"])
def test_a_pipelined_body_does_not_count_as_the_next_head(
    server: InProcessServer, post: bytes
) -> None:
    """Bodies between heads of the limit, all in one write: each head is measured alone."""
    result = exchange(server, [post + head(LIMIT) + post + head(LIMIT)], expect=4)
    assert [a.status for a in result.answers] == [200] * 4 and not result.closed


@pytest.mark.parametrize("post", [post_with_length(), post_chunked()], ids=["length", "chunked"])
def test_a_head_over_the_limit_after_a_pipelined_body_is_refused(
    server: InProcessServer, post: bytes
) -> None:
    """Nor does a body hide any of the next head: one byte over the limit is refused.
    The first answer is still being written when the refusal comes, so it is the
    connection's last (no 431 may interleave); the refusal is counted."""
    before = refused(server).get("headers-too-large", 0.0)
    result = exchange(server, [post + head(LIMIT + 1)], expect=2)
    assert [a.status for a in result.answers] == [200] and result.closed
    assert refused(server).get("headers-too-large", 0.0) == before + 1


def test_headers_sent_too_slowly_get_408_and_a_closed_connection(server: InProcessServer) -> None:
    request = head(600)
    parts = [request[i : i + 20] for i in range(0, len(request), 20)]  # 20 bytes per 0.1 s
    result = exchange(server, parts[:20], pause=0.1)
    assert len(result.answers) == 1 and result.closed
    problem = assert_problem(result.answers[0], 408, "headers-timeout")
    assert problem["detail"] == (
        f"the request line and headers did not arrive within {TIMEOUT_SECONDS:g} s; send them whole"
    )
    expected = f"uvicorn.error WARNING Request headers did not arrive within {TIMEOUT_SECONDS:g} s."
    assert expected in server.output()


def test_a_connection_that_sends_nothing_is_closed_and_counts_as_no_refusal(
    server: InProcessServer,
) -> None:
    before = refused(server)
    result = exchange(server, [], expect=1, wait=TIMEOUT_SECONDS + 3)
    assert result.answers == [] and result.closed
    assert refused(server) == before


def slow_head() -> list[bytes]:
    """An unfinished head in pieces of 20 bytes, sent 0.1 s apart: 2 s in all."""
    request = head(600)
    return [request[i : i + 20] for i in range(0, 400, 20)]


@pytest.mark.parametrize(
    ("parts", "pause", "status", "reason"),
    [
        pytest.param([head(LIMIT * 4)], 0.0, 431, "headers-too-large", id="too-large"),
        pytest.param(slow_head(), 0.1, 408, "headers-timeout", id="too-slow"),
    ],
)
def test_each_refusal_is_counted_once_under_its_reason(
    server: InProcessServer, parts: list[bytes], pause: float, status: int, reason: str
) -> None:
    before = refused(server)
    assert set(before) == {"headers-too-large", "headers-timeout"}
    result = exchange(server, parts, pause=pause)
    assert len(result.answers) == 1 and result.closed
    assert_problem(result.answers[0], status, reason)
    assert refused(server) == {**before, reason: before[reason] + 1}


def test_the_header_clock_starts_at_each_requests_first_byte(server: InProcessServer) -> None:
    """Idle time before a request (within keep-alive) and a slow body are not header time."""
    body = b'{"board": "X...O...."}'
    post_head = (
        b"POST /v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    pause = TIMEOUT_SECONDS * 1.5
    result = exchange(server, [head(100), post_head, body, head(100)], pause=pause, expect=3)
    assert [a.status for a in result.answers] == [200, 200, 200]


def test_the_server_still_serves_after_every_refusal(server: InProcessServer) -> None:
    exchange(server, [head(LIMIT * 10)])
    exchange(server, [b"GET /livez HTTP/1.1\r\n"], wait=TIMEOUT_SECONDS + 2)
    result = exchange(server, [head(200)])
    assert [a.status for a in result.answers] == [200]
    assert "Traceback" not in server.output()

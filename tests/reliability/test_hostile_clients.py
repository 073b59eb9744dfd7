"""Slow and hostile clients against the real server, over raw sockets.

Each case sends bytes no well-behaved client would (a body larger than the
limit, declared or growing; a body that stops half-way; a 100 KB URL; a 1 MiB
header; JSON nested 5,000 deep; integers of 5,000 digits; bytes that are not
UTF-8; a line that is not HTTP) and must get a clear answer (the status, and
the problem type where the service answers): a connection closed without one
fails, since a server that only hung up would leave its client guessing.
After every case the same server still answers ``/livez`` and a move,
correctly. Headers that never end are cut off by size (three connections
sending 50 MiB each) and by time (a trickle), at the default limits.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.ops.waiting import HUNG_TEST_SECONDS, metric
from tests.reliability.conftest import Backend

pytestmark = pytest.mark.server
DEFAULT_HEADER_TIMEOUT = Settings.model_fields["header_timeout_seconds"].default
REFUSED = "tictactoe_request_heads_refused_total"
LOOP_CLOCK_SLACK = 0.01  # uvloop reads the monotonic clock in whole milliseconds

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


def get(target: bytes, headers: bytes = b"") -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n"


MIB = 1024 * 1024


@dataclass(frozen=True)
class Hostile:
    name: str
    parts: tuple[bytes, ...]  # sent in order, PAUSE_SECONDS apart
    statuses: frozenset[int]  # acceptable answers
    problem: str | None  # the problem type, when the app (not uvicorn) answers
    within: float  # when the answer is due; the read gives up 5 s after (a hung test's guard)
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
        frozenset({431}),
        "/problems/headers-too-large",
        3,
    ),
    Hostile(
        "a 1 MiB header line",
        (get(b"/livez", b"X-Big: " + b"a" * MIB + b"\r\n"),),
        frozenset({431}),
        "/problems/headers-too-large",
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
def test_hostile_request_gets_a_clear_answer_in_time(
    server: Backend, case: Hostile, figures: dict[str, Any]
) -> None:
    outcome = exchange(server.port, case)
    figures.setdefault("hostile_clients", {})[case.name] = {
        "status": outcome.status if outcome.status is not None else "closed",
        "seconds": round(outcome.seconds, 2),
        "rss_mib_after": server.rss_mib(),
    }
    assert outcome.status is not None, "the connection closed without an answer"
    assert outcome.status in case.statuses, outcome.body[:300]
    if case.problem is not None:
        assert f'"type":"{case.problem}"'.encode() in outcome.body, outcome.body[:300]
    still_serves(server.url)


FLOOD_BYTES = 50 * MIB
FLOODS = 3


def flood(port: int) -> tuple[int, bytes]:
    """Send one header of up to 50 MiB that never ends; (bytes sent, what came back)."""
    chunk = b"a" * 65_536
    sent = 0
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Flood: ")
        try:
            while sent < FLOOD_BYTES:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:  # the server closed the connection
            pass
        sock.settimeout(5)
        try:
            answer = sock.recv(65_536)
        except OSError:
            answer = b""
    return sent, answer


def test_three_unfinished_50_mib_headers_do_not_grow_memory(
    server: Backend, figures: dict[str, Any]
) -> None:
    """Before the header limit, three such connections grew the process by 150 MiB."""
    before = server.rss_mib()
    results: list[tuple[int, bytes]] = []
    threads = [
        threading.Thread(target=lambda: results.append(flood(server.port))) for _ in range(FLOODS)
    ]
    for thread in threads:
        thread.start()
    peak = before
    while any(thread.is_alive() for thread in threads):
        peak = max(peak, server.rss_mib())
        time.sleep(0.02)
    for thread in threads:
        thread.join()
    after = server.rss_mib()
    figures.setdefault("hostile_clients", {})["three unfinished 50 MiB headers"] = {
        "bytes_sent": [sent for sent, _ in results],
        "answers": [
            answer.split(b"\r\n", 1)[0].decode("latin-1") or "closed" for _, answer in results
        ],
        "rss_mib_before": before,
        "rss_mib_peak": peak,
        "rss_mib_after": after,
    }
    assert len(results) == FLOODS
    for _, answer in results:  # each flood is answered: 431 with its problem
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:300] or "closed without an answer"
        assert b'"type":"/problems/headers-too-large"' in answer
    assert peak - before < 16, f"RSS grew from {before} to {peak} MiB"
    still_serves(server.url)


def test_headers_that_never_end_are_cut_off_in_time(
    server: Backend, figures: dict[str, Any]
) -> None:
    """A trickle of header bytes (10 every 0.1 s, far below the size limit) gets 408 from
    the header timeout (10 s by default), counted as such; every other client is served
    meanwhile."""
    timeout = float(server.env.get("TTT_HEADER_TIMEOUT_SECONDS", DEFAULT_HEADER_TIMEOUT))
    refused_before = metric(server.url, REFUSED, reason="headers-timeout")
    stop = threading.Event()
    sent = 0
    answer = b""
    took = 0.0

    def trickle() -> None:
        nonlocal sent, answer, took
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(0.1)
            sock.sendall(b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            while not stop.is_set():
                try:
                    sock.sendall(b"a" * 10)
                    sent += 10
                    answer = sock.recv(65_536)
                except TimeoutError:
                    continue
                except OSError:
                    break
                if answer == b"" or answer.startswith(b"HTTP/"):
                    break
            took = time.monotonic() - started
            sock.settimeout(2)
            while answer:  # the rest of the answer, up to the close
                try:
                    more = sock.recv(65_536)
                except OSError:
                    break
                if not more:
                    break
                answer += more

    trickler = threading.Thread(target=trickle)
    trickler.start()
    served = 0
    try:
        # Until the server cuts the trickle off; the bound only stops a hung test.
        deadline = time.monotonic() + HUNG_TEST_SECONDS
        while trickler.is_alive() and time.monotonic() < deadline:
            still_serves(server.url)
            served += 1
    finally:
        stop.set()
        trickler.join(timeout=5)
    refused = metric(server.url, REFUSED, reason="headers-timeout") - refused_before
    figures.setdefault("hostile_clients", {})["headers that never end (trickle)"] = {
        "header_bytes_sent": sent,
        "answer": answer.split(b"\r\n", 1)[0].decode("latin-1") or "closed",
        "seconds": round(took, 2),
        "other_requests_served": served * 2,
        "rss_mib_after": server.rss_mib(),
    }
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:300]
    assert b'"type":"/problems/headers-timeout"' in answer
    # The head clock cut it off, and nothing else did: the refusal is counted under its
    # reason (before the answer is written, so this scrape sees it), once.
    assert refused == 1, f"{refused} heads refused for their time, want this one"
    assert f"within {timeout:g} s".encode() in answer, answer[:300]
    # Never before the timeout: the server's clock starts when it accepts the
    # connection, after ours started, and both read this machine's monotonic clock
    # (the event loop's to the millisecond, hence the slack). No upper bound: how
    # late the answer comes on a busy machine is for the benchmarks to say.
    assert took >= timeout - LOOP_CLOCK_SLACK, f"cut off after {took:.3f} s, before {timeout:g} s"
    assert served > 10

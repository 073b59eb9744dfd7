"""200 concurrent clients against the real server: right answers, right problems, always ready.

200 clients (asyncio tasks, one keep-alive connection each, speaking HTTP/1.1
directly so that the client side stays cheap) all connect, and then each sends
100 requests, a mix of valid ones (moves, analyses, batches, GETs; 3x3 and 4x4)
and invalid ones (every kind of problem a request can earn). Every valid
answer is checked against the engine library run here, in the test; every
invalid one must be its problem (status and type). No 5xx, no transport error,
and ``/readyz``, polled until the last client is done, stays 200. The load is
a number of requests, not a time: how many a machine answers per second is
the benchmark's figure, not this test's.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from service.engine import Analysis, Board, Difficulty, Engine, suggest
from tests.ops.waiting import HUNG_TEST_SECONDS
from tests.reliability.conftest import Backend
from tests.reliability.wire import Connection

pytestmark = pytest.mark.server

CLIENTS = 200
REQUESTS_PER_CLIENT = 100
INVALID_SHARE = 0.3
READYZ_EVERY_SECONDS = 0.1


@dataclass(frozen=True)
class Case:
    """One request and what must come back: an answer to compare, or a problem."""

    kind: str
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 200
    problem: str | None = None  # the problem type, for invalid requests
    expected: Any = None  # for valid requests: what ``summary`` of the answer must equal


def move_summary(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "move": answer["move"]["index"],
        "score": answer["score"],
        "best_moves": [cell["index"] for cell in answer["best_moves"]],
        "best_score": answer["best_score"],
        "is_best": answer["is_best"],
        "exact": answer["exact"],
        "board": answer["board"],
        "player": answer["player"],
    }


def analysis_summary(answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "moves": [(m["index"], m["score"]) for m in answer["moves"]],
        "score": answer["score"],
        "exact": answer["exact"],
        "board": answer["board"],
    }


def expected_move(analysis: Analysis, difficulty: Difficulty, seed: int | None) -> dict[str, Any]:
    chosen = suggest(analysis, difficulty, seed)
    board = analysis.board
    return {
        "move": chosen.cell,
        "score": chosen.move.score,
        "best_moves": list(analysis.best_moves),
        "best_score": analysis.best_score,
        "is_best": chosen.is_best,
        "exact": analysis.exact,
        "board": board.format(),
        "player": board.side_to_move.value,
    }


def expected_analysis(analysis: Analysis) -> dict[str, Any]:
    return {
        "moves": [(m.cell, m.score) for m in analysis.moves],
        "score": analysis.best_score,
        "exact": analysis.exact,
        "board": analysis.board.format(),
    }


def random_boards(
    rows: int, cols: int, k: int, count: int, plies: tuple[int, int], rng: random.Random
) -> list[Board]:
    found: dict[Board, None] = {}
    while len(found) < count:
        board = Board.parse("." * rows * cols, rows=rows, cols=cols, k=k)
        for _ in range(rng.randint(*plies)):
            if board.is_game_over():
                break
            board = board.play(rng.choice(board.empty_cells()))
        if not board.is_game_over():
            found[board] = None
    return list(found)


def fields_of(board: Board) -> dict[str, Any]:
    fields: dict[str, Any] = {"board": board.format()}
    if board.k != min(board.rows, board.cols, 5):
        fields["k"] = board.k
    return fields


JSON = {"content-type": "application/json"}


def valid_cases(rng: random.Random) -> list[Case]:
    engine = Engine()
    boards = (
        random_boards(3, 3, 3, 120, (0, 7), rng)
        + random_boards(4, 4, 3, 40, (1, 8), rng)
        + random_boards(4, 4, 4, 16, (5, 10), rng)
    )
    cases: list[Case] = []
    levels = list(Difficulty)
    for board in boards:
        analysis = engine.analyze(board)
        assert analysis.exact, board
        fields = fields_of(board)
        difficulty = rng.choice(levels)
        seed = None if difficulty is Difficulty.PERFECT else rng.randrange(2**53)
        request = {**fields, "difficulty": difficulty.value, "seed": seed}
        move = expected_move(analysis, difficulty, seed)
        cases.append(
            Case("post move", "POST", "/v1/move", json.dumps(request).encode(), JSON, expected=move)
        )
        query = "&".join(f"{k}={v}" for k, v in request.items() if v is not None)
        cases.append(Case("get move", "GET", f"/v1/move?{query}", expected=move))
        cases.append(
            Case(
                "post analysis",
                "POST",
                "/v1/analysis",
                json.dumps(fields).encode(),
                JSON,
                expected=expected_analysis(analysis),
            )
        )
    for start in range(0, 120, 10):
        batch = boards[start : start + 10]
        body = json.dumps({"requests": [fields_of(b) for b in batch]}).encode()
        expected = [expected_move(engine.analyze(b), Difficulty.PERFECT, None) for b in batch]
        cases.append(Case("post batch", "POST", "/v1/batch", body, JSON, expected=expected))
    return cases


def invalid_cases() -> list[Case]:
    def post(path: str, body: object, status: int, problem: str) -> Case:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Case("invalid", "POST", path, raw, JSON, status, f"/problems/{problem}")

    return [
        post("/v1/move", {"board": "XXX"}, 422, "invalid-board"),
        post("/v1/move", {"board": "XX......."}, 422, "illegal-position"),
        post("/v1/move", {"board": "XXXOO...."}, 422, "game-over"),
        post("/v1/move", {"board": "X........", "k": 21}, 422, "validation"),
        post("/v1/move", {"board": "X........", "seed": -1}, 422, "validation"),
        post("/v1/move", {"board": "X........", "difficulty": "insane"}, 422, "validation"),
        post("/v1/move", ["X........"], 422, "validation"),
        post("/v1/analysis", {"board": "X........", "extra": 1}, 422, "validation"),
        post("/v1/move", b'{"board": ', 400, "malformed-json"),
        post("/v1/batch", {"requests": [{"board": "........."}] * 101}, 422, "batch-too-large"),
        post("/v1/batch", {"requests": []}, 422, "validation"),
        post("/v1/move", {"board": "." * 17_000}, 413, "body-too-large"),
        Case(
            "invalid",
            "POST",
            "/v1/move",
            b"board=X........",
            {"content-type": "text/plain"},
            415,
            "/problems/unsupported-media-type",
        ),
        Case("invalid", "GET", "/v1/move?board=XXX", status=422, problem="/problems/invalid-board"),
        Case(
            "invalid",
            "GET",
            "/v1/analysis?board=X........&k=abc",
            status=422,
            problem="/problems/validation",
        ),
        Case("invalid", "GET", "/v1/nowhere", status=404, problem="/problems/not-found"),
        Case("invalid", "DELETE", "/v1/move", status=405, problem="/problems/method-not-allowed"),
    ]


@dataclass
class Tally:
    sent: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def count(self, case: Case, status: int | None) -> None:
        self.sent += 1
        self.by_kind[case.kind] = self.by_kind.get(case.kind, 0) + 1
        if status is not None:
            self.statuses[status] = self.statuses.get(status, 0) + 1


def check(case: Case, status: int, payload: bytes) -> str | None:
    """What is wrong with the answer to ``case``, or None."""
    where = f"{case.method} {case.path[:60]}"
    if status != case.status:
        return f"{where}: status {status}, wanted {case.status}: {payload[:200]!r}"
    body = json.loads(payload)
    if case.problem is not None:
        if body.get("type") != case.problem or body.get("status") != case.status:
            return f"{where}: problem {body.get('type')}, wanted {case.problem}"
        return None
    if case.kind == "post batch":
        got: Any = [move_summary(result) for result in body["results"]]
    elif case.kind == "post analysis":
        got = analysis_summary(body)
    else:
        got = move_summary(body)
    return None if got == case.expected else f"{where}: {got} != {case.expected}"


async def client(
    port: int,
    cases: tuple[list[Case], list[Case]],
    seed: int,
    connected: asyncio.Barrier,
    tally: Tally,
) -> None:
    """One client: one keep-alive connection (a new one after the server closes it),
    opened before any client sends; then its requests, one at a time."""
    rng = random.Random(seed)
    valid, invalid = cases
    connection = await Connection.open(port)
    try:
        await connected.wait()  # all the clients' connections are open
        for _ in range(REQUESTS_PER_CLIENT):
            case = rng.choice(invalid if rng.random() < INVALID_SHARE else valid)
            if connection.closed:
                connection = await Connection.open(port)
            try:
                status, payload = await asyncio.wait_for(
                    connection.request(case.method, case.path, case.body, case.headers),
                    HUNG_TEST_SECONDS,  # an answer that never comes fails, not hangs, the test
                )
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                tally.count(case, None)
                tally.failures.append(f"{case.method} {case.path[:60]}: {error!r}")
                connection.close()
                continue
            tally.count(case, status)
            problem = check(case, status, payload)
            if problem is not None:
                tally.failures.append(problem)
    finally:
        connection.close()


async def watch_readiness(port: int, done: asyncio.Event) -> list[int]:
    statuses: list[int] = []
    connection = await Connection.open(port)
    try:
        while not done.is_set():
            if connection.closed:
                connection = await Connection.open(port)
            statuses.append((await connection.request("GET", "/readyz"))[0])
            await asyncio.sleep(READYZ_EVERY_SECONDS)
    finally:
        connection.close()
    return statuses


async def run_clients(
    port: int, cases: tuple[list[Case], list[Case]]
) -> tuple[Tally, list[int], float]:
    tally = Tally()
    done = asyncio.Event()
    connected = asyncio.Barrier(CLIENTS)
    started = time.monotonic()
    watcher = asyncio.create_task(watch_readiness(port, done))
    try:
        await asyncio.gather(
            *(client(port, cases, seed, connected, tally) for seed in range(CLIENTS))
        )
    finally:
        done.set()
    readiness = await watcher
    return tally, readiness, time.monotonic() - started


def test_200_concurrent_clients_get_right_answers_and_problems(
    server: Backend, figures: dict[str, Any]
) -> None:
    rng = random.Random(2024)
    cases = (valid_cases(rng), invalid_cases())
    rss_before = server.rss_mib()
    tally, readiness, elapsed = asyncio.run(run_clients(server.port, cases))
    rss_after = server.rss_mib()
    server_errors = sum(n for status, n in tally.statuses.items() if status >= 500)
    figures["concurrent_clients"] = {
        "clients": CLIENTS,
        "seconds": round(elapsed, 1),
        "requests": tally.sent,
        "requests_per_s": round(tally.sent / elapsed),
        "by_kind": tally.by_kind,
        "statuses": {str(k): v for k, v in sorted(tally.statuses.items())},
        "failures": len(tally.failures),
        "server_errors": server_errors,
        "readyz_polls": len(readiness),
        "readyz_not_200": sum(status != 200 for status in readiness),
        "rss_mib_before": rss_before,
        "rss_mib_after": rss_after,
        "distinct_valid_requests": len(cases[0]),
        "distinct_invalid_requests": len(cases[1]),
    }
    assert tally.failures == [], f"{len(tally.failures)} failures, first: {tally.failures[:5]}"
    assert server_errors == 0
    assert readiness and all(status == 200 for status in readiness), readiness
    # Every client sent all its requests, and each got an answer.
    assert tally.sent == sum(tally.statuses.values()) == CLIENTS * REQUESTS_PER_CLIENT
    assert set(tally.by_kind) == {"post move", "get move", "post analysis", "post batch", "invalid"}
    assert server.is_running()

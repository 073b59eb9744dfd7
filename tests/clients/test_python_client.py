"""The Python client against a real server: each call's answer is the server's
JSON, whole, as dataclasses; batches keep their order across chunks; problems
raise ``ProblemError`` with everything the server said."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.clients.conftest import BATCH_LIMIT
from tests.server import RunningServer, running_server
from tictactoe_client import (
    AnalysisRequest,
    AsyncClient,
    Client,
    FieldError,
    Health,
    MoveAnswer,
    MoveRequest,
    Problem,
    ProblemError,
)
from tictactoe_client.retries import DEFAULT_RETRIES, MAX_RETRY_AFTER

pytestmark = pytest.mark.server


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(dataclasses.asdict(value)))


@pytest.fixture
def client(server: RunningServer) -> Iterator[Client]:
    with Client(server.url, batch_limit=BATCH_LIMIT) as client:
        yield client


MOVES: list[tuple[str, dict[str, Any], int, str | None]] = [
    ("....X....", {}, 0, "draw"),
    ("xx./oo./...", {}, 2, "win"),
    (".........", {"player": "O"}, 0, "draw"),
    ("." * 16, {"k": 3}, 5, "win"),
    ("." * 12, {"rows": 3, "cols": 4, "k": 3}, 1, "win"),
    ("....X....", {"difficulty": "easy", "seed": 11}, 8, "draw"),
]


@pytest.mark.parametrize(("board", "options", "index", "outcome"), MOVES)
def test_move_is_the_servers_answer_whole(
    client: Client,
    server: RunningServer,
    board: str,
    options: dict[str, Any],
    index: int,
    outcome: str | None,
) -> None:
    answer = client.move(board, **options)
    assert isinstance(answer, MoveAnswer)
    assert (answer.move.index, answer.outcome) == (index, outcome)
    raw = httpx.post(f"{server.url}/v1/move", json={"board": board, **options}).json()
    assert as_json(answer) == raw


def test_move_fields_read_as_documented(client: Client) -> None:
    answer = client.move("xx./oo./...")
    assert answer.move.index == 2 and (answer.move.row, answer.move.col) == (0, 2)
    assert answer.player == "X" and answer.score == 9.0 and answer.exact
    assert [cell.index for cell in answer.best_moves] == [2]
    assert (answer.status_after, answer.winner_after) == ("won", "X")
    assert answer.winning_lines_after == ((0, 1, 2),)
    assert answer.difficulty == "perfect" and answer.seed is None


@pytest.mark.parametrize(
    ("board", "options"),
    [("XX.OO....", {}), ("XXXOO....", {}), ("." * 16, {"k": 3}), (".........", {"player": "O"})],
)
def test_analysis_is_the_servers_answer_whole(
    client: Client, server: RunningServer, board: str, options: dict[str, Any]
) -> None:
    answer = client.analysis(board, **options)
    raw = httpx.post(f"{server.url}/v1/analysis", json={"board": board, **options}).json()
    assert as_json(answer) == raw


def test_analysis_ranks_the_moves(client: Client) -> None:
    answer = client.analysis("XX.OO....")
    assert answer.status == "in_progress" and answer.player == "X"
    assert [(m.index, m.outcome) for m in answer.moves[:2]] == [(2, "win"), (5, "draw")]
    finished = client.analysis("XXXOO....")
    assert (finished.status, finished.winner, finished.moves) == ("won", "X", ())


def test_a_batch_spans_chunks_and_keeps_its_order(server: RunningServer) -> None:
    sent: list[int] = []

    def count(request: httpx.Request) -> None:
        if request.url.path == "/v1/batch":
            sent.append(len(json.loads(request.content)["requests"]))

    boards = [f"{'.' * i}X{'.' * (8 - i)}" for i in range(9)] + ["X........", "OO......."]
    requests = [MoveRequest(board, seed=i, difficulty="medium") for i, board in enumerate(boards)]
    with (
        httpx.Client(event_hooks={"request": [count]}) as http,
        Client(server.url, batch_limit=BATCH_LIMIT, http_client=http) as client,
    ):
        results = client.batch(requests)
        singles = [
            client.move(r.board, difficulty=r.difficulty, seed=r.seed) for r in requests[:-1]
        ]
    assert sent == [5, 5, 1]
    assert results[:-1] == singles
    last = results[-1]
    assert isinstance(last, Problem) and last.type == "/problems/illegal-position"
    assert last.errors[0].pointer == "/requests/10/board"
    assert last.raw["errors"][0]["pointer"] == "/requests/10/board"


def test_a_batch_refused_whole_names_the_request_in_the_whole_list(client: Client) -> None:
    requests = [MoveRequest(".........")] * 7 + [MoveRequest(".........", k=21)]
    with pytest.raises(ProblemError) as caught:
        client.batch(requests)
    assert caught.value.type == "/problems/validation"
    assert [e.pointer for e in caught.value.errors] == ["/requests/7/k"]
    assert "/requests/7/k" in caught.value.detail


def test_a_batch_takes_board_strings_and_mappings_as_well_as_move_requests(
    client: Client,
) -> None:
    """What move() takes (a board string), a mapping of MoveRequest's fields, or a
    MoveRequest: the same answers, over more than one chunk."""
    options: dict[str, Any] = {"k": 3, "difficulty": "easy", "seed": 4}
    requests = [
        MoveRequest("....X...."),
        MoveRequest("." * 16, **options),
        MoveRequest("XX.OO...."),
    ] * 2
    forms = ["....X....", {"board": "." * 16, **options}, MoveRequest("XX.OO....")] * 2
    assert len(forms) > BATCH_LIMIT
    results = client.batch(forms)
    assert results == client.batch(requests)
    assert results[0] == client.move("....X....")
    assert results[1] == client.move("." * 16, **options)


def refusing_client() -> Client:
    """A client whose every request fails the test: nothing may be sent."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.url}")

    return Client(
        "http://127.0.0.1:1", http_client=httpx.Client(transport=httpx.MockTransport(refuse))
    )


ACCEPTED = (
    "a request is a board string (as move() takes), a mapping of MoveRequest's fields, "
    "or a MoveRequest"
)
FIELDS = "its fields are board, moves, k, rows, cols, rule, player, time_limit_ms, difficulty, seed"
# What batch() is given as its second request, and how its TypeError starts and ends.
NOT_REQUESTS: list[tuple[object, str, str]] = [
    (9, "requests[1] is 9 (int); ", ACCEPTED),
    (None, "requests[1] is None (NoneType); ", ACCEPTED),
    (b"X...O....", "requests[1] is b'X...O....' (bytes); ", ACCEPTED),
    (["X...O...."], "requests[1] is ['X...O....'] (list); ", ACCEPTED),
    (AnalysisRequest("X...O...."), "requests[1] is AnalysisRequest(board='X...O....', ", ACCEPTED),
    ({"bord": "X...O...."}, "requests[1] has 'bord', which MoveRequest lacks; ", FIELDS),
    ({"k": 3}, "requests[1] has neither 'board' nor 'moves': ", "{'k': 3}"),
]


@pytest.mark.parametrize(("item", "start", "end"), NOT_REQUESTS)
def test_a_batch_refuses_what_is_not_a_request_before_sending_anything(
    item: object, start: str, end: str
) -> None:
    with refusing_client() as client, pytest.raises(TypeError) as caught:
        client.batch(["X...O....", item] * 100)  # type: ignore[list-item]
    message = str(caught.value)
    assert message.startswith("batch(): " + start) and message.endswith(end), message


@pytest.mark.parametrize(
    "requests", ["X...O....", {"board": "X...O...."}, MoveRequest("X...O....")]
)
def test_one_request_in_place_of_a_list_is_refused(requests: object) -> None:
    """A string is an iterable of one-letter boards, a mapping of its keys: neither is meant."""
    with refusing_client() as client, pytest.raises(TypeError) as caught:
        client.batch(requests)  # type: ignore[arg-type]
    name = type(requests).__name__
    assert str(caught.value).startswith(f"batch() takes a list of requests, not one {name}: ")
    assert str(caught.value).endswith("; pass [request] for a single one")


def test_the_async_batch_takes_and_refuses_the_same(client: Client, server: RunningServer) -> None:
    async def ask() -> list[MoveAnswer | Problem]:
        async with AsyncClient(server.url, batch_limit=BATCH_LIMIT) as async_client:
            with pytest.raises(TypeError, match=r"^batch\(\): requests\[1\] is 9 \(int\); "):
                await async_client.batch(["X...O....", 9])  # type: ignore[list-item]
            return await async_client.batch(["X...O....", {"board": "XX.OO...."}])

    assert asyncio.run(ask()) == client.batch([MoveRequest("X...O...."), MoveRequest("XX.OO....")])


def test_an_empty_batch_sends_nothing(server: RunningServer) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.url}")

    with Client(server.url, http_client=httpx.Client(transport=httpx.MockTransport(refuse))) as c:
        assert c.batch([]) == []


def test_a_batch_limit_above_the_servers_is_its_problem(server: RunningServer) -> None:
    with Client(server.url) as client, pytest.raises(ProblemError) as caught:
        client.batch([MoveRequest(".........")] * (BATCH_LIMIT + 1))
    assert caught.value.type == "/problems/batch-too-large"


PROBLEMS: list[tuple[str, dict[str, Any], str, str | None]] = [
    ("XXXOO....", {}, "/problems/game-over", None),
    ("XQ.......", {}, "/problems/invalid-board", "/board"),
    ("XX.......", {}, "/problems/illegal-position", "/board"),
    ("X........", {"player": "X"}, "/problems/illegal-position", "/player"),
    (".........", {"k": 21}, "/problems/validation", "/k"),
    (".........", {"seed": -1}, "/problems/validation", "/seed"),
]


@pytest.mark.parametrize(("board", "options", "kind", "pointer"), PROBLEMS)
def test_a_problem_raises_with_everything_the_server_said(
    client: Client,
    server: RunningServer,
    board: str,
    options: dict[str, Any],
    kind: str,
    pointer: str | None,
) -> None:
    with pytest.raises(ProblemError) as caught:
        client.move(board, **options)
    error = caught.value
    raw = httpx.post(f"{server.url}/v1/move", json={"board": board, **options}).json()
    assert error.raw == raw
    assert (error.type, error.status, error.title, error.detail) == (
        kind,
        422,
        raw["title"],
        raw["detail"],
    )
    assert error.instance == "/v1/move"
    assert [e.pointer for e in error.errors] == ([pointer] if pointer else [])
    assert str(error) == f"422 {raw['title']}: {raw['detail']}"


def test_game_over_carries_the_winner(client: Client) -> None:
    with pytest.raises(ProblemError) as caught:
        client.move("XXXOO....")
    assert caught.value.raw["winner"] == "X"
    assert caught.value.raw["winning_lines"] == [[0, 1, 2]]


def test_analysis_problems_raise_too(client: Client) -> None:
    with pytest.raises(ProblemError) as caught:
        client.analysis("XQ.......")
    assert caught.value.errors == (FieldError(caught.value.detail, pointer="/board"),)


def test_health(client: Client) -> None:
    assert client.health() == Health("ok")


def test_the_base_url_may_end_in_a_slash(server: RunningServer) -> None:
    with Client(server.url + "/") as client:
        assert client.health().status == "ok"


def test_closing_closes_its_own_connection_pool_only(server: RunningServer) -> None:
    with Client(server.url) as own:
        own.health()
    with pytest.raises(RuntimeError, match="closed"):
        own.health()
    with httpx.Client() as lent:
        with Client(server.url, http_client=lent) as borrowing:
            borrowing.health()
        assert lent.get(f"{server.url}/livez").status_code == 200


def test_the_async_client_answers_as_the_blocking_one(
    client: Client, server: RunningServer
) -> None:
    requests = [MoveRequest(board) for board in ("....X....", "X...O....", "XX.......")] * 3

    async def ask() -> tuple[Any, ...]:
        async with AsyncClient(server.url, batch_limit=BATCH_LIMIT) as async_client:
            move = await async_client.move("X...O....", difficulty="hard", seed=3)
            analysis = await async_client.analysis("XX.OO....")
            batch = await async_client.batch(requests)
            health = await async_client.health()
            with pytest.raises(ProblemError) as caught:
                await async_client.move("XXXOO....")
            return move, analysis, batch, health, caught.value.type

    move, analysis, batch, health, problem = asyncio.run(ask())
    assert move == client.move("X...O....", difficulty="hard", seed=3)
    assert analysis == client.analysis("XX.OO....")
    assert batch == client.batch(requests)
    assert (health, problem) == (Health("ok"), "/problems/game-over")


def test_the_timeout_applies_to_each_request(server: RunningServer) -> None:
    with (
        Client(server.url, timeout=0.001, retries=0) as client,
        pytest.raises(httpx.TimeoutException),
    ):
        client.analysis("." * 49)


def test_the_user_agent_names_the_client(server: RunningServer) -> None:
    agents: list[str] = []

    def record(request: httpx.Request) -> None:
        agents.append(request.headers["user-agent"])

    with (
        httpx.Client(event_hooks={"request": [record]}) as http,
        Client(server.url, http_client=http) as client,
    ):
        client.health()
    assert agents[0].startswith("tictactoe-client/0.1.0")


def test_settings_are_checked_up_front() -> None:
    with pytest.raises(ValueError, match="retries must be 0 or more, not -1"):
        Client("http://127.0.0.1:1", retries=-1)
    with pytest.raises(ValueError, match="batch_limit must be 1 or more, not 0"):
        AsyncClient("http://127.0.0.1:1", batch_limit=0)


KEY = "client-test-key"
SLOW_KEY = "client-test-key-with-a-tiny-quota"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server that answers only known keys; SLOW_KEY's bucket holds one unit."""
    folder = tmp_path_factory.mktemp("keyed-server")
    keys = folder / "keys.json"
    entries = [
        {"name": "test", "sha256": hashlib.sha256(KEY.encode()).hexdigest()},
        {
            "name": "slow",
            "sha256": hashlib.sha256(SLOW_KEY.encode()).hexdigest(),
            "rate": 0.01,
            "burst": 1,
        },
    ]
    keys.write_text(json.dumps({"keys": entries}))
    with running_server(
        folder, TTT_API_KEYS_FILE=str(keys), TTT_REQUIRE_API_KEY="1", TTT_LOG_LEVEL="warning"
    ) as running:
        yield running


def test_a_known_api_key_is_let_in(keyed_server: RunningServer) -> None:
    with Client(keyed_server.url, api_key=KEY) as client:
        assert client.move("X...O....").move.index == 1


@pytest.mark.parametrize("api_key", [None, "not-a-known-key"])
def test_a_server_that_requires_a_key_refuses_others(
    keyed_server: RunningServer, api_key: str | None
) -> None:
    waits: list[float] = []
    with (
        Client(keyed_server.url, api_key=api_key, sleep=waits.append) as client,
        pytest.raises(ProblemError) as caught,
    ):
        client.move("X...O....")
    assert (caught.value.status, caught.value.type) == (401, "/problems/api-key-required")
    assert waits == []


def test_a_client_over_its_quota_retries_then_raises_the_429(
    keyed_server: RunningServer,
) -> None:
    waits: list[float] = []
    with Client(keyed_server.url, api_key=SLOW_KEY, sleep=waits.append) as client:
        client.move("X...O....")  # the bucket's one unit
        with pytest.raises(ProblemError) as caught:
            client.move("X...O....")
    error = caught.value
    assert (error.status, error.type) == (429, "/problems/rate-limited")
    assert error.raw["reason"] == "rate"
    assert error.retry_after is not None and 60 < error.retry_after <= 100
    assert waits == [MAX_RETRY_AFTER] * DEFAULT_RETRIES

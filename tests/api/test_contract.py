"""API v1 as a client sees it: answers, caching headers, batches, CORS, docs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate

from service.app import create_app
from service.engine import Board, Player, Status
from service.settings import Settings
from tests.heavy import HARD

MOVE_FIELDS = {
    "move",
    "player",
    "score",
    "outcome",
    "plies",
    "line",
    "best_moves",
    "best_score",
    "is_best",
    "exact",
    "depth",
    "stopped_by",
    "board",
    "board_after",
    "status_after",
    "winner_after",
    "winning_lines_after",
    "rows",
    "cols",
    "k",
    "rule",
    "difficulty",
    "seed",
}


def test_post_move_answers_with_the_best_move(client: TestClient) -> None:
    response = client.post("/v1/move", json={"board": "....X...."})
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == MOVE_FIELDS
    assert answer["move"] == {"index": 0, "row": 0, "col": 0, "name": "a3"}
    assert answer["rule"] == "freestyle"
    assert answer["player"] == "O"
    assert [c["index"] for c in answer["best_moves"]] == [0, 2, 6, 8]
    assert (answer["score"], answer["best_score"], answer["outcome"]) == (0, 0, "draw")
    assert (answer["plies"], answer["is_best"], answer["exact"], answer["depth"]) == (
        8,
        True,
        True,
        8,
    )
    assert answer["board_after"] == "O...X...."
    assert answer["status_after"] == "in_progress"


def test_a_winning_move_reports_the_line_after(client: TestClient) -> None:
    answer = client.post("/v1/move", json={"board": "xx./oo./..."}).json()
    assert answer["move"]["index"] == 2 and answer["score"] == 9 and answer["plies"] == 1
    assert (answer["status_after"], answer["winner_after"]) == ("won", "X")
    assert answer["winning_lines_after"] == [[0, 1, 2]]


def test_o_may_start(client: TestClient) -> None:
    answer = client.post("/v1/move", json={"board": ".........", "player": "O"}).json()
    assert answer["player"] == "O" and answer["board_after"] == "O........"


def test_seeds_and_difficulty(client: TestClient) -> None:
    body = {"board": "....X....", "seed": 11, "difficulty": "easy"}
    first = client.post("/v1/move", json=body).json()
    assert client.post("/v1/move", json=body).json() == first
    assert first["difficulty"] == "easy" and first["seed"] == 11
    seen = {client.post("/v1/move", json={**body, "seed": s}).json()["is_best"] for s in range(40)}
    assert seen == {True, False}


def test_a_batch_item_plays_its_seed_as_a_single_request_does(client: TestClient) -> None:
    """A bot replaying a game gets the same moves in a batch as one by one."""
    items = [{"board": "....X....", "difficulty": "easy", "seed": s} for s in range(4)]
    single = [client.post("/v1/move", json=item).json()["move"]["index"] for item in items]
    assert len(set(single)) > 1  # the seeds choose different moves
    results = client.post("/v1/batch", json={"requests": items}).json()["results"]
    assert [result["move"]["index"] for result in results] == single


def test_larger_boards(client: TestClient) -> None:
    answer = client.post("/v1/move", json={"board": "................", "k": 3}).json()
    assert answer["exact"] and answer["outcome"] == "win" and answer["rows"] == 4
    assert answer["board_after"].count("/") == 3
    estimate = client.post("/v1/analysis", json={"board": HARD}).json()
    assert estimate["exact"] is False and estimate["outcome"] is None
    assert estimate["depth"] >= 1 and len(estimate["moves"]) == 47


def long_game(size: int, plies: int) -> list[str]:
    """A game of ``plies`` moves on a ``size`` board that nobody has won: each
    move the first cell, in a fixed shuffled order, that does not end it."""
    board = Board.empty(size, size)
    order = list(range(size * size))
    random.Random(size).shuffle(order)
    names = []
    while len(names) < plies:
        cell = next(c for c in order if board.mark(c) is None and not board.play(c).winner)
        board = board.play(cell)
        names.append(board.shape.coordinate(cell))
    return names


def test_a_long_20x20_game_fits_the_limits_with_room_to_spare(client: TestClient) -> None:
    """350 moves: the body, the query string and a batch of 100 such games
    each take at most a quarter of their limit (the figures of docs/api.md)."""
    limits = Settings()
    moves = long_game(20, 350)
    body = {"moves": moves, "rows": 20, "cols": 20, "time_limit_ms": 50}
    assert 4 * len(json.dumps(body)) <= limits.body_limit_bytes
    assert client.post("/v1/move", json=body).status_code == 200
    url = f"/v1/move?moves={','.join(moves)}&rows=20&cols=20&time_limit_ms=50"
    assert 4 * len(url) <= limits.header_limit_bytes
    assert client.get(url).status_code == 200
    batch = json.dumps({"requests": [body] * 100})
    assert 4 * len(batch) <= limits.batch_body_limit_bytes


def test_analysis_lists_every_move_best_first(client: TestClient) -> None:
    answer = client.post("/v1/analysis", json={"board": "X.......O"}).json()
    assert answer["status"] == "in_progress" and answer["player"] == "X"
    moves = answer["moves"]
    assert len(moves) == 7
    keys = [(-m["score"], m["index"]) for m in moves]
    assert keys == sorted(keys)
    line = moves[0].pop("line")
    assert moves[0] == {
        "index": 2,
        "row": 0,
        "col": 2,
        "name": "c3",
        "score": 5,
        "outcome": "win",
        "plies": 5,
        "exact": True,
    }
    assert answer["score"] == 5 and answer["outcome"] == "win" and answer["plies"] == 5
    # Boards up to 7x7 list every move: none is omitted.
    assert answer["omitted"] == {"count": 0, "score": None, "outcome": None, "plies": None}
    # The line of a proven win reaches the winning move in exactly its plies.
    assert len(line) == 5 and line[0]["index"] == 2
    board = Board.parse("X.......O")
    for step in line:
        assert board.status is Status.IN_PROGRESS
        board = board.play(step["index"])
    assert board.winner is Player.X


@pytest.mark.parametrize(
    ("board", "status", "winner", "lines", "outcome", "score"),
    [
        ("XXXOO....", "won", "X", [[0, 1, 2]], "loss", -10),  # lost, 0 plies away
        ("XXOOOXXOX", "drawn", None, [], "draw", 0),
    ],
)
def test_analysis_of_a_finished_game(
    client: TestClient,
    board: str,
    status: str,
    winner: str | None,
    lines: list[list[int]],
    outcome: str,
    score: int,
) -> None:
    answer = client.post("/v1/analysis", json={"board": board}).json()
    assert (answer["status"], answer["winner"], answer["winning_lines"]) == (status, winner, lines)
    assert (answer["moves"], answer["outcome"], answer["plies"]) == ([], outcome, 0)
    assert (answer["score"], answer["exact"], answer["stopped_by"]) == (score, True, None)


def test_get_move_is_cacheable_with_etag_and_304(client: TestClient) -> None:
    first = client.get("/v1/move", params={"board": "X...O....", "seed": 5})
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert first.headers["cache-control"] == "public, max-age=86400"
    again = client.get(
        "/v1/move", params={"board": "X...O....", "seed": 5}, headers={"if-none-match": etag}
    )
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    other = client.get(
        "/v1/move", params={"board": "X...O....", "seed": 6}, headers={"if-none-match": etag}
    )
    assert other.status_code == 200
    assert client.post("/v1/move", json={"board": "X...O....", "seed": 5}).json() == first.json()


def test_fresh_randomness_is_not_stored(client: TestClient) -> None:
    response = client.get("/v1/move", params={"board": "X...O....", "difficulty": "easy"})
    assert response.headers["cache-control"] == "no-store"
    assert "etag" not in response.headers


def test_get_analysis(client: TestClient) -> None:
    response = client.get("/v1/analysis", params={"board": "X.O/.X./..O"})
    assert response.status_code == 200 and "etag" in response.headers
    assert response.json()["board"] == "X.O.X...O"


def test_batch_answers_in_order_with_problems_in_place(client: TestClient) -> None:
    response = client.post(
        "/v1/batch",
        json={
            "requests": [
                {"board": "........."},
                {"board": "XX......."},
                {"board": "XXXOO...."},
                {"board": "X........", "seed": 1, "difficulty": "hard"},
            ]
        },
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["move"]["index"] == 0
    assert results[1]["type"] == "/problems/illegal-position"
    assert results[1]["errors"][0]["pointer"] == "/requests/1/board"
    assert results[2]["type"] == "/problems/game-over" and results[2]["winner"] == "X"
    assert results[3]["player"] == "O"


def test_batch_limit_is_enforced(client: TestClient) -> None:
    response = client.post("/v1/batch", json={"requests": [{"board": "........."}] * 6})
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/batch-too-large"


def test_cors_for_browser_frontends(client: TestClient) -> None:
    preflight = client.options(
        "/v1/move",
        headers={
            "origin": "https://game.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in preflight.headers
    simple = client.post("/v1/move", json={"board": "Z"}, headers={"origin": "https://a.example"})
    assert simple.headers["access-control-allow-origin"] == "*"


def test_cors_restricted_to_listed_origins() -> None:
    settings = Settings(cors_origins="https://game.example, https://other.example")
    with TestClient(create_app(settings)) as restricted:
        for origin in ("https://game.example", "https://other.example"):
            preflight = restricted.options(
                "/v1/move",
                headers={"origin": origin, "access-control-request-method": "POST"},
            )
            assert preflight.status_code == 200
            assert preflight.headers["access-control-allow-origin"] == origin
            simple = restricted.get("/livez", headers={"origin": origin})
            assert simple.headers["access-control-allow-origin"] == origin
        stranger = "https://elsewhere.example"
        preflight = restricted.options(
            "/v1/move", headers={"origin": stranger, "access-control-request-method": "POST"}
        )
        assert preflight.status_code == 400
        assert "access-control-allow-origin" not in preflight.headers
        simple = restricted.get("/livez", headers={"origin": stranger})
        assert simple.status_code == 200 and "access-control-allow-origin" not in simple.headers


def test_docs_work_offline(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text and "https://" not in page.text.split("<body>")[0]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert client.get(f"/static/vendor/swagger-ui/{asset}").status_code == 200


def test_problem_types_are_documented(client: TestClient) -> None:
    answer = client.get("/problems/game-over").json()
    assert answer["type"] == "/problems/game-over" and answer["status"] == 422


def test_request_id_is_echoed_or_generated(client: TestClient) -> None:
    assert client.get("/livez", headers={"x-request-id": "abc-123"}).headers["x-request-id"] == (
        "abc-123"
    )
    generated = client.get("/livez", headers={"x-request-id": "bad id\twith spaces"})
    assert generated.headers["x-request-id"] != "bad id\twith spaces"
    assert len(generated.headers["x-request-id"]) == 32


OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_openapi_matches_the_app() -> None:
    current = create_app(Settings()).openapi()
    committed = json.loads(OPENAPI.read_text())
    assert committed == current, "the API changed: run `make openapi` and commit the result"


def test_the_command_prints_the_committed_openapi_byte_for_byte() -> None:
    """What `make openapi` runs: `python -m service --openapi`, with nothing else on stdout."""
    printed = subprocess.run(
        [sys.executable, "-m", "service", "--openapi"],
        cwd=OPENAPI.parents[1],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert printed.stdout == OPENAPI.read_bytes()


def test_openapi_is_valid_with_examples_and_stable_ids() -> None:
    spec = json.loads(OPENAPI.read_text())
    validate(spec)
    ids = [op["operationId"] for path in spec["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids))
    assert {"postMove", "getMove", "postAnalysis", "getAnalysis", "postBatch"} <= set(ids)
    for path in spec["paths"].values():
        for operation in path.values():
            body = operation.get("requestBody")
            if body:
                ref = body["content"]["application/json"]["schema"]["$ref"].split("/")[-1]
                assert spec["components"]["schemas"][ref].get("examples"), ref
            for code, response in operation["responses"].items():
                if code[0] in "45":
                    assert list(response["content"]) == ["application/problem+json"], code

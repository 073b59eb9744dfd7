"""The answer cache: repeated requests get the same bytes, and only exact,
deterministic answers are ever replayed."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings
from tests.heavy import heavy


def _hits(client: TestClient) -> int:
    stats = client.app.state.replays.stats()  # type: ignore[attr-defined]
    return 0 if stats is None else int(stats.hits)


def test_a_repeated_move_is_replayed_byte_for_byte() -> None:
    with TestClient(create_app(Settings())) as client:
        body = {"board": "X...O....", "seed": 3}
        first = client.post("/v1/move", json=body)
        before = _hits(client)
        again = client.post("/v1/move", json=body)
        assert again.content == first.content and again.status_code == 200
        assert again.headers["content-type"] == "application/json"
        assert int(again.headers["content-length"]) == len(first.content)
        assert _hits(client) == before + 1
        metrics = client.get("/metrics").text
        assert re.search(r'tictactoe_moves_served_total\{difficulty="perfect"\} 2\.0', metrics)
        assert 'route="/v1/move",status="200"} 2.0' in metrics


def test_only_deterministic_exact_answers_are_kept() -> None:
    with TestClient(create_app(Settings(node_budget=500))) as client:
        random_move = {"board": "X...O....", "difficulty": "easy"}  # fresh randomness
        estimate = heavy()  # not exact within 500 nodes
        for body in (random_move, random_move, estimate, estimate):
            assert client.post("/v1/move", json=body).status_code == 200
        assert client.post("/v1/analysis", json=estimate).json()["exact"] is False
        assert client.post("/v1/analysis", json=estimate).json()["exact"] is False
        assert _hits(client) == 0


def test_problems_are_not_replayed_and_limits_still_hold() -> None:
    with TestClient(create_app(Settings())) as client:
        for _ in range(2):
            response = client.post("/v1/move", json={"board": "XX......."})
            assert response.status_code == 422
        too_big = b'{"board": "' + b"." * 20_000 + b'"}'
        response = client.post(
            "/v1/move", content=too_big, headers={"content-type": "application/json"}
        )
        assert response.status_code == 413
        assert _hits(client) == 0


def test_batch_items_reuse_their_answers() -> None:
    with TestClient(create_app(Settings())) as client:
        body = {"requests": [{"board": "X...O...."}, {"board": "XX......."}] * 3}
        first = client.post("/v1/batch", json=body).json()["results"]
        assert first[0] == first[2] == first[4] and "type" in first[1]
        before = _hits(client)
        assert client.post("/v1/batch", json=body).json()["results"] == first
        assert _hits(client) >= before + 3


def test_the_cache_can_be_turned_off() -> None:
    with TestClient(create_app(Settings(response_cache_entries=0))) as client:
        body = {"board": "X...O...."}
        assert (
            client.post("/v1/move", json=body).json() == client.post("/v1/move", json=body).json()
        )
        assert client.app.state.replays.stats() is None  # type: ignore[attr-defined]


def test_a_repeated_get_is_replayed_with_its_etag_and_304() -> None:
    with TestClient(create_app(Settings())) as client:
        params = {"board": "X.O/.X./..."}
        first = client.get("/v1/analysis", params=params)
        before = _hits(client)
        again = client.get("/v1/analysis", params=params)
        assert again.content == first.content
        assert again.headers["etag"] == first.headers["etag"]
        assert again.headers["cache-control"] == first.headers["cache-control"]
        unchanged = client.get(
            "/v1/analysis", params=params, headers={"if-none-match": first.headers["etag"]}
        )
        assert unchanged.status_code == 304 and unchanged.content == b""
        assert unchanged.headers["etag"] == first.headers["etag"]
        assert _hits(client) == before + 2
        fresh = client.get("/v1/move", params={"board": "X...O....", "difficulty": "easy"})
        assert fresh.headers["cache-control"] == "no-store"
        assert (
            client.get("/v1/move", params={"board": "X...O....", "difficulty": "easy"}).headers[
                "cache-control"
            ]
            == "no-store"
        )
        assert _hits(client) == before + 2

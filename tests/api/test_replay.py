"""The answer cache: repeated requests get the same bytes, and only exact,
deterministic answers are ever replayed."""

from __future__ import annotations

import itertools
import re

import pytest
from fastapi.testclient import TestClient

from service.api.replay import etag_matches
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


@pytest.mark.parametrize(
    ("if_none_match", "etag", "matches"),
    [
        ('"a"', '"a"', True),
        ('"b", "a"', '"a"', True),  # any of several tags
        ('"b","c"', '"a"', False),
        ("*", '"a"', True),  # any current representation
        ('W/"a"', '"a"', True),  # weak comparison: W/ is ignored on either side
        ('"a"', 'W/"a"', True),
        ('W/"b", W/"a"', '"a"', True),
        ('"A"', '"a"', False),  # tags are case-sensitive
        ("", '"a"', False),
        (None, '"a"', False),
        ('"a"', None, False),  # no tag of our own: nothing matches, not even *
        ("*", None, False),
    ],
)
def test_if_none_match_is_a_weak_comparison_of_every_tag(
    if_none_match: str | None, etag: str | None, matches: bool
) -> None:
    assert etag_matches(if_none_match, etag) is matches


def test_the_cache_max_age_setting_is_the_max_age_sent() -> None:
    with TestClient(create_app(Settings(cache_max_age_seconds=60))) as client:
        answer = client.get("/v1/move", params={"board": "X...O....", "seed": 1})
    assert answer.headers["cache-control"] == "public, max-age=60"


def distinct_positions(count: int) -> list[str]:
    """``count`` different 3x3 positions of a game in progress, in a fixed order."""
    found: list[str] = []
    for x in itertools.combinations(range(9), 2):
        for o in itertools.combinations(sorted(set(range(9)) - set(x)), 1):
            cells = ["."] * 9
            for c in x:
                cells[c] = "X"
            for c in o:
                cells[c] = "O"
            found.append("".join(cells))
    found += ["." * i + "X" + "." * (8 - i) for i in range(9)]
    assert len(found) >= count
    return found[:count]


def test_the_answer_entries_setting_bounds_the_engines_answers() -> None:
    with TestClient(create_app(Settings(answer_entries=100))) as client:
        for board in distinct_positions(150):
            assert client.post("/v1/analysis", json={"board": board}).status_code == 200
        answers = client.app.state.engine.stats().answers  # type: ignore[attr-defined]
    assert answers.max_entries == 100
    assert answers.entries == 100 and answers.evictions >= 50

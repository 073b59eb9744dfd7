"""Renju over HTTP: the rule is accepted everywhere a rule is, the analysis
lists X's forbidden cells, a forbidden move in a move list is a 422 naming it,
the rule's limits are 422s naming them, and no answer suggests a forbidden
move (the engine's own tests, tests/engine/test_renju.py, check the rule)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

# X (to move) with a double three on h8: the row g8 . i8 and the column h7 . h9;
# O's gapped column a1 a3 a5 a7 threatens two fours at a4.
DOUBLE_THREE = ["g8", "a1", "i8", "a3", "h7", "a5", "h9", "a7"]


def test_the_analysis_lists_x_forbidden_cells_with_why(client: TestClient) -> None:
    answer = client.post("/v1/analysis", json={"moves": DOUBLE_THREE, "rule": "renju"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["rule"] == "renju"
    assert body["forbidden"] == [
        {"index": 112, "row": 7, "col": 7, "name": "h8", "kind": "double-three"}
    ]
    assert "h8" not in {move["name"] for move in body["moves"]}
    # The same game under freestyle: nothing is forbidden.
    free = client.post("/v1/analysis", json={"moves": DOUBLE_THREE}).json()
    assert free["forbidden"] == []


def test_a_get_analysis_takes_the_rule_too(client: TestClient) -> None:
    params = {"moves": ",".join(DOUBLE_THREE), "rule": "renju"}
    answer = client.get("/v1/analysis", params=params)
    assert answer.status_code == 200, answer.text
    assert [cell["name"] for cell in answer.json()["forbidden"]] == ["h8"]


def test_the_move_is_never_a_forbidden_one(client: TestClient) -> None:
    answer = client.post("/v1/move", json={"moves": DOUBLE_THREE, "rule": "renju"})
    assert answer.status_code == 200
    assert answer.json()["move"]["name"] in {"a2", "a4", "a6"}  # O's two fours stopped


def test_a_forbidden_move_in_the_list_is_refused_naming_it(client: TestClient) -> None:
    answer = client.post("/v1/move", json={"moves": [*DOUBLE_THREE, "h8"], "rule": "renju"})
    assert answer.status_code == 422
    problem = answer.json()
    assert problem["type"].endswith("/illegal-position")
    assert problem["cell"] == 112 and problem["forbidden"] == "double-three"
    assert problem["errors"][0]["pointer"] == "/moves/8"
    assert "move 9 (h8, cell 112) is forbidden to X (Black) under renju" in problem["detail"]


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"moves": ["h8"], "k": 4}, "/k", "renju is played with k = 5, got k = 4"),
        ({"board": "." * 64}, "/board", "renju is played on boards of 9 to 20"),
        ({"moves": ["e5"], "rows": 8, "cols": 9}, "/rows", "got rows = 8"),
        ({"board": "." * 225, "player": "O"}, "/player", "X (Black) moves first"),
    ],
)
def test_renjus_limits_are_problems_naming_them(
    client: TestClient, body: dict[str, object], pointer: str, detail: str
) -> None:
    answer = client.post("/v1/move", json={**body, "rule": "renju"})
    assert answer.status_code == 422
    problem = answer.json()
    assert detail in problem["detail"]
    assert problem["errors"][0]["pointer"] == pointer

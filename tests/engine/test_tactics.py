"""The tactical suite (``bench/tactics.json``): its labels checked again by the plain
reference, every stored win by continuous fours replayed against every defence,
and the immediate rules right at a budget of 1,000 nodes. (``bench/tactics.py``
runs the whole suite at the service's defaults, where timing belongs.)"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from service.engine import GENERAL_RULES, Board, Engine, Outcome
from tests.engine import gomoku as ref

SUITE = Path(__file__).resolve().parents[2] / "bench" / "tactics.json"
ENTRIES: list[dict[str, Any]] = json.loads(SUITE.read_text())["positions"]
IMMEDIATE = ("five", "block", "double-four", "open-four")


def board_of(entry: dict[str, Any]) -> Board:
    return Board.parse(entry["board"], rule=entry["rule"], player=entry["player"])


def test_the_suite_is_large_and_varied() -> None:
    assert len(ENTRIES) >= 200
    counts = Counter(entry["category"] for entry in ENTRIES)
    assert set(counts) == {*IMMEDIATE, "vcf", "vct", "quiet"}
    assert min(counts.values()) >= 20
    boards = [board_of(entry) for entry in ENTRIES]
    assert {b.rows for b in boards} >= {9, 20} and all(9 <= b.rows <= 20 for b in boards)
    assert {b.rule for b in boards} == set(GENERAL_RULES)  # renju: test_renju.py


@pytest.mark.parametrize(
    "entry", ENTRIES, ids=[f"{i}-{e['category']}" for i, e in enumerate(ENTRIES)]
)
def test_each_label_is_the_references(entry: dict[str, Any]) -> None:
    board = board_of(entry)
    me, them = board.side_to_move, board.side_to_move.other
    category = entry["category"]
    mine, theirs = ref.five_points(board, me), ref.five_points(board, them)
    if category == "five":
        assert sorted(mine) == entry["cells"]
        return
    assert not mine
    if category == "double-four":
        assert len(theirs) >= 2
    elif category == "block":
        assert theirs == {entry["cell"]}
    else:
        assert not theirs
    if category == "open-four":
        assert sorted(ref.open_four_moves(board, me)) == entry["cells"]
    elif category == "quiet":
        assert not ref.threat_moves(board, me)
    elif category == "vcf":
        assert len(entry["line"]) >= 15
        assert ref.check_vcf(board, entry["line"]) is None
    elif category == "vct":
        assert entry["line"][0] in board.empty_cells()


IMMEDIATE_ENTRIES = [e for e in ENTRIES if e["category"] in IMMEDIATE]


@pytest.mark.parametrize(
    "entry",
    IMMEDIATE_ENTRIES,
    ids=[f"{i}-{e['category']}" for i, e in enumerate(IMMEDIATE_ENTRIES)],
)
def test_the_immediate_rules_are_right_at_1000_nodes(entry: dict[str, Any]) -> None:
    analysis = Engine(node_budget=1_000, table_bytes=1 << 20).analyze(board_of(entry))
    assert ref.right_answer(entry, analysis) is None


@pytest.mark.slow
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["category"] == "vcf"][::6])
def test_long_wins_by_fours_are_found_and_hold(entry: dict[str, Any]) -> None:
    """A sample of the long wins, at a fixed budget (no clock): the engine proves a
    win, and every win it claims by a line of fours holds against every defence."""
    analysis = Engine(node_budget=400_000, table_bytes=16 << 20).analyze(board_of(entry))
    assert analysis.outcome is Outcome.WIN
    assert ref.claims_hold(analysis) is None

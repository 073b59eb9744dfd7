"""``bench/move_order.py``: it ranks the reference's moves, not ours, each
position once, at its place among the candidates ``_core.big_candidates()``
lists; and
its fit learns a class that the order misplaces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from service.engine import _core
from service.engine.evaluation import CLASSES
from tests.bench.test_match import bench_module

SIZE = 15


@pytest.fixture(scope="module")
def order() -> ModuleType:
    return bench_module("move_order")


def game(moves: list[tuple[int, int]], opening: int, ours_first: bool) -> dict:
    """A match.py game record: ``opening`` stones placed, then the entrants in turn."""
    played = len(moves) - opening
    return {
        "size": SIZE,
        "rule": "freestyle",
        "pair": 3,
        "ours_first": ours_first,
        "moves": [list(m) for m in moves],
        "winner": None,
        "forfeit": None,
        "replies_ms": [[1.0] * ((played + 1) // 2), [1.0] * (played // 2)],
    }


MOVES = [(7, 7), (8, 7), (7, 8), (8, 8), (6, 6), (9, 9), (10, 10), (6, 9)]


def test_the_references_moves_are_the_other_entrants_each_position_once(
    order: ModuleType, tmp_path: Path
) -> None:
    games = tmp_path / "games.jsonl"
    records = [game(MOVES, 3, True), game(MOVES, 3, True), game(MOVES, 3, False)]
    games.write_text("".join(json.dumps(r) + "\n" for r in records))
    # After 3 opening stones, entrant 0 plays indices 3, 5, 7 and entrant 1 4, 6.
    found = [(g["ours_first"], i) for g, i in order.reference_moves([games], False)]
    assert found == [(True, 4), (True, 6), (False, 3), (False, 5), (False, 7)]
    every = [i for _, i in order.reference_moves([games], True)]
    assert every == [3, 4, 5, 6, 7]


def test_a_move_is_ranked_among_the_candidates_by_their_scores(order: ModuleType) -> None:
    record = game(MOVES, 3, True)
    position = order.position_of(record, 6)
    cells = [y * SIZE + x for x, y in MOVES]
    listed = _core.big_candidates(SIZE, SIZE, 5, 0, cells[:6])
    assert [s for _, s in listed] == list(position.scores)
    assert listed[position.target][0] == cells[6]
    data = order.Stacked([position])
    base = np.zeros(1 + 2 * len(CLASSES))
    base[0] = 1.0
    assert data.ranks(base).tolist() == [position.target]  # listed best first


def test_a_forced_block_is_no_choice_to_rank(order: ModuleType) -> None:
    # O to move against X's four (7..10 on row 7): its one move is the block.
    four = [(7, 7), (0, 0), (8, 7), (0, 2), (9, 7), (0, 4), (10, 7), (11, 7)]
    assert order.position_of(game(four, 0, True), 7) is None


def test_the_fit_learns_a_class_the_order_misplaces(order: ModuleType) -> None:
    # Half the positions: the reference plays the best-scored move. The other
    # half: its class-30 cell, which the order scores least.
    rng = np.random.default_rng(7)
    positions = []
    for pair in range(240):
        mine = rng.choice(np.arange(20), size=6, replace=False)
        theirs = rng.integers(0, 20, size=6)
        scores = rng.uniform(100, 3000, size=6)
        target = int(np.argmax(scores))
        if pair % 2:
            mine[0], scores[0], target = 30, 0, 0
        positions.append(order.Position(scores, mine, theirs, target, False, pair))
    data = order.Stacked(positions)
    base = np.zeros(1 + 2 * len(CLASSES))
    base[0] = 1.0
    assert (data.ranks(base)[1::2] == 5).all()
    params = order.fit(data)
    assert params[0] > 0
    ranks = data.ranks(params)
    assert (ranks[1::2] == 0).all()
    assert (ranks[0::2] == 0).mean() > 0.8
    table = order.header(params, data)
    values = [int(v) for v in re.findall(r"-?\d+", table.split("= {{", 1)[1])]
    assert len(values) == 2 * len(CLASSES)
    assert values[30] == max(values[: len(CLASSES)]) > 0
    assert all(v == 0 for c, v in enumerate(values[: len(CLASSES)]) if c >= 20 and c != 30)

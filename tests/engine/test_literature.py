"""The literature's table of empty boards, ``docs/mnk-results.json``: one entry per game
from 3x3 to 8x8, and values that obey the two rules that carry results from
board to board (``../shared/mnk-results.md``).

The book's tests and ``bench/engine.py`` take it as their oracle, so a slip in
it would pass unnoticed there; here it cannot contradict itself.
"""

from __future__ import annotations

import json

from service.engine import Outcome
from tests.engine.oracle import LITERATURE_PATH, literature, literature_table

SIDES = range(3, 9)


def test_each_game_has_one_entry_with_the_shorter_side_first() -> None:
    games = json.loads(LITERATURE_PATH.read_text())["games"]
    keys = [(g["rows"], g["cols"], g["k"]) for g in games]
    expected = {(r, c, k) for r in SIDES for c in SIDES if r <= c for k in range(3, c + 1)}
    assert len(keys) == len(set(keys)) == 91
    assert set(keys) == expected
    assert {g["outcome"] for g in games} <= {o.value for o in Outcome}


def test_a_board_and_its_transpose_have_one_value() -> None:
    for rows in SIDES:
        for cols in SIDES:
            for k in range(3, max(rows, cols) + 1):
                assert literature(rows, cols, k) is literature(cols, rows, k)


def test_the_second_player_never_wins() -> None:
    """Strategy stealing: an extra mark never hurts the side that owns it."""
    assert Outcome.LOSS not in literature_table().values()


def test_a_win_stays_a_win_on_larger_boards_and_a_draw_for_larger_k() -> None:
    """Marks outside the smaller board change nothing; so a draw is also a draw on
    every smaller board, the same rule read backwards."""
    table = literature_table()
    for (rows, cols, k), value in table.items():
        for (rows2, cols2, k2), value2 in table.items():
            larger = rows2 >= rows and cols2 >= cols
            if value is Outcome.WIN and larger and k2 == k:
                assert value2 is Outcome.WIN, ((rows, cols, k), (rows2, cols2, k2))
            if value is Outcome.DRAW and (rows2, cols2) == (rows, cols) and k2 >= k:
                assert value2 is Outcome.DRAW, ((rows, cols, k), (rows2, cols2, k2))

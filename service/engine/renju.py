"""Renju's forbidden moves, as the engine sees them: which cells X (Black, the
first player) may not take, and the first forbidden move of a game.

The rule itself is stated once, in the compiled core (``core/big/renju.c``):
a move of X that makes exactly five wins and is never forbidden; otherwise an
overline (six or more), a double four or a double three (of real threes,
decided recursively) is forbidden. This module only names the verdicts and
carries positions to the core; the search consults the same code at every
node, so what the service lists as forbidden and what it never plays agree.

>>> from service.engine.board import Board
>>> board = Board.from_moves(["g8", "a1", "i8", "a3", "h7", "a5", "h9", "a7"],
...                          rows=15, cols=15, k=5, rule="renju")
>>> [(board.shape.coordinate(cell), kind.value) for cell, kind in forbidden_cells(board)]
[('h8', 'double-three')]
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from service.engine import _core
from service.engine.geometry import Geometry, Rule

if TYPE_CHECKING:
    from service.engine.board import Board


class Forbidden(StrEnum):
    """Why renju forbids X a move."""

    OVERLINE = "overline"  # six or more in a row
    DOUBLE_FOUR = "double-four"  # two fours at once
    DOUBLE_THREE = "double-three"  # two real threes at once


_KINDS = {1: Forbidden.OVERLINE, 2: Forbidden.DOUBLE_FOUR, 3: Forbidden.DOUBLE_THREE}


def forbidden_cells(board: Board) -> tuple[tuple[int, Forbidden], ...]:
    """X's forbidden empty cells of the board, lowest cell first, with why; none
    under the other rules or once the game is over."""
    shape = board.shape
    if shape.rule is not Rule.RENJU or board.is_game_over():
        return ()
    size = (shape.cells + 7) // 8
    found = _core.renju_forbidden(
        shape.rows, shape.cols, board.x.to_bytes(size, "little"), board.o.to_bytes(size, "little")
    )
    return tuple((cell, _KINDS[kind]) for cell, kind in found)


def first_forbidden(shape: Geometry, cells: Sequence[int]) -> tuple[int, Forbidden] | None:
    """The index in a game's moves (X first, then alternately) of the first move
    of X that renju forbids, with why; None when there is none or the rule is
    another."""
    if shape.rule is not Rule.RENJU:
        return None
    found = _core.renju_first_forbidden(shape.rows, shape.cols, list(cells))
    return None if found is None else (found[0], _KINDS[found[1]])

"""Renju in the engine: the forbidden moves the compiled core decides
(``core/big/renju.c``) against the independent reference
(``tests/renju_reference.py``) on generated positions, the rule in ``Board``,
and the search: it never plays a forbidden move, a four X may only complete
with six is no threat, and O wins by forcing X onto a forbidden cell."""

from __future__ import annotations

import random
import re

import pytest

from service.engine import Analysis, Board, Engine, Outcome, Player, Rule, _core
from service.engine.errors import (
    BoardSizeError,
    ForbiddenMoveError,
    IllegalPositionError,
    SideToMoveError,
)
from service.engine.renju import Forbidden, forbidden_cells
from tests import renju_reference as reference
from tests.engine import test_renju_reference as diagrams

KINDS = {1: "overline", 2: "double-four", 3: "double-three"}


def core_verdicts(grid: list[str]) -> dict[tuple[int, int], str]:
    """The core's forbidden cells of a grid (any stone counts: no game order)."""
    rows, cols = len(grid), len(grid[0])
    size = (rows * cols + 7) // 8
    x = sum(1 << r * cols + c for r in range(rows) for c in range(cols) if grid[r][c] == "X")
    o = sum(1 << r * cols + c for r in range(rows) for c in range(cols) if grid[r][c] == "O")
    found = _core.renju_forbidden(
        rows, cols, x.to_bytes(size, "little"), o.to_bytes(size, "little")
    )
    return {divmod(cell, cols): KINDS[kind] for cell, kind in found}


@pytest.mark.parametrize("size", [15, 9, 20])
def test_the_cores_forbidden_cells_are_the_references(size: int) -> None:
    """Every empty cell of dense generated positions: the same verdict, kind included."""
    positions = reference.random_renju_positions(random.Random(size), 40, size)
    seen: set[str] = set()
    for grid in positions:
        expected = reference.forbidden_cells(grid)
        assert core_verdicts(grid) == expected, "\n".join(grid)
        seen.update(expected.values())
    assert seen == set(KINDS.values())  # every kind was compared, not only "none"


def test_the_reference_diagrams_agree_with_the_core() -> None:
    """Every cell of the reference's hand-drawn diagrams, the recursive ones
    included (a three whose completing cell is forbidden is false, one and two
    levels down)."""
    pictures = [picture for picture, _ in diagrams.CASES.values()]
    pictures += [diagrams.TWO_LEVELS, diagrams.ONE_LEVEL]
    for picture in pictures:
        grid, marks = diagrams.drawing(picture)
        assert core_verdicts(grid) == reference.forbidden_cells(grid), picture
        move = marks["*"]
        assert core_verdicts(grid).get(move) == reference.forbidden_kind(grid, *move)
    # The two-level diagram's inner cells, with the stones above them placed.
    grid, marks = diagrams.drawing(diagrams.TWO_LEVELS)
    inner = diagrams.with_black(grid, marks["*"])
    assert core_verdicts(inner) == reference.forbidden_cells(inner)
    assert core_verdicts(diagrams.with_black(inner, marks["g"])).get(marks["h"]) == "double-four"


# X (to move) with a double three on h8: the row g8 . i8 and the column h7 . h9.
DOUBLE_THREE = ["g8", "a1", "i8", "a3", "h7", "a5", "h9", "a7"]


def test_a_board_lists_x_forbidden_cells_and_refuses_them() -> None:
    board = Board.from_moves(DOUBLE_THREE, rows=15, cols=15, k=5, rule="renju")
    h8 = board.shape.parse_coordinate("h8")
    assert forbidden_cells(board) == ((h8, Forbidden.DOUBLE_THREE),)
    assert board.forbidden() == {h8: "double-three"}
    with pytest.raises(ForbiddenMoveError, match=r"h8 \(cell 112\) is forbidden.*double three"):
        board.play(h8)
    # O may play there, and under freestyle X may.
    assert Board.from_moves(DOUBLE_THREE, rows=15, cols=15).play(h8).x >> h8 & 1
    assert not board.play(board.shape.parse_coordinate("a9")).forbidden()


def test_a_move_list_with_a_forbidden_move_is_refused_naming_it() -> None:
    moves = [*DOUBLE_THREE, "h8", "a9"]
    with pytest.raises(ForbiddenMoveError) as caught:
        Board.from_moves(moves, rows=15, cols=15, k=5, rule="renju")
    assert caught.value.field == "moves/8" and caught.value.kind == "double-three"
    message = "move 9 (h8, cell 112) is forbidden to X (Black) under renju: double three"
    assert message in str(caught.value)
    Board.from_moves(moves, rows=15, cols=15, k=5, rule="freestyle")  # the same game is fine


def test_renju_has_its_own_limits_and_black_moves_first() -> None:
    with pytest.raises(BoardSizeError, match="renju is played with k = 5, got k = 6"):
        Board.empty(15, 15, 6, rule="renju")
    with pytest.raises(BoardSizeError, match="9 to 20 cells a side, got cols = 8"):
        Board.empty(9, 8, 5, rule="renju")
    with pytest.raises(SideToMoveError, match=re.escape("X (Black) moves first")):
        Board.empty(15, 15, 5, Player.O, rule="renju")
    with pytest.raises(SideToMoveError, match=re.escape("X (Black) moves first")):
        Board.from_moves(["h8"], rows=15, cols=15, k=5, rule="renju", player="X")
    with pytest.raises(SideToMoveError, match=re.escape("X (Black) moves first")):
        Board.parse("/".join(["." * 15] * 14 + ["O" + "." * 14]), rule="renju")


def test_x_wins_with_exactly_five_and_o_with_more() -> None:
    row = "XXXXXX" + "." * 9
    filler = ["." * 15] * 13
    # Six of X on a renju board: no game reaches it (the sixth stone was forbidden).
    overline = re.escape("renju forbids X (Black) an overline")
    with pytest.raises(IllegalPositionError, match=overline):
        Board.parse("/".join([row, "OOOO.OO" + "." * 8, *filler]), rule="renju")
    # Six of O win.
    won = Board.parse("/".join(["XX.XX.XX" + "." * 7, "OOOOOO" + "." * 9, *filler]), rule="renju")
    assert won.winner is Player.O
    # Exactly five of X win even where the same stone made six on another line.
    five = Board.from_moves(
        ["a1", "o15", "b1", "o13", "c1", "o11", "d1", "o9", "f1", "n15", "g1", "n13", "e2", "n11",
         "e3", "n9", "e4", "n7", "e6", "m15", "e5"],
        rows=15, cols=15, k=5, rule="renju",
    )  # fmt: skip
    assert five.winner is Player.X


def analyse(moves: list[str], budget: int = 20_000, rule: str = "renju") -> tuple[Board, Analysis]:
    board = Board.from_moves(moves, rows=15, cols=15, k=5, rule=rule)
    return board, Engine(node_budget=budget, table_bytes=1 << 20).analyze(board)


def test_the_search_never_lists_a_forbidden_move_and_omits_none() -> None:
    board, analysis = analyse(DOUBLE_THREE)
    h8 = board.shape.parse_coordinate("h8")
    listed = {move.cell for move in analysis.moves}
    assert h8 not in listed
    # The other legal moves are all accounted for: listed or omitted.
    omitted = analysis.omitted.count
    assert len(listed) + omitted == len(board.empty_cells()) - 1


# X's fours e8-h8 (blocked at d8) and h5-h8 (blocked at h4) meet on h8: two
# five points under freestyle, a double four under renju.
DOUBLE_FOUR = ["e8", "d8", "f8", "h4", "g8", "a1", "h5", "a3", "h6", "a15", "h7", "o1"]


def test_a_double_four_wins_under_freestyle_and_is_forbidden_under_renju() -> None:
    board, free = analyse(DOUBLE_FOUR, rule="freestyle")
    h8 = board.shape.parse_coordinate("h8")
    assert free.best_moves == (h8,) and free.outcome is Outcome.WIN and free.plies == 3
    board, renju = analyse(DOUBLE_FOUR)
    assert board.forbidden() == {h8: "double-four"}
    assert h8 not in {move.cell for move in renju.moves}
    # (X may still win, by a longer way: not in 3.)
    assert renju.plies is None or renju.plies > 3


# X's c8 d8 e8 f8 (blocked at b8) and h8: g8 would make six, so the "four" is
# no threat and O (to move) need not block it.
NO_FOUR = ["c8", "b8", "d8", "a1", "e8", "a3", "f8", "a5", "h8"]


def test_a_four_that_only_six_completes_is_no_threat() -> None:
    board, free = analyse(NO_FOUR, rule="freestyle")
    g8 = board.shape.parse_coordinate("g8")
    assert free.best_moves == (g8,)
    assert all(m.exact and m.score < 0 for m in free.moves if m.cell != g8)
    board, renju = analyse(NO_FOUR)
    assert renju.outcome is not Outcome.LOSS
    losses = [m for m in renju.moves if m.exact and m.score < 0]
    assert not losses
    x_turn = board.play(board.shape.parse_coordinate("o15"))
    assert x_turn.forbidden() == {g8: "overline"}


# O's d4 e5 f6 and X's c3 block: O's g7 makes a four whose only five point is
# h8, X's double-three point (the row g8 . i8 and the column h7 . h9).
FORCED_ONTO_FORBIDDEN = ["g8", "d4", "i8", "e5", "h7", "f6", "h9", "a15", "c3"]


def test_o_wins_by_a_four_whose_block_is_forbidden_to_x() -> None:
    board, analysis = analyse(FORCED_ONTO_FORBIDDEN)
    g7, h8 = board.shape.parse_coordinate("g7"), board.shape.parse_coordinate("h8")
    after = board.play(g7)
    assert after.forbidden() == {h8: "double-three"}
    grid = after.format().split("/")
    assert reference.forbidden_kind(grid, *divmod(h8, 15)) == "double-three"
    best = analysis.moves[0]
    assert best.cell == g7 and best.exact and analysis.plies == 3
    assert analysis.outcome is Outcome.WIN
    # Under freestyle X blocks h8 and the four wins nothing.
    board, free = analyse(FORCED_ONTO_FORBIDDEN, rule="freestyle")
    assert not (free.outcome is Outcome.WIN and free.plies == 3)


def game_positions(count: int, seed: int) -> list[Board]:
    """Reachable renju positions with X to move: the reference's dense clusters of
    X, made alternating by O's stones on the edges."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        grid = [list(row) for row in reference.random_renju_positions(rng, 1, 15)[0]]
        xs = sum(row.count("X") for row in grid)
        os_ = sum(row.count("O") for row in grid)
        edge = [(r, c) for r in range(15) for c in range(15) if r in (0, 14) or c in (0, 14)]
        rng.shuffle(edge)
        for r, c in edge:
            if os_ >= xs:
                break
            if grid[r][c] == ".":
                grid[r][c] = "O"
                os_ += 1
        try:
            board = Board.parse("/".join("".join(row) for row in grid), rule=Rule.RENJU)
        except ValueError:
            continue
        if board.side_to_move is Player.X and not board.is_game_over() and board.forbidden():
            boards.append(board)
    return boards


@pytest.mark.parametrize("board", game_positions(12, 7), ids=lambda b: str(b.mark_count))
def test_the_search_plays_no_forbidden_move_in_dense_positions(board: Board) -> None:
    analysis = Engine(node_budget=30_000, table_bytes=1 << 20).analyze(board)
    grid = board.format().split("/")
    forbidden = {r * 15 + c for r, c in reference.forbidden_cells(grid)}
    assert forbidden == set(board.forbidden())
    for move in analysis.moves:
        assert move.cell not in forbidden
        after = board
        for cell in move.line:  # the expected line: X's moves in it are legal too
            if after.is_game_over():
                break
            after = after.play(cell)  # raises ForbiddenMoveError on a forbidden one

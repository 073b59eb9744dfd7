"""The reference solver and other independent references for the engine's tests.

The literature's values of the empty boards are read from ``docs/mnk-results.json``
at the repository's top level, which the benchmarks read too.

The solver is written plainly and sharing no code with the search (only ``Board`` and the
shape's lines), so that agreement means something: negamax over every move
with a memo table, no pruning, no ordering, no symmetry, no bounds. Production
never runs it; tests compare the compiled core with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from service.engine import Board, Geometry, Outcome, Player, Rule, Status

LITERATURE_PATH = Path(__file__).resolve().parents[2] / "docs" / "mnk-results.json"


@cache
def literature_table() -> dict[tuple[int, int, int], Outcome]:
    """(rows, cols, k) -> the empty board's value for the first player, rows <= cols."""
    games = json.loads(LITERATURE_PATH.read_text())["games"]
    return {(g["rows"], g["cols"], g["k"]): Outcome(g["outcome"]) for g in games}


def literature(rows: int, cols: int, k: int) -> Outcome:
    """The empty board's value for the first player, in either orientation.

    >>> literature(4, 3, 3), literature(5, 5, 4), literature(6, 5, 4)
    (<Outcome.WIN: 'win'>, <Outcome.DRAW: 'draw'>, <Outcome.WIN: 'win'>)
    """
    short, long = sorted((rows, cols))
    return literature_table()[short, long, k]


def children(board: Board) -> Iterator[tuple[int, Board]]:
    for cell in board.empty_cells():
        yield cell, board.play(cell)


def reachable(
    first: Player = Player.X, rows: int = 3, cols: int = 3, k: int | None = None
) -> set[Board]:
    """Every position a legal game reaches, found by playing every move."""
    start = Board.empty(rows, cols, k, first)
    seen = {start}
    frontier = [start]
    while frontier:
        board = frontier.pop()
        if board.is_game_over():
            continue
        for _, child in children(board):
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return seen


def minimax(board: Board) -> int:
    """The public score of ``board`` for its side to move, by plain negamax.

    Scores follow the documented convention: a win whose final move is n plies
    away scores cells + 1 - n, a loss the negative, a draw 0.
    """
    assert board.status is Status.IN_PROGRESS
    me, opp = _sides(board)
    return _value(board.shape, me, opp)


def move_score(board: Board, cell: int) -> int:
    """The public score of playing ``cell`` for the player who plays it."""
    assert board.status is Status.IN_PROGRESS and not (board.x | board.o) >> cell & 1
    me, opp = _sides(board)
    return _move(board.shape, me, opp, cell)


def move_scores(board: Board) -> dict[int, int]:
    """Every legal move's public score."""
    return {cell: move_score(board, cell) for cell in board.empty_cells()}


def _sides(board: Board) -> tuple[int, int]:
    if board.side_to_move is Player.X:
        return board.x, board.o
    return board.o, board.x


@cache
def _value(shape: Geometry, me: int, opp: int) -> int:
    occupied = me | opp
    return max(_move(shape, me, opp, c) for c in range(shape.cells) if not occupied >> c & 1)


def _move(shape: Geometry, me: int, opp: int, cell: int) -> int:
    mine = me | 1 << cell
    if _wins_through(shape, mine, cell):
        return shape.cells  # a win on this very move: n = 1
    if mine | opp == (1 << shape.cells) - 1:
        return 0
    reply = _value(shape, opp, mine)
    if reply > 0:
        return -(reply - 1)  # the opponent's win is one ply further from us
    if reply < 0:
        return -reply - 1
    return 0


def _wins_through(shape: Geometry, marks: int, cell: int) -> bool:
    return any(
        marks & line == line and not marks & flank for line, flank in _lines_by_cell(shape)[cell]
    )


@cache
def _lines_by_cell(shape: Geometry) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each cell, every line of k cells through it, as (its cells, the cells
    that flank it under the exact rule, else 0): built here from rows, cols, k
    and the rule alone, so that the engine's own rule code is not the judge of
    itself (and a mutant of it cannot fool the reference too)."""
    rows, cols, k = shape.rows, shape.cols, shape.k
    by_cell: list[list[tuple[int, int]]] = [[] for _ in range(rows * cols)]

    def on_board(row: int, col: int) -> bool:
        return 0 <= row < rows and 0 <= col < cols

    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for row in range(rows):
            for col in range(cols):
                cells = [(row + i * d_row, col + i * d_col) for i in range(k)]
                if not all(on_board(*c) for c in cells):
                    continue
                line = sum(1 << (r * cols + c) for r, c in cells)
                flank = 0
                if shape.rule is Rule.EXACT:
                    for r, c in ((row - d_row, col - d_col), (row + k * d_row, col + k * d_col)):
                        flank |= 1 << (r * cols + c) if on_board(r, c) else 0
                for r, c in cells:
                    by_cell[r * cols + c].append((line, flank))
    return tuple(tuple(lines) for lines in by_cell)

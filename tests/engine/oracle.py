"""Independent references for the engine's tests: written plainly, sharing no code
with the search, so that agreement means something."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from service.engine import Board, Player, Status


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


@cache
def minimax(board: Board) -> int:
    """The public score of ``board`` for its side to move, by plain minimax.

    Scores follow the documented convention: a win whose final move is n plies
    away scores cells + 1 - n, a loss the negative, a draw 0.
    """
    assert board.status is Status.IN_PROGRESS
    return max(move_score(board, cell) for cell in board.empty_cells())


def move_score(board: Board, cell: int) -> int:
    """The public score of playing ``cell`` for the player who plays it."""
    cells = board.shape.cells
    child = board.play(cell)
    status = child.status
    if status is Status.WON:
        return cells  # a win on this very move: n = 1
    if status is Status.DRAWN:
        return 0
    reply = minimax(child)
    if reply > 0:
        return -(reply - 1)  # the opponent's win is one ply further from us
    if reply < 0:
        return -reply - 1
    return 0

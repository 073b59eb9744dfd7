"""The public ``gomoku-terminal`` package (PyPI, 1.0.2) as a Gomocup brain: its
"hard" level, alpha-beta minimax two or three plies deep over a pattern
evaluation, after checks for a five to make or to block. Freestyle.

``.ci/install-bench-tools.sh`` installs the package into its own folder, which
``bench/strength.py`` puts on this process's path; none of its code is in
this repository.
"""

from __future__ import annotations

import contextlib
import random
import sys

from gomoku.ai import GomokuAI  # type: ignore[import-not-found]
from gomoku.board import Board  # type: ignore[import-not-found]
from protocol import serve

AI = GomokuAI("hard")


def choose(size: int, stones: list[tuple[int, int, bool]], exact: bool) -> tuple[int, int]:
    if exact:
        raise ValueError("this program plays freestyle only")
    Board.SIZE = size
    board = Board()
    for index, (x, y, _) in enumerate(stones):
        board.place_stone(y, x, Board.BLACK if index % 2 == 0 else Board.WHITE)
    player = Board.BLACK if len(stones) % 2 == 0 else Board.WHITE
    random.seed(len(stones))
    with contextlib.redirect_stdout(sys.stderr):
        move = AI.get_move(board, player)
    row, col = move
    return col, row


if __name__ == "__main__":
    serve(choose)

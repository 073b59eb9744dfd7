"""The public ``gomoku`` package (PyPI, 0.1.0, by Allen Zhang) as a Gomocup brain:
threat-space search for wins and against the opponent's, then a pattern
score over the best candidates. Freestyle, 15x15 only.

``.ci/install-bench-tools.sh`` installs the package into its own folder, which
``bench/strength.py`` puts on this process's path; none of its code is in
this repository.
"""

from __future__ import annotations

import contextlib
import importlib.util
import random
import sys
import types
from pathlib import Path

from protocol import serve

# Its players' package also holds a socket player whose dependencies (flask)
# this program does not need: the package is opened without running its
# __init__, and the one player taken from it.
_spec = importlib.util.find_spec("gomoku")
assert _spec is not None and _spec.origin is not None
_players = types.ModuleType("gomoku.player")
_players.__path__ = [str(Path(_spec.origin).parent / "player")]
sys.modules["gomoku.player"] = _players

from gomoku.board import Board  # type: ignore[import-not-found]  # noqa: E402
from gomoku.player import threat_space  # type: ignore[import-not-found]  # noqa: E402

threat_space.VERBOSE = 0
PLAYER = threat_space.ThreatSpace()


def choose(size: int, stones: list[tuple[int, int, bool]], exact: bool) -> tuple[int, int]:
    if size != 15 or exact:
        raise ValueError("this program plays freestyle on 15x15 only")
    board = Board()
    for x, y, _ in stones:
        board.move_index(y * 15 + x)
    random.seed(len(stones))  # its last resort is a random pick: seeded, so games replay
    with contextlib.redirect_stdout(sys.stderr):  # it prints as it thinks
        move = PLAYER.make_move(board)
    row, col = move if isinstance(move, tuple) else divmod(int(move), 15)
    return col, row


if __name__ == "__main__":
    serve(choose)

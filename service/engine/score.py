"""The score convention, stated once; everything else converts through here.

A score is always from the point of view of the side to move (or, for a move,
of the player making it):

* a win whose final move is ``n`` plies away, the move being judged counting as
  ply 1, scores ``cells + 1 - n``;
* a loss in ``n`` plies scores ``-(cells + 1 - n)``;
* a draw scores 0.

So faster wins and slower losses score higher, every proven win is at least 1,
and every proven loss at most -1. Estimates from a search that ran out of
budget are kept strictly between -1 and 1 (see ``search.py``), so one number
ranks proven and estimated moves together without ever passing an estimate off
as a proven result.

An outcome may be proven without its distance (the search proved a win, or a
loss, but not how fast). Such a move scores the bound its proof gives, which
is the score of some win (or loss) the proof allows: at least
``cells + 1 - n`` for a win with ``n`` the longest distance the proof leaves
open (at worst the rest of the game, so never below 1), at most the
corresponding negative for a loss. So it still ranks above every draw and
estimate (a loss: below them), and below (above) the wins (losses) proven
faster (slower) than its bound; its outcome is set and its plies are not.
On 3x3 an immediate win scores 9, as in the classic demos, and a loss in two
plies -8:

>>> outcome(9), outcome(-8), outcome(0), plies_to_end(9, cells=9, empties=5)
(<Outcome.WIN: 'win'>, <Outcome.LOSS: 'loss'>, <Outcome.DRAW: 'draw'>, 1)
>>> plies_to_end(0, cells=9, empties=5)  # a draw lasts until the board is full
5
"""

from __future__ import annotations

from enum import Enum

Score = int | float


class Outcome(Enum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


def outcome(score: int) -> Outcome:
    """The result a proven score promises the side it belongs to."""
    if score > 0:
        return Outcome.WIN
    if score < 0:
        return Outcome.LOSS
    return Outcome.DRAW


def plies_to_end(score: int, *, cells: int, empties: int) -> int:
    """How many plies the game lasts under best play from a proven score."""
    if score == 0:
        return empties
    return cells + 1 - abs(score)

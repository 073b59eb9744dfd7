"""Swap openings: the brain's answers to ``SWAP2BOARD``, chosen by the
engine's own evaluation to leave the game as balanced as it can.

Swap openings make the first player's advantage the first player's problem:
one player places the opening stones, the other chooses a colour, so the
placer's best play is a position neither colour prefers. The stones of
``SWAP2BOARD`` come in play order and alternate from Black (the first stone),
so their number says the stage, and White is to move at every stage that asks
for a choice (1, 3 and 5 stones). The answers (``Answer.text``), as Rapfi
writes them and GomocupJudge's client reads them (``SWAP``, or stones
``x,y`` separated by spaces):

* no stones: three stones, ``x,y x,y x,y`` on one line (Black, White,
  Black): the candidate of ``OPENINGS`` whose position is closest to even;
* swap2, three stones: ``SWAP`` (take Black; White, the opponent, moves
  next), one move ``x,y`` (take White and play it), or two more stones
  ``x,y x,y`` (White's, then Black's; the opponent then chooses a colour);
* swap2, five stones: ``SWAP`` (take Black) or a move (take White);
* swap1, one stone (Rapfi's swap1) or three: ``SWAP`` or a move.

How each choice is made (``docs/brain.md`` has the reasoning):

* three stones to place: each candidate position (White to move) is searched
  with an equal share of the turn; the one whose score is nearest 0 wins,
  the earlier in ``OPENINGS`` on a tie;
* a colour to choose: the position is searched (with FIRST_LOOK_SHARE of the
  turn where two stones may follow, else the whole turn). Its score is
  White's, the side to move: below 0 Black is better and the brain swaps to
  it; above 0 White is, and the brain plays White's best move. Under swap2
  at three stones a score within BALANCED of 0 says neither colour is worth
  taking: the brain puts two stones instead;
* two stones to put: for each of White's PUT_TWO_WHITES best moves the
  position after it is searched (the rest of the turn, shared), and the
  engine's score of every Black reply there is the 5-stone position's value
  for Black. The pair whose value is nearest 0 is put, so the opponent, who
  chooses the colour next, gains the least by the choice.

The searches are bounded by nodes (``Evaluate`` turns a share of the turn
into a node budget), so a position and a clock give the same answer on any
machine fast enough to meet the deadline that caps them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.brain.rules import Opening
from service.engine import Analysis, Board, GameOverError, Geometry, Player

# Candidate openings for three stones, as offsets (columns, rows) from the
# centre: Black, White, Black. The engine reads most three-stone shapes as
# clearly for one side (two Black stones side by side for Black, spread ones
# for White, the side to move); these are the ones it read both ways, or
# near 0, at a few budgets on 15x15: a range to choose from. Every offset is
# within 2, so all fit from 5x5 up.
OPENINGS: tuple[tuple[tuple[int, int], tuple[int, int], tuple[int, int]], ...] = (
    ((0, 0), (2, 0), (1, 1)),
    ((0, 0), (1, 1), (-1, -1)),
    ((0, 0), (1, 0), (2, 1)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 0), (0, 2), (2, 0)),
    ((0, 0), (1, 1), (-2, 0)),
    ((0, 0), (1, 0), (0, 2)),
    ((0, 0), (0, 1), (2, 2)),
)
# The stages: how many stones each opening rule asks a choice for.
STAGES: dict[Opening, tuple[int, ...]] = {
    Opening.SWAP2: (0, 3, 5),
    Opening.SWAP1: (0, 1, 3),
}
BALANCED = 0.1  # a score this close to 0 is even: under swap2 at three stones, put two
FIRST_LOOK_SHARE = 1 / 3  # of the turn, for the look that may lead to putting two
PUT_TWO_WHITES = 4  # White's best moves tried for the two stones

# A search of ``board`` with ``share`` (0 to 1) of the turn's time.
Evaluate = Callable[[Board, float], Analysis]


class StageError(ValueError):
    """A SWAP2BOARD with a number of stones its opening asks no choice for."""


@dataclass(frozen=True)
class Answer:
    """The brain's answer to one stage: take Black (``swap``), or the stones
    it places in play order (one: its move as White)."""

    swap: bool = False
    stones: tuple[int, ...] = ()

    def text(self, cols: int) -> str:
        if self.swap:
            return "SWAP"
        return " ".join(f"{cell % cols},{cell // cols}" for cell in self.stones)


def position(shape: Geometry, stones: list[int]) -> Board:
    """The board of ``stones`` in play order, alternating from Black (X)."""
    x = sum(1 << cell for cell in stones[0::2])
    o = sum(1 << cell for cell in stones[1::2])
    return Board(shape, x, o, Player.X if len(stones) % 2 == 0 else Player.O)


def choose(shape: Geometry, stones: list[int], opening: Opening, evaluate: Evaluate) -> Answer:
    """The answer to SWAP2BOARD with ``stones`` under ``opening`` (swap1 or swap2)."""
    stages = STAGES[opening]
    if len(stones) not in stages:
        counts = ", ".join(map(str, stages[:-1])) + f" or {stages[-1]}"
        raise StageError(f"SWAP2BOARD under {opening} takes {counts} stones; got {len(stones)}")
    if not stones:
        return place_three(shape, evaluate)
    board = position(shape, stones)
    board.check_in_progress()
    may_put_two = opening is Opening.SWAP2 and len(stones) == 3
    return choose_colour(board, evaluate, may_put_two)


def place_three(shape: Geometry, evaluate: Evaluate) -> Answer:
    """The candidate of OPENINGS that fits the board and scores nearest 0."""
    centre_col, centre_row = shape.cols // 2, shape.rows // 2
    candidates = []
    for offsets in OPENINGS:
        cells = [(centre_row + dy) * shape.cols + centre_col + dx for dx, dy in offsets]
        fits = all(
            0 <= centre_col + dx < shape.cols and 0 <= centre_row + dy < shape.rows
            for dx, dy in offsets
        )
        if fits and not position(shape, cells).is_game_over():
            candidates.append(cells)
    if not candidates:
        raise StageError(f"no opening of three stones fits a {shape.cols}x{shape.rows} board")
    share = 1 / len(candidates)
    scores = [abs(evaluate(position(shape, cells), share).best_score) for cells in candidates]
    best = min(range(len(candidates)), key=lambda index: (scores[index], index))
    return Answer(stones=tuple(candidates[best]))


def choose_colour(board: Board, evaluate: Evaluate, may_put_two: bool) -> Answer:
    """Swap to Black, play White's move, or (``may_put_two``) put two stones."""
    first = evaluate(board, FIRST_LOOK_SHARE if may_put_two else 1.0)
    score = first.best_score  # White's: White is to move
    if may_put_two and abs(score) <= BALANCED:
        two = put_two(board, first, evaluate, 1 - FIRST_LOOK_SHARE)
        if two is not None:
            return two
    if score < 0:
        return Answer(swap=True)
    return Answer(stones=(first.best_moves[0],))


def put_two(board: Board, first: Analysis, evaluate: Evaluate, share: float) -> Answer | None:
    """White's stone and Black's that leave the five stones nearest even."""
    whites = [move.cell for move in first.moves[:PUT_TWO_WHITES]]
    best: tuple[float, int, int, int] | None = None  # (|value|, White's rank, cell, cell)
    for rank, white in enumerate(whites):
        after = board.play(white)
        try:
            replies = evaluate(after, share / len(whites))
        except GameOverError:
            continue
        for reply in replies.moves:
            if after.play(reply.cell).is_game_over():
                continue
            key = (abs(reply.score), rank, white, reply.cell)
            if best is None or key < best:
                best = key
    if best is None:
        return None
    return Answer(stones=(best[2], best[3]))

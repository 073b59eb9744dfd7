"""The search, as Python sees it: a thin layer over the compiled core (``core/``).

The core owns negamax with alpha-beta over bitboards, the bound semantics, the
shared table of proven bounds, the move ordering, the heuristic, the tactics
that hold at any budget and the node budget; its first comment states each of
them once. This module owns what Python hands it and gets back:

* :func:`core_shape` turns a :class:`~service.engine.geometry.Geometry` into
  the core's shape (once per shape);
* :class:`SearchControl` is a search's deadline and cancel flag, which any
  thread may change while the core runs without the GIL;
* :func:`run` runs one root analysis and returns each move's internal value;
* :func:`to_public` converts the core's internal scores to the public
  convention of ``score.py``.

Internal scores count marks, not plies, so that negamax is plain negation: a
win completed by the ``T``-th mark on the board is worth ``cells + 1 - T`` to
the winner and ``-(cells + 1 - T)`` to the loser; a draw is 0. Seen from a
position with ``m`` marks this is the public score shifted by ``m``.
Estimates lie strictly inside (-1, 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any

from service.engine import _core, evaluation
from service.engine.geometry import MIN_SIDE, Geometry, cells_of

Value = int | float
# The big boards' evaluation weights, fitted to game results (evaluation.py),
# are the core's before any search can start.
evaluation.apply(evaluation.load(evaluation.EVALUATION_FILE))

SearchControl = _core.Control
Table = _core.Table
GameContext = _core.Context  # one game's big-board search state, kept between its moves
BUCKET_BYTES: int = _core.BUCKET_BYTES  # the table is made of buckets of
BUCKET_SLOTS: int = _core.BUCKET_SLOTS  # this many entries
MAX_BUDGET: int = _core.MAX_BUDGET  # the most nodes a search may be given
MAX_TABLE_BYTES: int = _core.MAX_TABLE_BYTES  # the largest table
MAX_PROOF_THREADS: int = _core.MAX_PROOF_THREADS  # Engine(proof_threads=...) at most


class SearchCancelled(Exception):  # noqa: N818 - the caller asked for it
    """Raised out of a search whose control was cancelled (say, the client left)."""


class StopReason(Enum):
    """Why a search answered with estimates: what ran out first."""

    # The node budget: independent of the machine's speed and load (what earlier
    # searches left in the shared table may still let a repeat search deeper).
    BUDGET = "budget"
    DEADLINE = "deadline"  # the wall-clock deadline: depends on the machine's load
    # Big boards only: the choice was made (a proven win, or the one move that is
    # not a proven loss), so the other moves got depth-1 estimates and no more.
    DECIDED = "decided"


_STOPS = {
    _core.STOP_BUDGET: StopReason.BUDGET,
    _core.STOP_DEADLINE: StopReason.DEADLINE,
    _core.STOP_DECIDED: StopReason.DECIDED,
}


@dataclass(frozen=True, slots=True)
class CoreResult:
    """One root analysis: ``(cell, internal value, exact, proven, line, no_win)``
    per legal move, in the core's move order, the nodes visited, the depth
    reached, and why it stopped (None when every value is proven exactly).

    ``proven`` is 1 for a win proven without its distance (``value`` is then a
    proven lower bound), -1 for such a loss (an upper bound), else 0. ``line``
    is the move and its expected continuation: for a proven win or loss of known
    distance, down to the winning move; otherwise as far as the table knows it.
    ``no_win``, on an estimate, says the mover is proven unable to win after the
    move (a draw or a loss, not known which; the estimate is below 0).
    """

    moves: tuple[tuple[int, Value, bool, int, tuple[int, ...], bool], ...]
    nodes: int
    depth: int
    stopped_by: StopReason | None
    # Big boards list only their candidates: the other legal moves, and their
    # common proven internal value when a tactic proves it (else None).
    omitted: int = 0
    omitted_value: int | None = None


def to_public(internal: Value, marks: int) -> Value:
    """Shift an internal (mark-counted) score to the public, ply-counted one.

    >>> to_public(5, marks=4), to_public(-6, marks=3), to_public(0, marks=2), to_public(0.25, 7)
    (9, -9, 0, 0.25)
    """
    if isinstance(internal, int):
        if internal > 0:
            return internal + marks
        if internal < 0:
            return internal - marks
    return internal


def to_internal(public: int, marks: int) -> int:
    """The inverse of :func:`to_public`, for proven (integer) scores.

    >>> to_internal(9, marks=4), to_internal(-9, marks=3), to_internal(0, marks=2)
    (5, -6, 0)
    """
    if public > 0:
        return public - marks
    if public < 0:
        return public + marks
    return 0


ShapeArguments = tuple[Any, ...]
# The exact core holds a board in one machine word: at most this many cells.
SMALL_MAX_CELLS = 64
SMALL_MAX_SIDE = 8
# Up to 7x7 the exact core alone answers; with a side of 8 it searches first
# (core_first()). Tags up to 7x7 keep the numbers they had before the core held
# 8x8, so that those boards' tables (and node counts) stay as they were.
CORE_ALONE_SIDE = 7


def _tag_up_to_7x7(rows: int, cols: int, k: int) -> int:
    span = CORE_ALONE_SIDE - MIN_SIDE + 1
    return ((rows - MIN_SIDE) * span + cols - MIN_SIDE) * CORE_ALONE_SIDE + k


_FIRST_TAG_OF_8 = _tag_up_to_7x7(7, 7, 7) + 1


def core_tag(shape: Geometry) -> int:
    """A small number (below 256) unique to a shape the exact core holds, so that
    one table holds positions of every shape without two of them sharing a key
    (the rule and the side to move have bits of the key of their own: see
    ``core/small/board.h``). Shapes with a side of 8 come after all of 7x7's."""
    if max(shape.rows, shape.cols) <= CORE_ALONE_SIDE:
        return _tag_up_to_7x7(shape.rows, shape.cols, shape.k)
    other = min(shape.rows, shape.cols) - MIN_SIDE  # 0 to 5
    turned = int(shape.rows > shape.cols)
    ks = SMALL_MAX_SIDE - MIN_SIDE + 1
    return _FIRST_TAG_OF_8 + (other * 2 + turned) * ks + shape.k - MIN_SIDE


def is_small(shape: Geometry) -> bool:
    """Whether the exact core holds the board (else the big-board search plays it)."""
    return shape.cells <= SMALL_MAX_CELLS and max(shape.rows, shape.cols) <= SMALL_MAX_SIDE


def core_first(shape: Geometry) -> bool:
    """Whether the exact core holds the board but may not finish it: a side of 8,
    where it searches first and the big-board search plays on where it cannot
    settle the outcome (``Engine`` says how the budget is shared)."""
    return is_small(shape) and max(shape.rows, shape.cols) > CORE_ALONE_SIDE


def shape_arguments(shape: Geometry) -> ShapeArguments:
    """What a core's ``Shape`` is made of: rows, cols, k, tag, lines, symmetries
    and cell order, and the lines' flanks where the exact rule changes the game
    (also for the other builds of ``bench/core_ab.py``)."""
    arguments: tuple[Any, ...] = (
        shape.rows,
        shape.cols,
        shape.k,
        core_tag(shape),
        shape.line_cells,
        shape.symmetries,
        shape.cell_order,
    )
    if shape.overlines_matter:
        flanks = [cells_of(flank) for flank in shape.flanks]
        arguments += (flanks,)
    return arguments


@lru_cache(maxsize=256)  # as geometry()'s cache: the shapes in use at once are few
def core_shape(shape: Geometry) -> _core.Shape:
    return _core.Shape(*shape_arguments(shape))


def run(
    shape: Geometry,
    table: Table,
    x: int,
    o: int,
    *,
    x_to_move: bool,
    budget: int,
    outcome_budget: int,
    distance_budget: int,
    control: SearchControl | None = None,
    threads: int = 1,
) -> CoreResult:
    """Analyse the position ``(x, o)`` in the compiled core, without the GIL.

    The core spends up to ``outcome_budget`` nodes proving each move's outcome,
    up to ``distance_budget`` (in all) on the distances of proven wins and
    losses, and the rest of ``budget`` on estimates. Raises
    :class:`SearchCancelled` when ``control`` was cancelled meanwhile.
    ``threads`` above 1 splits the root's proofs that a side cannot win over
    that many threads (the offline proofs; see ``split_moves()`` in
    ``core/small/zones.c``).
    """
    moves, nodes, depth, stop = _core.analyze(
        core_shape(shape),
        table,
        x,
        o,
        x_to_move,
        budget,
        outcome_budget,
        distance_budget,
        control,
        threads,
    )
    if stop == _core.STOP_CANCELLED:
        raise SearchCancelled
    return CoreResult(tuple(moves), nodes, depth, _STOPS.get(stop))


def run_big(
    shape: Geometry,
    table: Table,
    x: int,
    o: int,
    *,
    x_to_move: bool,
    budget: int,
    control: SearchControl | None = None,
    max_depth: int = 0,
    context: GameContext | None = None,
) -> CoreResult:
    """Analyse a position the exact core cannot hold in the big-board search, without
    the GIL: its candidate moves, each proven or estimated. ``max_depth`` (0:
    none) makes it a search of that fixed depth without the threat proofs.
    ``context`` carries one game's search state (history, the memo of failed
    threat searches) from move to move; one analysis at a time may use it.
    Raises :class:`SearchCancelled` when ``control`` was cancelled meanwhile."""
    size = (shape.cells + 7) // 8
    moves, nodes, depth, stop, omitted, omitted_value = _core.analyze_big(
        shape.rows,
        shape.cols,
        shape.k,
        shape.core_rule(),
        table,
        x.to_bytes(size, "little"),
        o.to_bytes(size, "little"),
        x_to_move,
        budget,
        control,
        max_depth,
        context,
    )
    if stop == _core.STOP_CANCELLED:
        raise SearchCancelled
    return CoreResult(tuple(moves), nodes, depth, _STOPS.get(stop), omitted, omitted_value)


SearchObserver = Callable[[int, float, StopReason | None, int], None]
"""Called after every search that ran with ``(nodes, seconds, stopped_by,
longest_side)``: the board's longer side says which search ran (the exact
core up to 7)."""

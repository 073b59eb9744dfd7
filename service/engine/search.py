"""The search: negamax with alpha-beta over a shared table of proven bounds, and a
budgeted, depth-limited fallback that estimates what it cannot prove.

This module owns the node budget, the bound semantics, the move ordering and
the heuristic. It works on bitboards; ``analysis.py`` turns its numbers into
the public score convention of ``score.py``.

Internal scores count marks, not plies, so that negamax is plain negation: a
win completed by the ``T``-th mark on the board is worth ``cells + 1 - T`` to
the winner and ``-(cells + 1 - T)`` to the loser; a draw is 0. Seen from a
position with ``m`` marks this is the public score shifted by ``m``
(see :func:`to_public`).

Bound semantics of :meth:`Search.solve` (the contract of Pons' connect-4
solver, written once here): called with a window ``alpha < beta`` it returns

* the exact value ``v`` when ``alpha < v < beta``;
* an upper bound ``u`` with ``v <= u <= alpha`` when ``v <= alpha``;
* a lower bound ``l`` with ``beta <= l <= v`` when ``v >= beta``.

The shared table stores, per position class, a lower and an upper bound and the
best move found: ``lower == upper`` is an exact value, otherwise each side is a
bound of that kind (the trivial side being the static limit). Only proven
values are written to it (by :meth:`Search.solve` and the start-up solve), so
nothing a request asked before changes what a later request is told.
Estimates from :meth:`Search.estimate` live in a per-search dict that dies with
the search; the wins and losses they find are confirmed by :meth:`Search.solve`
before anyone calls them exact (``analysis.py``).

Heuristic, for positions the budget cannot solve: every line still open for
only one side counts ``4 ** marks`` for that side, doubled for the side to move
(its next mark is coming); the difference (side to move minus opponent) is
squashed by ``0.9 * d / (|d| + lines)`` into ``(-0.9, 0.9)``, strictly inside
the range no proven win or loss can take.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from service.engine.cache import BoundedCache
from service.engine.geometry import TAG_BITS, Geometry

# A table entry: (lower bound, upper bound, best move in the canonical frame or -1).
Entry = tuple[int, int, int]
Table = BoundedCache[int, Entry]
Value = int | float


def table_key(least_code: int, color: int, shape: Geometry) -> int:
    """The shared table's key: the position's class, whose turn it is, and the shape."""
    return ((least_code << 1 | color) << TAG_BITS) | shape.tag


class BudgetExhausted(Exception):  # noqa: N818 - a signal, not an error for callers
    """Raised inside a search when its node budget is spent."""


class SearchCancelled(Exception):  # noqa: N818 - the caller asked for it
    """Raised out of a search whose ``cancel`` event was set (say, the client left)."""


# How often a search looks at its cancel event: every 1,024 nodes, a few ms.
CANCEL_CHECK_MASK = 1023


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


class Position:
    """A position's search state at the root of a search, from the mover's side.

    ``me``/``opp`` are bitboards; ``my_threats``/``opp_threats`` are the empty cells
    that would complete a line for each side; ``my_open``/``opp_open`` are bit sets
    of line indices still free of the other side's marks; ``codes`` is the position's
    exact code under each symmetry; ``color`` is 0 when X is to move, 1 for O.
    """

    __slots__ = (
        "codes",
        "color",
        "marks",
        "me",
        "my_open",
        "my_threats",
        "opp",
        "opp_open",
        "opp_threats",
    )

    def __init__(self, shape: Geometry, x: int, o: int, x_to_move: bool) -> None:
        me, opp = (x, o) if x_to_move else (o, x)
        self.me, self.opp = me, opp
        self.my_threats = threats(shape, me, opp)
        self.opp_threats = threats(shape, opp, me)
        self.my_open = open_lines(shape, opp)
        self.opp_open = open_lines(shape, me)
        self.codes = shape.position_codes(x, o)
        self.color = 0 if x_to_move else 1
        self.marks = (x | o).bit_count()


def threats(shape: Geometry, mine: int, theirs: int) -> int:
    """Empty cells that would complete a line for the owner of ``mine``."""
    need = shape.k - 1
    found = 0
    for line in shape.lines:
        if not theirs & line and (mine & line).bit_count() == need:
            found |= line & ~mine
    return found


def open_lines(shape: Geometry, theirs: int) -> int:
    """Bit set of the indices of lines that hold none of ``theirs``."""
    return sum(1 << i for i, line in enumerate(shape.lines) if not theirs & line)


class Search:
    """One request's search: a node budget, a node count, and the shared table."""

    def __init__(
        self, shape: Geometry, table: Table, budget: int, cancel: threading.Event | None = None
    ) -> None:
        self.shape = shape
        self.table = table
        self.budget = budget
        self.nodes = 0
        self.cancel = cancel
        self._estimates: dict[tuple[int, int], tuple[Value, Value, int]] = {}
        # Hot-loop constants, bound once.
        self._cells = shape.cells
        self._full = shape.full
        self._need = shape.k - 1
        self._lines = shape.lines
        self._through = shape.lines_through
        self._through_mask = shape.line_index_mask
        self._perms = shape.symmetries
        self._inverses = shape.inverse_symmetries
        cells = range(shape.cells)
        self._cell_codes = (
            tuple(tuple(codes[c] for codes in shape.x_codes) for c in cells),
            tuple(tuple(codes[c] for codes in shape.o_codes) for c in cells),
        )
        self._order = shape.cell_order
        self._tag = shape.tag

    # -- shared pieces ------------------------------------------------------

    def _count(self) -> None:
        if self.nodes >= self.budget:
            raise BudgetExhausted
        self.nodes += 1
        if not self.nodes & CANCEL_CHECK_MASK and self.cancel is not None and self.cancel.is_set():
            raise SearchCancelled

    def _new_threats(self, mine: int, my_open: int, cell: int) -> int:
        """Threats created for the side that just marked ``cell`` (``mine`` includes it)."""
        found = 0
        lines, need = self._lines, self._need
        for index in self._through[cell]:
            if my_open >> index & 1:
                line = lines[index]
                if (mine & line).bit_count() == need:
                    found |= line & ~mine
        return found

    def _child_codes(self, codes: list[int], color: int, cell: int) -> list[int]:
        return [a + b for a, b in zip(codes, self._cell_codes[color][cell], strict=True)]

    def ordered_moves(
        self, me: int, opp: int, my_open: int, opp_open: int, first: int
    ) -> list[int]:
        """Cells on the most open lines first (ties: centre first), ``first`` ahead of all.

        A cell's weight counts the lines through it that either side can still
        complete, with a line's weight growing with the marks already on it.
        """
        empty = self._full & ~(me | opp)
        # Weigh each line once, then each cell by the lines through it.
        line_weight = [
            (1 + 2 * (me & line).bit_count() if my_open >> index & 1 else 0)
            + (1 + 2 * (opp & line).bit_count() if opp_open >> index & 1 else 0)
            for index, line in enumerate(self._lines)
        ]
        through = self._through
        weighted = [
            (-sum([line_weight[index] for index in through[cell]]), cell)
            for cell in self._order
            if empty >> cell & 1 and cell != first
        ]
        weighted.sort()
        moves = [cell for _, cell in weighted]
        if first >= 0:
            moves.insert(0, first)
        return moves

    def _static_bounds(self, marks: int, my_open: int, opp_open: int) -> tuple[int, int]:
        """Bounds that hold when neither side can win on this move (mark-counted)."""
        empties = self._cells - marks
        # The mover's earliest win is its next-but-one move, the opponent's the
        # move after that; a side with no open line can never win.
        high = empties - 2 if empties >= 3 and my_open else 0
        low = -(empties - 3) if empties >= 4 and opp_open else 0
        return low, high

    # -- exact search ---------------------------------------------------------

    def solve(
        self,
        me: int,
        opp: int,
        my_threats: int,
        opp_threats: int,
        my_open: int,
        opp_open: int,
        codes: list[int],
        color: int,
        marks: int,
        alpha: int,
        beta: int,
    ) -> int:
        """Exact negamax value within the window, per the bound semantics above."""
        self._count()
        cells = self._cells
        if my_threats:
            return cells - marks  # win with this move
        if marks == cells:
            return 0
        if opp_threats & (opp_threats - 1):
            return -(cells - marks - 1)  # two threats: one can be blocked, not both
        low, high = self._static_bounds(marks, my_open, opp_open)
        if low == high:
            return low
        least = min(codes)
        frame = codes.index(least)
        key = ((least << 1 | color) << TAG_BITS) | self._tag  # table_key(), inlined
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            entry_low, entry_high, canonical_move = entry
            low = max(low, entry_low)
            high = min(high, entry_high)
            if canonical_move >= 0:
                first = self._inverses[frame][canonical_move]
            if low >= high:
                return low
        if low >= beta:
            return low
        if high <= alpha:
            return high
        window_low, window_high = max(alpha, low), min(beta, high)
        if opp_threats:
            moves = [opp_threats.bit_length() - 1]  # forced: anything else loses at once
        else:
            moves = self.ordered_moves(me, opp, my_open, opp_open, first)
        a = window_low
        best, best_move = -cells - 1, -1
        through_mask = self._through_mask
        for cell in moves:
            bit = 1 << cell
            mine = me | bit
            value = -self.solve(
                opp,
                mine,
                opp_threats & ~bit,
                self._new_threats(mine, my_open, cell),
                opp_open & ~through_mask[cell],
                my_open,
                self._child_codes(codes, color, cell),
                color ^ 1,
                marks + 1,
                -window_high,
                -a,
            )
            if value > best:
                best, best_move = value, cell
                if value > a:
                    a = value
                    if a >= window_high:
                        break
        if best <= window_low:
            high = min(high, best)
        elif best >= window_high:
            low = max(low, best)
        else:
            low = high = best
        self.table.put(key, (low, high, self._perms[frame][best_move]))
        if low == high:
            return low
        return high if best <= window_low else low

    # -- estimates when the budget cannot prove ------------------------------

    def estimate(
        self,
        me: int,
        opp: int,
        my_threats: int,
        opp_threats: int,
        my_open: int,
        opp_open: int,
        codes: list[int],
        color: int,
        marks: int,
        depth: int,
        alpha: Value,
        beta: Value,
    ) -> Value:
        """Depth-limited negamax: proven values where the search reaches the end of
        the game or the table knows them, the heuristic at the horizon."""
        self._count()
        cells = self._cells
        if my_threats:
            return cells - marks
        if marks == cells:
            return 0
        if opp_threats & (opp_threats - 1):
            return -(cells - marks - 1)
        low, high = self._static_bounds(marks, my_open, opp_open)
        if low == high:
            return low
        least = min(codes)
        frame = codes.index(least)
        key = ((least << 1 | color) << TAG_BITS) | self._tag
        proven = self.table.get(key)
        first = -1
        if proven is not None:
            low, high = max(low, proven[0]), min(high, proven[1])
            if proven[2] >= 0:
                first = self._inverses[frame][proven[2]]
            if low >= high:
                return low
        if depth <= 0:
            return max(low, min(high, self.heuristic(me, opp, my_open, opp_open)))
        lower: Value = low
        upper: Value = high
        known = self._estimates.get((key, depth))
        if known is not None:
            lower, upper = max(lower, known[0]), min(upper, known[1])
            first = self._inverses[frame][known[2]] if known[2] >= 0 else first
            if lower >= upper:
                return lower
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        window_low, window_high = max(alpha, lower), min(beta, upper)
        if opp_threats:
            moves = [opp_threats.bit_length() - 1]
        else:
            moves = self.ordered_moves(me, opp, my_open, opp_open, first)
        a = window_low
        best: Value = -cells - 1
        best_move = -1
        for cell in moves:
            bit = 1 << cell
            mine = me | bit
            value = -self.estimate(
                opp,
                mine,
                opp_threats & ~bit,
                self._new_threats(mine, my_open, cell),
                opp_open & ~self._through_mask[cell],
                my_open,
                self._child_codes(codes, color, cell),
                color ^ 1,
                marks + 1,
                depth - 1,
                -window_high,
                -a,
            )
            if value > best:
                best, best_move = value, cell
                if value > a:
                    a = value
                    if a >= window_high:
                        break
        if best <= window_low:
            upper = min(upper, best)
        elif best >= window_high:
            lower = max(lower, best)
        else:
            lower = upper = best
        self._estimates[(key, depth)] = (lower, upper, self._perms[frame][best_move])
        if lower == upper:
            return lower
        return upper if best <= window_low else lower

    def heuristic(self, me: int, opp: int, my_open: int, opp_open: int) -> float:
        """The documented estimate (module docstring), in (-0.9, 0.9)."""
        lines = self._lines
        diff = 0
        # The side to move is worth half a mark more on each of its lines (its
        # next move is coming), which damps the odd/even swing of the horizon.
        for open_set, marks, weight in ((my_open, me, 2), (opp_open, opp, -1)):
            remaining = open_set
            while remaining:
                low_bit = remaining & -remaining
                remaining ^= low_bit
                diff += weight * 4 ** (marks & lines[low_bit.bit_length() - 1]).bit_count()
        return 0.9 * diff / (abs(diff) + len(lines))

    # -- stepping from a Position -------------------------------------------

    def play(
        self, pos: Position, cell: int
    ) -> tuple[int, int, int, int, int, int, list[int], int, int]:
        """The child's search state after the mover marks ``cell``, from the child's side."""
        bit = 1 << cell
        mine = pos.me | bit
        # Unlike inside solve(), the mover here may hold threats it does not play
        # (analysis scores every move), and they stay threats after this move.
        return (
            pos.opp,
            mine,
            pos.opp_threats & ~bit,
            (pos.my_threats & ~bit) | self._new_threats(mine, pos.my_open, cell),
            pos.opp_open & ~self._through_mask[cell],
            pos.my_open,
            self._child_codes(pos.codes, pos.color, cell),
            pos.color ^ 1,
            pos.marks + 1,
        )

    def child_key(self, pos: Position, cell: int) -> int:
        """The table key of the child position: equal keys mean equal values."""
        codes = self._child_codes(pos.codes, pos.color, cell)
        return table_key(min(codes), pos.color ^ 1, self.shape)


SearchObserver = Callable[[int, float, bool], None]

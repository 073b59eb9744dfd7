"""Board geometry: the shape of an m x n board, the rule that wins on it, and what
follows from them.

A :class:`Geometry` owns everything that depends only on ``(rows, cols, k,
rule)``: the winning lines as bit masks and the cells that flank each line,
the lines through each cell, the board's symmetries, the static cell order
used to break ties, and the gomoku names of the cells. It is computed once per
shape and shared (:func:`geometry` caches it); it knows nothing about marks on
a board.

Cells are numbered row by row from 0: cell ``i`` is row ``i // cols``, column
``i % cols``, and is bit ``1 << i`` of a bitboard. Gomoku notation names the
same cell by its column, a letter from ``a`` on the left, and its row, a number
from 1 at the *bottom*: on 15x15, ``h8`` is the centre, cell 112.

The rule, stated once (:class:`Rule`): under ``freestyle`` k or more marks in a
row win; under ``exact`` exactly k do, and a row of k + 1 or more wins for
neither side; under ``renju`` (k = 5, boards 9x9 and up, X first) X wins with
exactly five and O with five or more, and some moves of X are forbidden
(``renju.py`` says which). A line (a window of k cells) is won by a side that
fills it while, where the side's longer rows do not win, holding neither of
the two cells that flank it on its row, column or diagonal: those would
extend the row past k. Where no row of k + 1 fits on the board (k at least
the longer side), freestyle and exact are one game.

Symmetry handling, stated once: a square board has the 8 symmetries of the
square (4 rotations, each optionally mirrored); a non-square rectangle has 4
(identity, both mirrors, the half turn). Each symmetry is a permutation of cell
indices, and positions that map onto each other have the same value, so the
exact search keys its cache on the smallest image of a position (see
:meth:`Geometry.position_codes`). Both rules are symmetric.

>>> g = geometry(3, 3)
>>> g.k, len(g.lines), len(g.symmetries)
(3, 8, 8)
>>> geometry(3, 5, 3).symmetries[1]  # the horizontal mirror of a 3x5 board
(4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 14, 13, 12, 11, 10)
>>> g15 = geometry(15, 15)
>>> g15.coordinate(112), g15.parse_coordinate("h8"), g15.parse_coordinate("A15")
('h8', 112, 0)
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property, lru_cache

from service.engine.errors import BoardSizeError, CoordinateError

MIN_SIDE = 3
MAX_SIDE = 20
MIN_K = 3
DEFAULT_MAX_K = 5
COLUMN_LETTERS = string.ascii_lowercase[:MAX_SIDE]  # a..t: no letter is skipped

Permutation = tuple[int, ...]
_COORDINATE = re.compile(r"([a-z])([0-9]{1,2})")


class Rule(StrEnum):
    """What wins: ``freestyle``, k or more in a row; ``exact``, exactly k (Gomocup's
    "standard" gomoku: a longer row wins for neither side); ``renju``, the
    world championships' rule: exactly five for X (Black, first), five or more
    for O, and X's overlines, double fours and double threes forbidden."""

    FREESTYLE = "freestyle"
    EXACT = "exact"
    RENJU = "renju"


RENJU_K = 5
RENJU_MIN_SIDE = 9  # renju is a game of the big boards: 15x15 in tournaments
# The rules every shape is played under (renju only under its own limits).
GENERAL_RULES = (Rule.FREESTYLE, Rule.EXACT)


def default_k(rows: int, cols: int) -> int:
    """The win length when none is given: ``min(rows, cols, 5)``.

    >>> default_k(3, 3), default_k(4, 4), default_k(7, 7), default_k(3, 7), default_k(15, 15)
    (3, 4, 5, 3, 5)
    """
    return min(rows, cols, DEFAULT_MAX_K)


def check_shape(rows: int, cols: int, k: int, *, sides_given: bool = True) -> None:
    """Raise :class:`BoardSizeError` unless the shape is one the engine plays.

    ``sides_given`` says whether rows and cols were stated by the caller (the
    error then names them) or read from the board text (it names the board).
    """
    for name, side in (("rows", rows), ("cols", cols)):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise BoardSizeError(
                f"{name} must be between {MIN_SIDE} and {MAX_SIDE}, got {side}",
                field=name if sides_given else "board",
            )
    longest = max(rows, cols)
    if not MIN_K <= k <= longest:
        raise BoardSizeError(
            f"k must be between {MIN_K} and {longest} (the longer side) on a "
            f"{rows}x{cols} board, got {k}",
            field="k",
        )


def check_rule(rows: int, cols: int, k: int, rule: Rule, *, sides_given: bool = True) -> None:
    """Raise :class:`BoardSizeError` unless ``rule`` is played on the shape: renju
    only with k = 5, on boards of 9 to 20 cells a side."""
    if rule is not Rule.RENJU:
        return
    if k != RENJU_K:
        raise BoardSizeError(f"renju is played with k = {RENJU_K}, got k = {k}", field="k")
    for name, side in (("rows", rows), ("cols", cols)):
        if side < RENJU_MIN_SIDE:
            raise BoardSizeError(
                f"renju is played on boards of {RENJU_MIN_SIDE} to {MAX_SIDE} cells a side, "
                f"got {name} = {side}",
                field=name if sides_given else "board",
            )


@dataclass(frozen=True, eq=False)
class Geometry:
    """An ``rows`` x ``cols`` board on which ``k`` marks in a row win under ``rule``."""

    rows: int
    cols: int
    k: int
    rule: Rule = Rule.FREESTYLE
    cells: int = field(init=False)
    full: int = field(init=False)
    lines: tuple[int, ...] = field(init=False, repr=False)
    line_cells: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    flanks: tuple[int, ...] = field(init=False, repr=False)
    lines_through: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_shape(self.rows, self.cols, self.k)
        check_rule(self.rows, self.cols, self.k, self.rule)
        cells = self.rows * self.cols
        windows = self._windows()
        line_cells = tuple(window for window, _ in windows)
        through: list[list[int]] = [[] for _ in range(cells)]
        for index, window in enumerate(line_cells):
            for cell in window:
                through[cell].append(index)
        set_ = object.__setattr__
        set_(self, "cells", cells)
        set_(self, "full", (1 << cells) - 1)
        set_(self, "lines", tuple(sum(1 << c for c in window) for window in line_cells))
        set_(self, "line_cells", line_cells)
        set_(self, "flanks", tuple(sum(1 << c for c in flank) for _, flank in windows))
        set_(self, "lines_through", tuple(tuple(t) for t in through))

    # Equal by what defines the shape, not by identity: geometry()'s cache is
    # bounded, and a shape built again after an eviction (the book alone names
    # more shapes than the cache holds) must still equal the first one, so
    # that boards of it compare and hash alike.
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Geometry):
            return NotImplemented
        return (self.rows, self.cols, self.k, self.rule) == (
            other.rows,
            other.cols,
            other.k,
            other.rule,
        )

    def __hash__(self) -> int:
        return hash((self.rows, self.cols, self.k, self.rule))

    # -- the rule -------------------------------------------------------------

    @property
    def overlines_matter(self) -> bool:
        """Whether the rule changes the game here for both sides alike: ``exact``,
        and a row of k + 1 fits."""
        return self.rule is Rule.EXACT and max(self.rows, self.cols) > self.k

    def exact_for(self, x: bool) -> bool:
        """Whether X's marks (``x``) or O's win only with exactly k in a row here."""
        return self.overlines_matter or (self.rule is Rule.RENJU and x)

    def core_rule(self) -> int:
        """The compiled core's rule number (core/big/board.h): 0 freestyle, 1 exact
        where it changes the game, 2 renju."""
        return 2 if self.rule is Rule.RENJU else int(self.overlines_matter)

    def wins_line(self, marks: int, index: int, *, x: bool) -> bool:
        """Whether ``marks``, X's (``x``) or O's, win on line ``index`` under the rule."""
        mask = self.lines[index]
        if marks & mask != mask:
            return False
        return not (self.exact_for(x) and marks & self.flanks[index])

    def has_line(self, marks: int, *, x: bool) -> bool:
        """Whether ``marks``, X's or O's, win anywhere. A plain loop over the
        masks, building nothing: it is asked several times per request."""
        if self.exact_for(x):
            return any(self.wins_line(marks, i, x=x) for i in range(len(self.lines)))
        for mask in self.lines:  # noqa: SIM110
            if marks & mask == mask:
                return True
        return False

    def has_line_through(self, marks: int, cell: int, *, x: bool) -> bool:
        """Whether ``marks``, X's or O's, win on a line through ``cell`` (after a move there)."""
        return any(self.wins_line(marks, i, x=x) for i in self.lines_through[cell])

    def winning_lines(self, marks: int, *, x: bool) -> tuple[tuple[int, ...], ...]:
        """Every line ``marks``, X's or O's, win on, as cell indices."""
        if not self.has_line(marks, x=x):
            return ()
        return tuple(
            self.line_cells[i] for i in range(len(self.lines)) if self.wins_line(marks, i, x=x)
        )

    def overlines(self, marks: int) -> tuple[tuple[int, ...], ...]:
        """The k-cell windows of ``marks`` that lie in a row of k + 1 or more."""
        return tuple(
            self.line_cells[i]
            for i, mask in enumerate(self.lines)
            if marks & mask == mask and marks & self.flanks[i]
        )

    # -- cells ----------------------------------------------------------------

    def row_col(self, cell: int) -> tuple[int, int]:
        """The 0-based (row, column) of a cell index, row 0 at the top."""
        return divmod(cell, self.cols)

    def coordinate(self, cell: int) -> str:
        """Gomoku notation: the column's letter from ``a``, the row's number from 1
        at the bottom.

        >>> geometry(3, 3).coordinate(0), geometry(3, 3).coordinate(8)
        ('a3', 'c1')
        """
        row, col = self.row_col(cell)
        return f"{COLUMN_LETTERS[col]}{self.rows - row}"

    def parse_coordinate(self, text: str) -> int:
        """The cell a gomoku coordinate names (either case); the inverse of
        :meth:`coordinate`. Raises :class:`CoordinateError`."""
        found = _COORDINATE.fullmatch(text.strip().lower())
        if found is None:
            raise CoordinateError(
                f"{text!r} is not a coordinate: a column letter from a, then a row "
                "number from 1 at the bottom, such as h8"
            )
        col = string.ascii_lowercase.index(found[1])
        row_number = int(found[2])
        if col >= self.cols or not 1 <= row_number <= self.rows:
            last = f"{COLUMN_LETTERS[self.cols - 1]}{self.rows}"
            raise CoordinateError(
                f"{text!r} is off the {self.rows}x{self.cols} board: columns a to "
                f"{COLUMN_LETTERS[self.cols - 1]}, rows 1 to {self.rows} (a1 to {last})"
            )
        return (self.rows - row_number) * self.cols + col

    # -- what only the exact search needs, computed on first use ---------------

    @cached_property
    def symmetries(self) -> tuple[Permutation, ...]:
        rows, cols = self.rows, self.cols

        def perm(f: object) -> Permutation:
            assert callable(f)
            return tuple(f(i // cols, i % cols) for i in range(rows * cols))

        maps = [
            lambda r, c: r * cols + c,  # identity
            lambda r, c: r * cols + (cols - 1 - c),  # mirror left-right
            lambda r, c: (rows - 1 - r) * cols + c,  # mirror top-bottom
            lambda r, c: (rows - 1 - r) * cols + (cols - 1 - c),  # half turn
        ]
        if rows == cols:
            n = rows
            maps += [
                lambda r, c: c * n + r,  # transpose
                lambda r, c: (n - 1 - c) * n + (n - 1 - r),  # anti-transpose
                lambda r, c: c * n + (n - 1 - r),  # quarter turn
                lambda r, c: (n - 1 - c) * n + r,  # three-quarter turn
            ]
        return tuple(perm(f) for f in maps)

    @cached_property
    def cell_order(self) -> tuple[int, ...]:
        """Cells on the most lines first, then nearest the centre, then by index."""
        centre_r, centre_c = (self.rows - 1) / 2, (self.cols - 1) / 2
        return tuple(
            sorted(
                range(self.cells),
                key=lambda c: (
                    -len(self.lines_through[c]),
                    abs(c // self.cols - centre_r) + abs(c % self.cols - centre_c),
                    c,
                ),
            )
        )

    @cached_property
    def _codes(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
        # Two bits per cell in each symmetric frame: 01 for X, 10 for O. The sum
        # over a position's marks is an exact (collision-free) integer code of
        # that position seen through the symmetry.
        cells = range(self.cells)
        x_codes = tuple(tuple(1 << (2 * perm[c]) for c in cells) for perm in self.symmetries)
        o_codes = tuple(tuple(2 << (2 * perm[c]) for c in cells) for perm in self.symmetries)
        return x_codes, o_codes

    def position_codes(self, x: int, o: int) -> list[int]:
        """The exact integer code of the position (x, o) seen through each symmetry.

        ``min(codes)`` names the position's whole symmetry class.

        >>> g = geometry(3, 3)
        >>> min(g.position_codes(0b1, 0)) == min(g.position_codes(0b100000000, 0))
        True
        """
        xs, os_ = _bits(x), _bits(o)
        x_codes, o_codes = self._codes
        return [
            sum([xc[c] for c in xs]) + sum([oc[c] for c in os_])
            for xc, oc in zip(x_codes, o_codes, strict=True)
        ]

    def _windows(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Every run of k cells in a row, column or diagonal, in a fixed order, with
        the cells just before and after it on its line (none past the edge)."""
        rows, cols, k = self.rows, self.cols, self.k

        def on_board(r: int, c: int) -> bool:
            return 0 <= r < rows and 0 <= c < cols

        windows = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for r in range(rows):
                for c in range(cols):
                    if on_board(r + dr * (k - 1), c + dc * (k - 1)):
                        cells = tuple((r + dr * i) * cols + c + dc * i for i in range(k))
                        ends = ((r - dr, c - dc), (r + dr * k, c + dc * k))
                        flank = tuple(er * cols + ec for er, ec in ends if on_board(er, ec))
                        windows.append((cells, flank))
        return windows


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


cells_of = _bits


def geometry(
    rows: int, cols: int, k: int | None = None, rule: Rule | str = Rule.FREESTYLE
) -> Geometry:
    """The shared :class:`Geometry` for a shape; ``k`` defaults to :func:`default_k`."""
    return _shared_geometry(rows, cols, default_k(rows, cols) if k is None else k, Rule(rule))


# Bounded: the shapes in use at once are few, and a 20x20 one holds a few
# hundred kilobytes of masks, so an unbounded cache over every (rows, cols, k,
# rule) a client may name would grow without limit.
@lru_cache(maxsize=256)
def _shared_geometry(rows: int, cols: int, k: int, rule: Rule) -> Geometry:
    return Geometry(rows, cols, k, rule)

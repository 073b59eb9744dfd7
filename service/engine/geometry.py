"""Board geometry: the shape of an m x n board with k in a row, and what follows from it.

A :class:`Geometry` owns everything that depends only on ``(rows, cols, k)``: the
winning lines as bit masks, the lines through each cell, the board's symmetries
and the static cell order used to break ties. It is computed once per shape and
shared (:func:`geometry` caches it); it knows nothing about marks on a board.

Cells are numbered row by row from 0: cell ``i`` is row ``i // cols``, column
``i % cols``, and is bit ``1 << i`` of a bitboard.

Symmetry handling, stated once: a square board has the 8 symmetries of the
square (4 rotations, each optionally mirrored); a non-square rectangle has 4
(identity, both mirrors, the half turn). Each symmetry is a permutation of cell
indices, and positions that map onto each other have the same value, so the
search keys its cache on the smallest image of a position (see
:meth:`Geometry.position_codes`).

>>> g = geometry(3, 3)
>>> g.k, len(g.lines), len(g.symmetries)
(3, 8, 8)
>>> geometry(3, 5, 3).symmetries[1]  # the horizontal mirror of a 3x5 board
(4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 14, 13, 12, 11, 10)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from service.engine.errors import BoardSizeError

MIN_SIDE = 3
MAX_SIDE = 7
MIN_K = 3
DEFAULT_MAX_K = 5

Permutation = tuple[int, ...]
TAG_BITS = 8  # every Geometry.tag is below 1 << TAG_BITS


def default_k(rows: int, cols: int) -> int:
    """The win length when none is given: ``min(rows, cols, 5)``.

    >>> default_k(3, 3), default_k(4, 4), default_k(7, 7), default_k(3, 7)
    (3, 4, 5, 3)
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


@dataclass(frozen=True, eq=False)
class Geometry:
    """An ``rows`` x ``cols`` board on which ``k`` marks in a row win."""

    rows: int
    cols: int
    k: int
    cells: int = field(init=False)
    full: int = field(init=False)
    lines: tuple[int, ...] = field(init=False, repr=False)
    line_cells: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    lines_through: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    line_index_mask: tuple[int, ...] = field(init=False, repr=False)
    symmetries: tuple[Permutation, ...] = field(init=False, repr=False)
    inverse_symmetries: tuple[Permutation, ...] = field(init=False, repr=False)
    x_codes: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    o_codes: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    cell_order: tuple[int, ...] = field(init=False, repr=False)
    tag: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_shape(self.rows, self.cols, self.k)
        cells = self.rows * self.cols
        line_cells = tuple(self._windows())
        lines = tuple(sum(1 << c for c in window) for window in line_cells)
        through = tuple(
            tuple(i for i, window in enumerate(line_cells) if cell in window)
            for cell in range(cells)
        )
        symmetries = tuple(self._symmetries())
        inverses = tuple(_invert(perm) for perm in symmetries)
        # Two bits per cell in each symmetric frame: 01 for X, 10 for O. The sum
        # over a position's marks is an exact (collision-free) integer code of
        # that position seen through the symmetry.
        x_codes = tuple(tuple(1 << (2 * perm[c]) for c in range(cells)) for perm in symmetries)
        o_codes = tuple(tuple(2 << (2 * perm[c]) for c in range(cells)) for perm in symmetries)
        centre_r, centre_c = (self.rows - 1) / 2, (self.cols - 1) / 2
        order = sorted(
            range(cells),
            key=lambda c: (
                -len(through[c]),
                abs(c // self.cols - centre_r) + abs(c % self.cols - centre_c),
                c,
            ),
        )
        set_ = object.__setattr__
        set_(self, "cells", cells)
        set_(self, "full", (1 << cells) - 1)
        set_(self, "lines", lines)
        set_(self, "line_cells", line_cells)
        set_(self, "lines_through", through)
        set_(self, "line_index_mask", tuple(sum(1 << i for i in t) for t in through))
        set_(self, "symmetries", symmetries)
        set_(self, "inverse_symmetries", inverses)
        set_(self, "x_codes", x_codes)
        set_(self, "o_codes", o_codes)
        set_(self, "cell_order", tuple(order))
        # A small number unique to the shape, so that one cache can hold positions
        # of every shape without two of them sharing a key.
        span = MAX_SIDE - MIN_SIDE + 1
        set_(
            self, "tag", ((self.rows - MIN_SIDE) * span + self.cols - MIN_SIDE) * MAX_SIDE + self.k
        )

    def _windows(self) -> list[tuple[int, ...]]:
        """Every run of k cells in a row, column or diagonal, in a fixed order."""
        rows, cols, k = self.rows, self.cols, self.k
        windows: list[tuple[int, ...]] = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for r in range(rows):
                for c in range(cols):
                    end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= end_r < rows and 0 <= end_c < cols:
                        windows.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
        return windows

    def _symmetries(self) -> list[Permutation]:
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
        return [perm(f) for f in maps]

    def row_col(self, cell: int) -> tuple[int, int]:
        """The 0-based (row, column) of a cell index."""
        return divmod(cell, self.cols)

    def position_codes(self, x: int, o: int) -> list[int]:
        """The exact integer code of the position (x, o) seen through each symmetry.

        ``min(codes)`` names the position's whole symmetry class.

        >>> g = geometry(3, 3)
        >>> min(g.position_codes(0b1, 0)) == min(g.position_codes(0b100000000, 0))
        True
        """
        xs, os_ = _bits(x), _bits(o)
        return [
            sum([xc[c] for c in xs]) + sum([oc[c] for c in os_])
            for xc, oc in zip(self.x_codes, self.o_codes, strict=True)
        ]


def _invert(perm: Permutation) -> Permutation:
    inverse = [0] * len(perm)
    for source, target in enumerate(perm):
        inverse[target] = source
    return tuple(inverse)


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


cells_of = _bits


def geometry(rows: int, cols: int, k: int | None = None) -> Geometry:
    """The shared :class:`Geometry` for a shape; ``k`` defaults to :func:`default_k`."""
    return _shared_geometry(rows, cols, default_k(rows, cols) if k is None else k)


@cache  # bounded: check_shape admits at most 5 * 5 * 5 shapes
def _shared_geometry(rows: int, cols: int, k: int) -> Geometry:
    return Geometry(rows, cols, k)

"""A plain reference for renju's forbidden moves, for checking an engine against.

Written from the rule's textbook statement (RIF renju), sharing no code with the
service or its compiled core, so that agreement means something. It is slow on
purpose: every shape is found by placing stones and measuring runs, never by
pattern tables. Production never runs it.

Boards are lists of equal-length strings: ``X`` Black (who plays first and is
restricted), ``O`` White, ``.`` empty; k = 5; rows and columns each 9 to 20.

The rule as decided here:

* A **five** is exactly five Black stones in a row. A Black move that makes one
  wins and is never forbidden, whatever else it makes in other lines (an
  overline, a double four, a double three): the win ends the game first.
* Otherwise a Black move is forbidden if it makes an **overline** (six or more
  in a row through it), else a **double four** (two or more fours), else a
  **double three** (two or more real threes); the first that applies names it.
* Only shapes that contain the stone just played count: the move makes them,
  and stones that already formed a four elsewhere do not.
* A **four** is a set of four Black stones on one line, the move among them,
  that one more stone turns into exactly five. Fours are counted as distinct
  sets of stones, not as lines or as winning cells: ``.XXXX.`` has two winning
  cells but one set of stones, so it is one four (a straight four), while
  ``X.XXX.X`` made by its middle stone has two sets, ``XXXX`` on the left and on
  the right, so it is two fours on one line, a double four.
* A **straight four** is four Black stones in a row whose both ends are empty
  cells each of which makes exactly five; an end that would make six does not
  count, so ``X.XXXX.`` (left end makes six) is a four, not a straight four.
* A **three** is a set of three Black stones on one line, the move among them,
  that one more stone (a *completing cell*) turns into a straight four. It is
  **real** if at least one completing cell is a move Black may play on the
  board with the move made, decided by this same rule, recursively. So an open
  three with one completing cell forbidden is still real; and a completing cell
  that makes a five in another line is playable (a five is never forbidden), so
  its three is real. The recursion ends because every level adds a stone.
* Threes, like fours, are counted as distinct sets of stones. On one line there
  is at most one three containing the move (two would need a fourth stone next
  to a straight four's open end), and a line never holds a four and a three
  containing the move at once, so counting sets and counting lines agree; the
  sets are counted anyway, so that nothing rests on that argument.
* A four-three (one four, one real three) is allowed; four-three-three is a
  double three and four-four-three a double four.
* White wins with five or more in a row; White has no forbidden moves.

``random_renju_positions`` makes positions dense enough in Black stones for all
three kinds of forbidden move to occur, for agreement tests on many positions.

>>> grid = ["." * 15] * 6 + ["....XX.XX......"] + ["." * 15] * 8
>>> makes_five(grid, 6, 6), forbidden_kind(grid, 6, 6)
(True, None)
>>> forbidden_kind(["XXX.XX" + "." * 9] + ["." * 15] * 14, 0, 3)
'overline'
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

BLACK, WHITE, EMPTY = "X", "O", "."
K = 5
MIN_SIZE, MAX_SIZE = 9, 20
OVERLINE, DOUBLE_FOUR, DOUBLE_THREE = "overline", "double-four", "double-three"
# In the order they are reported when a move makes several.
KINDS = (OVERLINE, DOUBLE_FOUR, DOUBLE_THREE)
# One direction per line: along a row, down a column, and the two diagonals.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

Cell = tuple[int, int]
Direction = tuple[int, int]


@dataclass(frozen=True)
class Position:
    """The stones as two sets of cells: a value, so a stone is placed by copying."""

    rows: int
    cols: int
    black: frozenset[Cell]
    white: frozenset[Cell]

    @classmethod
    def parse(cls, grid: Sequence[str]) -> Position:
        rows, cols = len(grid), len(grid[0]) if grid else 0
        if not (MIN_SIZE <= rows <= MAX_SIZE and MIN_SIZE <= cols <= MAX_SIZE):
            raise ValueError(f"boards are 9x9 to 20x20, not {rows}x{cols}")
        if any(len(line) != cols for line in grid):
            raise ValueError(f"rows of unequal length: {list(grid)!r}")
        marks = {(r, c): mark for r, line in enumerate(grid) for c, mark in enumerate(line)}
        if bad := {mark for mark in marks.values() if mark not in (BLACK, WHITE, EMPTY)}:
            raise ValueError(f"marks other than X, O and '.': {sorted(bad)!r}")
        black = frozenset(cell for cell, mark in marks.items() if mark == BLACK)
        white = frozenset(cell for cell, mark in marks.items() if mark == WHITE)
        return cls(rows, cols, black, white)

    def on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.rows and 0 <= cell[1] < self.cols

    def is_empty(self, cell: Cell) -> bool:
        return self.on_board(cell) and cell not in self.black and cell not in self.white

    def with_black(self, cell: Cell) -> Position:
        return Position(self.rows, self.cols, self.black | {cell}, self.white)

    def with_white(self, cell: Cell) -> Position:
        return Position(self.rows, self.cols, self.black, self.white | {cell})


def step(cell: Cell, direction: Direction, distance: int) -> Cell:
    return (cell[0] + direction[0] * distance, cell[1] + direction[1] * distance)


def run(stones: frozenset[Cell], cell: Cell, direction: Direction) -> list[Cell]:
    """The unbroken run of ``stones`` along ``direction`` through ``cell`` (one of
    them), in order. Cells off the board are never in ``stones``."""
    before = 1
    while step(cell, direction, -before) in stones:
        before += 1
    after = 1
    while step(cell, direction, after) in stones:
        after += 1
    return [step(cell, direction, d) for d in range(-before + 1, after)]


def line_cells(position: Position, cell: Cell, direction: Direction) -> Iterator[Cell]:
    """The empty cells within four steps of ``cell`` along ``direction``: every
    cell that can share a five with it."""
    for distance in range(-(K - 1), K):
        other = step(cell, direction, distance)
        if distance != 0 and position.is_empty(other):
            yield other


def five_in(position: Position, cell: Cell, direction: Direction) -> bool:
    """Black's run through ``cell`` along ``direction`` is exactly five."""
    return len(run(position.black, cell, direction)) == K


def fours(position: Position, move: Cell, direction: Direction) -> set[frozenset[Cell]]:
    """The fours through ``move`` (already placed) on one line, as sets of stones."""
    found = set()
    for cell in line_cells(position, move, direction):
        stones = run(position.black | {cell}, cell, direction)
        if len(stones) == K and move in stones:
            found.add(frozenset(stones) - {cell})
    return found


def is_straight_four(position: Position, cell: Cell, direction: Direction) -> bool:
    """Black's run through ``cell`` is four stones whose both ends make exactly five."""
    stones = run(position.black, cell, direction)
    ends = (step(stones[0], direction, -1), step(stones[-1], direction, 1))
    return len(stones) == K - 1 and all(
        position.is_empty(end) and five_in(position.with_black(end), end, direction) for end in ends
    )


def threes(
    position: Position, move: Cell, direction: Direction
) -> dict[frozenset[Cell], set[Cell]]:
    """The threes through ``move`` (already placed) on one line: each set of three
    stones with the cells that turn it into a straight four."""
    found: dict[frozenset[Cell], set[Cell]] = {}
    for cell in line_cells(position, move, direction):
        completed = position.with_black(cell)
        stones = run(completed.black, cell, direction)
        if move in stones and is_straight_four(completed, cell, direction):
            found.setdefault(frozenset(stones) - {cell}, set()).add(cell)
    return found


def kind(position: Position, move: Cell) -> str | None:
    """The rule itself, on an empty cell: see the module's docstring."""
    placed = position.with_black(move)
    runs = [len(run(placed.black, move, direction)) for direction in DIRECTIONS]
    if K in runs:
        return None
    if max(runs) > K:
        return OVERLINE
    if sum(len(fours(placed, move, direction)) for direction in DIRECTIONS) >= 2:
        return DOUBLE_FOUR
    real_threes = sum(
        1
        for direction in DIRECTIONS
        for completing in threes(placed, move, direction).values()
        if any(kind(placed, cell) is None for cell in completing)
    )
    return DOUBLE_THREE if real_threes >= 2 else None


def empty_cell(position: Position, row: int, col: int) -> Cell:
    if not position.is_empty((row, col)):
        raise ValueError(f"({row}, {col}) is not an empty cell of the board")
    return (row, col)


def forbidden_kind(grid: Sequence[str], row: int, col: int) -> str | None:
    """Why Black may not play at (row, col): ``"overline"``, ``"double-four"`` or
    ``"double-three"``; ``None`` if Black may."""
    position = Position.parse(grid)
    return kind(position, empty_cell(position, row, col))


def makes_five(grid: Sequence[str], row: int, col: int) -> bool:
    """Black playing at (row, col) makes exactly five in a row, in some line."""
    position = Position.parse(grid)
    move = empty_cell(position, row, col)
    return any(five_in(position.with_black(move), move, d) for d in DIRECTIONS)


def white_wins(grid: Sequence[str], row: int, col: int) -> bool:
    """White playing at (row, col) makes five or more in a row, in some line."""
    position = Position.parse(grid)
    move = empty_cell(position, row, col)
    white = position.with_white(move).white
    return any(len(run(white, move, d)) >= K for d in DIRECTIONS)


def forbidden_cells(grid: Sequence[str]) -> dict[Cell, str]:
    """Every empty cell where Black may not play, with the reason."""
    position = Position.parse(grid)
    found = {}
    for row in range(position.rows):
        for col in range(position.cols):
            if position.is_empty((row, col)) and (reason := kind(position, (row, col))):
                found[(row, col)] = reason
    return found


def winner(grid: Sequence[str]) -> str | None:
    """``"X"`` if Black has exactly five in a row somewhere, ``"O"`` if White has
    five or more, else ``None``. (Black's six or more alone is no win.) Both at
    once is a ``ValueError``."""
    position = Position.parse(grid)
    black = any(
        len(run(position.black, cell, d)) == K for cell in position.black for d in DIRECTIONS
    )
    white = any(
        len(run(position.white, cell, d)) >= K for cell in position.white for d in DIRECTIONS
    )
    if black and white:
        raise ValueError(f"both sides have five: {list(grid)!r}")
    return BLACK if black else WHITE if white else None


def random_renju_positions(rng: random.Random, count: int, size: int = 15) -> list[list[str]]:
    """``count`` square positions of side ``size``, dense in Black stones near each
    other so that forbidden moves occur: 8 to 30 Black stones and 2 to 8 White ones
    scattered around a centre (anywhere, so sometimes against an edge), and no
    side with five or more in a row. The same ``rng`` state gives the same
    positions."""
    positions: list[list[str]] = []
    while len(positions) < count:
        if (grid := clustered_position(rng, size)) is not None:
            positions.append(grid)
    return positions


def clustered_position(rng: random.Random, size: int) -> list[str] | None:
    """One position of ``random_renju_positions``, or ``None`` when its cluster had
    no room for the stones drawn (a tight cluster in a corner)."""
    board = [[EMPTY] * size for _ in range(size)]
    centre = (rng.randrange(size), rng.randrange(size))
    spread = rng.uniform(1.2, 2.5)
    for mark, count in ((BLACK, rng.randint(8, 30)), (WHITE, rng.randint(2, 8))):
        stones: set[Cell] = set()
        for _ in range(50 * count):
            if len(stones) == count:
                break
            row, col = round(rng.gauss(centre[0], spread)), round(rng.gauss(centre[1], spread))
            if not (0 <= row < size and 0 <= col < size) or board[row][col] != EMPTY:
                continue
            cell = (row, col)
            # No five or longer: a five ends the game, and Black's six is forbidden.
            if all(len(run(frozenset(stones | {cell}), cell, d)) < K for d in DIRECTIONS):
                stones.add(cell)
                board[row][col] = mark
        if len(stones) < count:
            return None
    return ["".join(line) for line in board]

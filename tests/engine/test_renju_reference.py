"""The renju reference (``tests/renju_reference.py``) checked on hand-drawn
diagrams, one point of the rule at a time, each with a forbidden and an allowed
variant; then its position generator, which must produce every kind of
forbidden move often enough for an agreement test to exercise them.

A diagram is drawn small and centred on an empty 15x15 board, unless it is
drawn at the board's full size (where the edge matters). ``*`` is Black's move;
other lower-case letters name empty cells the test looks at.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from tests import renju_reference as ref

Cell = tuple[int, int]


def drawing(picture: str, size: int = 15) -> tuple[list[str], dict[str, Cell]]:
    """The board a picture shows, and where its lettered (empty) cells are."""
    lines = [line.replace(" ", "") for line in picture.strip().splitlines()]
    top, left = (size - len(lines)) // 2, (size - len(lines[0])) // 2
    board = [["."] * size for _ in range(size)]
    marks = {}
    for r, line in enumerate(lines):
        for c, mark in enumerate(line):
            if mark not in "XO.":
                marks[mark] = (top + r, left + c)
            else:
                board[top + r][left + c] = mark
    return ["".join(line) for line in board], marks


def with_black(grid: Sequence[str], *cells: Cell) -> list[str]:
    rows = [list(line) for line in grid]
    for row, col in cells:
        rows[row][col] = "X"
    return ["".join(line) for line in rows]


def verdict(picture: str, size: int = 15) -> str | None:
    grid, marks = drawing(picture, size)
    return ref.forbidden_kind(grid, *marks["*"])


# Each point of the rule, forbidden and allowed. Pairs differ by a stone or two.
CASES = {
    # A five wins, so it is never forbidden; six or more is an overline.
    "five": (". X X * X X .", None),
    "five, a stone beyond the gap": (". X X * X X . X .", None),
    "six": (". X X * X X X .", ref.OVERLINE),
    "seven": (". X X X * X X X .", ref.OVERLINE),
    "five in a row, overline in a column": (
        """
        . . . . . . .
        . . . X . . .
        . . . X . . .
        . . . X . . .
        . X X * X X .
        . . . X . . .
        . . . X . . .
        . . . . . . .
        """,
        None,
    ),
    "overline in a column, a straight four in the row": (
        """
        . . . . . . .
        . . . X . . .
        . . . X . . .
        . . . X . . .
        . X X * X . .
        . . . X . . .
        . . . X . . .
        . . . . . . .
        """,
        ref.OVERLINE,
    ),
    "five in a row and two other fours": (
        """
        O . . . O . . . .
        . X . . X . . . .
        . . X . X . . . .
        . . . X X . . . .
        . . X X * X X . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        None,
    ),
    "a straight four in the row and two other fours": (
        """
        O . . . O . . . .
        . X . . X . . . .
        . . X . X . . . .
        . . . X X . . . .
        . . X X * X . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        ref.DOUBLE_FOUR,
    ),
    # Double four: on two lines, or twice on one line.
    "fours in a row and a column": (
        """
        . . . . O . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        O X X X * . . .
        . . . . . . . .
        """,
        ref.DOUBLE_FOUR,
    ),
    "a four in a column, the row dead between White stones": (
        """
        . . . . O . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        O X X X * O . .
        . . . . . . . .
        """,
        None,
    ),
    "two fours on one line, X.XXX.X": (". X . X * X . X .", ref.DOUBLE_FOUR),
    "X.XXX.X with one end White: one four": (". X . X * X . O .", None),
    "two fours on one line, XX.XX.XX": (". X X . * X . X X .", ref.DOUBLE_FOUR),
    "XX.XX.XXX: the right-hand five would be six": (". X X . * X . X X X .", None),
    "two fours on one line, XXX.X.XXX": (". X X X . * . X X X .", ref.DOUBLE_FOUR),
    "a straight four is one four": (". . X X * X . .", None),
    "a straight four and a four in a column": (
        """
        . . . O . . .
        . . . X . . .
        . . . X . . .
        . . . X . . .
        . X X * X . .
        . . . . . . .
        """,
        ref.DOUBLE_FOUR,
    ),
    "XX.XXX is no four (its five would be six), with a four in a column": (
        """
        . . . . . O . .
        . . . . . X . .
        . . . . . X . .
        . . . . . X . .
        . X X . X * X .
        . . . . . . . .
        """,
        None,
    ),
    "X.XXX is a four, with a four in a column": (
        """
        . . . . . O . .
        . . . . . X . .
        . . . . . X . .
        . . . . . X . .
        . . X . X * X .
        . . . . . . . .
        """,
        ref.DOUBLE_FOUR,
    ),
    # Double three.
    "two open threes": (
        """
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . . X . . .
        . X X * . . .
        . . . . . . .
        . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    "the row's three blocked by White on one side": (
        """
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . . X . . .
        O X X * . . .
        . . . . . . .
        . . . . . . .
        """,
        None,
    ),
    "two split threes, .X.XX. and .XX.X.": (
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X . X * . . . .
        . . . . . X . . .
        . . . . . . . . .
        . . . . . . . X .
        . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    "a split three blocked at its far end is no three": (
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        O X . X * . . . .
        . . . . . X . . .
        . . . . . . . . .
        . . . . . . . X .
        . . . . . . . . .
        """,
        None,
    ),
    "X..XX is no three (two gaps)": (
        """
        . . . . . . . .
        . . . . . . . .
        . . . . . X . .
        . . . . . X . .
        . X . . X * . .
        . . . . . . . .
        . . . . . . . .
        """,
        None,
    ),
    "X..XX*...: one side of the three would make six, the other a straight four": (
        """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . X . . X X * . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    "X..XX*..X: both sides of the three would make six, no straight four": (
        """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . X . . X X * . . X .
        . . . . . . . . . . .
        . . . . . . . . . . .
        """,
        None,
    ),
    "a four and a three": (
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        None,
    ),
    "a four and two threes": (
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O X X X * . . . .
        . . . . . X . . .
        . . . . . . X . .
        . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    # Only shapes through the move are the move's.
    "a four already on the row, away from the move, and a four in a column": (
        """
        . . . . . . . . O .
        . . . . . . . . X .
        . . . . . . . . X .
        . . . . . . . . X .
        O X X X X . . . * .
        . . . . . . . . . .
        . . . . . . . . . .
        """,
        None,
    ),
    "a three already on the row, away from the move, and a three in a column": (
        """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . X .
        . . . . . . . . X .
        . . X X X . . . * .
        . . . . . . . . . .
        . . . . . . . . . .
        """,
        None,
    ),
    "the row's stones next to the move, and a three in a column": (
        """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . X .
        . . . . . . . . X .
        . . . . . . X X * .
        . . . . . . . . . .
        . . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    # Real threes, recursively: a three counts if some cell that makes it a
    # straight four is a move Black may play. ``a``..``h``: the cells looked at.
    "an open three with one straight-four cell (b) an overline point": (
        """
        . . . . . . . . . . . . .
        . . . . . . . X . . . . .
        . . . . . . . X . . . . .
        . . . . . . . X . . . . .
        . . . a X X * b . . . . .
        . . . . . . X X . . . . .
        . . . . . . X X . . . . .
        . . . . . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    "an open three with both straight-four cells (a, b) overline points": (
        """
        . . . . . . . . . . . . .
        . . . X . . . X . . . . .
        . . . X . . . X . . . . .
        . . . X . . . X . . . . .
        . . . a X X * b . . . . .
        . . . X . . X X . . . . .
        . . . X . . X X . . . . .
        . . . . . . . . . . . . .
        """,
        None,
    ),
    "a split three whose straight-four cell (g) would make six in its column": (
        """
        . . . . . . . . .
        . . . X . . . . .
        . . . X . X . . .
        . . . X . X . . .
        . . X g X * . . .
        . . . X . . . . .
        . . . X . . . . .
        . . . . . . . . .
        """,
        None,
    ),
    "a split three whose straight-four cell (g) would make five in its column": (
        """
        . . . . . . . . .
        . . . X . . . . .
        . . . X . X . . .
        . . . X . X . . .
        . . X g X * . . .
        . . . X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
    "a split three whose straight-four cell (g) is a double four": (
        """
        . . . . . . . . .
        . . . O . . . . .
        . . . X . . . . .
        . . . X . X . . .
        . . . X . X . . .
        . . X g X * . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        None,
    ),
    "a split three whose straight-four cell (g) is a four, the column dead": (
        """
        . . . . . . . . .
        . . . O . . . . .
        . . . X . . . . .
        . . . X . X . . .
        . . . X . X . . .
        . . X g X * . . .
        . . . O . . . . .
        . . . . . . . . .
        """,
        ref.DOUBLE_THREE,
    ),
}

# Two levels: the row's split three through * is completed only at g. At g
# (with * placed) Black makes a straight four and two threes, the column's
# completed only at h; at h (with * and g placed) Black makes a straight four in
# the column and, in the row, a four (TWO_LEVELS) or nothing (ONE_LEVEL).
TWO_LEVELS = """
    . . . . . . . . . . . .
    . . . . . . . . . . . .
    . . . X . . . . . . . .
    . . . . X . . . . . . .
    . . . . X g X * . . . .
    . O X X X h . . X . . .
    . . . . . X . . . X . .
    . . . . . X . . . . . .
    . . . . . . . . . . . .
    . . . . . . . . . . . .
"""
ONE_LEVEL = TWO_LEVELS.replace("O X X X h", "O O X X h")


@pytest.mark.parametrize(("picture", "expected"), CASES.values(), ids=CASES.keys())
def test_diagram(picture: str, expected: str | None) -> None:
    assert verdict(picture) == expected


def test_a_forbidden_completing_cell_makes_its_three_false_two_levels_down() -> None:
    grid, marks = drawing(TWO_LEVELS)
    move, g, h = marks["*"], marks["g"], marks["h"]
    # h is a double four, so g's column three is false and g a four-three,
    # which Black may play, so the row's three through * is real.
    assert ref.forbidden_kind(with_black(grid, move, g), *h) == ref.DOUBLE_FOUR
    assert ref.forbidden_kind(with_black(grid, move), *g) is None
    assert ref.forbidden_kind(grid, *move) == ref.DOUBLE_THREE


def test_a_forbidden_completing_cell_makes_its_three_false_one_level_down() -> None:
    grid, marks = drawing(ONE_LEVEL)
    move, g, h = marks["*"], marks["g"], marks["h"]
    # h is a plain straight four, so g is a four and two real threes, forbidden,
    # and the row's three through * is false: * makes one real three.
    assert ref.forbidden_kind(with_black(grid, move, g), *h) is None
    assert ref.forbidden_kind(with_black(grid, move), *g) == ref.DOUBLE_THREE
    assert ref.forbidden_kind(grid, *move) is None


def test_completing_cells_of_the_one_level_diagrams_are_what_their_names_say() -> None:
    checks = {
        "an open three with one straight-four cell (b) an overline point": {
            "a": None,
            "b": ref.OVERLINE,
        },
        "an open three with both straight-four cells (a, b) overline points": {
            "a": ref.OVERLINE,
            "b": ref.OVERLINE,
        },
        "a split three whose straight-four cell (g) would make six in its column": {
            "g": ref.OVERLINE
        },
        "a split three whose straight-four cell (g) would make five in its column": {"g": None},
        "a split three whose straight-four cell (g) is a double four": {"g": ref.DOUBLE_FOUR},
        "a split three whose straight-four cell (g) is a four, the column dead": {"g": None},
    }
    for name, expected in checks.items():
        grid, marks = drawing(CASES[name][0])
        placed = with_black(grid, marks["*"])
        assert {m: ref.forbidden_kind(placed, *marks[m]) for m in expected} == expected, name


# The edge closes a line like a White stone: drawn on whole 9x9 boards.
@pytest.mark.parametrize(
    ("picture", "expected"),
    [
        (
            """
            . . . . . . . . .
            . . . . . . . . .
            . . X . . . . . .
            . . X . . . . . .
            X X * . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            """,
            None,
        ),
        (
            """
            . . . . . . . . .
            . . . . . . . . .
            . . . X . . . . .
            . . . X . . . . .
            . X X * . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            """,
            ref.DOUBLE_THREE,
        ),
        (
            """
            . . . . O . . . .
            . . . . X . . . .
            . . . . X . . . .
            . . . . X . . . .
            X X X * . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            """,
            None,
        ),
        (
            """
            . . . O . . . . .
            . . . X . . . . .
            . . . X . . . . .
            . . . X . . . . .
            X X X * . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            """,
            ref.DOUBLE_FOUR,
        ),
    ],
    ids=[
        "a three against the edge is no three",
        "a three one cell from the edge is a three",
        "a four against the edge, the column's three stones out of line",
        "a four against the edge and a four in the column",
    ],
)
def test_edge(picture: str, expected: str | None) -> None:
    assert verdict(picture, size=9) == expected


@pytest.mark.parametrize(
    ("row", "five"),
    [
        (". X X * X X .", True),
        (". X X * X X . X .", True),
        ("X X X * X .", True),
        (". X X * X X X .", False),
        (". X X * X . .", False),
        (". X X * X X O", True),
    ],
)
def test_makes_five_only_exactly_five(row: str, five: bool) -> None:
    grid, marks = drawing(row)
    assert ref.makes_five(grid, *marks["*"]) is five


@pytest.mark.parametrize(
    ("row", "wins"),
    [
        (". O O * O O .", True),
        (". O O * O O O .", True),
        (". O O * O . .", False),
        (". O O * O O X .", True),
        (". X X * X X .", False),
    ],
)
def test_white_wins_with_five_or_more(row: str, wins: bool) -> None:
    grid, marks = drawing(row)
    assert ref.white_wins(grid, *marks["*"]) is wins


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (". X X X X X .", "X"),
        (". X X X X X X .", None),
        (". X X X X . .", None),
        (". O O O O O .", "O"),
        (". O O O O O O .", "O"),
    ],
)
def test_winner(row: str, expected: str | None) -> None:
    assert ref.winner(drawing(row)[0]) == expected


def test_forbidden_cells_lists_each_forbidden_cell_with_its_kind() -> None:
    # One line of stones: only the gap (six) is forbidden; b makes one four.
    grid, marks = drawing(". . b X X X a X X . .")
    assert ref.forbidden_cells(grid) == {marks["a"]: ref.OVERLINE}
    assert ref.forbidden_kind(grid, *marks["b"]) is None


@pytest.mark.parametrize(
    ("grid", "cell"),
    [
        (["." * 15] * 15, (0, 15)),
        (["X" + "." * 14] + ["." * 15] * 14, (0, 0)),
        (["." * 8] * 8, (0, 0)),
        (["." * 21] * 21, (0, 0)),
        (["." * 15] * 14 + ["." * 14], (0, 0)),
        (["." * 14 + "x"] + ["." * 15] * 14, (0, 0)),
    ],
    ids=["off the board", "occupied", "8x8", "21x21", "ragged", "lower-case mark"],
)
def test_bad_input_is_a_value_error(grid: list[str], cell: Cell) -> None:
    with pytest.raises(ValueError):
        ref.forbidden_kind(grid, *cell)


# The generator, for agreement tests on many positions.
SEED, COUNT = 2026, 300


@pytest.fixture(scope="module")
def generated() -> list[list[str]]:
    return ref.random_renju_positions(random.Random(SEED), COUNT)


def longest(grid: Sequence[str], mark: str) -> int:
    """The longest run of ``mark`` in any line, counted cell by cell."""
    rows, cols = len(grid), len(grid[0])
    best = 0
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                length = 0
                while (
                    0 <= r + length * dr < rows
                    and 0 <= c + length * dc < cols
                    and grid[r + length * dr][c + length * dc] == mark
                ):
                    length += 1
                best = max(best, length)
    return best


def test_generated_positions_are_repeatable_dense_and_unfinished(
    generated: list[list[str]],
) -> None:
    assert generated == ref.random_renju_positions(random.Random(SEED), COUNT)
    assert len(generated) == COUNT
    for grid in generated:
        black, white = Counter("".join(grid))["X"], Counter("".join(grid))["O"]
        assert len(grid) == 15 and {len(line) for line in grid} == {15}
        assert 8 <= black <= 30 and 2 <= white <= 8
        assert longest(grid, "X") < 5 and longest(grid, "O") < 5


@pytest.mark.parametrize("size", [9, 20])
def test_generated_positions_fit_other_boards(size: int) -> None:
    for grid in ref.random_renju_positions(random.Random(size), 5, size=size):
        assert len(grid) == size and {len(line) for line in grid} == {size}
        assert set(ref.forbidden_cells(grid).values()) <= set(ref.KINDS)
        assert longest(grid, "X") < 5 and longest(grid, "O") < 5


def false_three_cells(grid: Sequence[str], forbidden: dict[Cell, str]) -> int:
    """Cells Black may play that make two or more threes: some are false."""
    position = ref.Position.parse(grid)
    count = 0
    for row, line in enumerate(grid):
        for col, mark in enumerate(line):
            if mark != "." or (row, col) in forbidden or ref.makes_five(grid, row, col):
                continue
            placed = position.with_black((row, col))
            threes = sum(len(ref.threes(placed, (row, col), d)) for d in ref.DIRECTIONS)
            count += threes >= 2
    return count


@pytest.mark.slow
def test_generated_positions_hold_every_kind_of_forbidden_move_and_false_threes(
    generated: list[list[str]],
) -> None:
    positions_with: Counter[str] = Counter()
    for grid in generated:
        forbidden = ref.forbidden_cells(grid)
        positions_with.update(set(forbidden.values()))
        positions_with["false three"] += false_three_cells(grid, forbidden) > 0
    assert min(positions_with[kind] for kind in ref.KINDS) >= 50, positions_with
    assert positions_with["false three"] >= 20, positions_with

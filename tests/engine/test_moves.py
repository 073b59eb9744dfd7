"""Boards up to 20x20, the two rules, gomoku coordinates and games given as move lists."""

from __future__ import annotations

import pytest

from service.engine import (
    Board,
    BoardSizeError,
    CoordinateError,
    IllegalMoveError,
    IllegalPositionError,
    InvalidBoardError,
    Player,
    Rule,
    Status,
    geometry,
)


@pytest.mark.parametrize(
    ("rows", "cols", "cell", "name"),
    [
        (15, 15, 112, "h8"),
        (15, 15, 0, "a15"),
        (15, 15, 224, "o1"),
        (20, 20, 399, "t1"),
        (20, 20, 19, "t20"),
        (3, 3, 6, "a1"),
        (3, 7, 6, "g3"),
        (7, 3, 20, "c1"),
    ],
)
def test_coordinates_name_cells_from_the_bottom_left(
    rows: int, cols: int, cell: int, name: str
) -> None:
    shape = geometry(rows, cols)
    assert shape.coordinate(cell) == name
    assert shape.parse_coordinate(name) == cell
    assert shape.parse_coordinate(name.upper()) == cell


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("p1", "off the 15x15 board"),
        ("a16", "rows 1 to 15"),
        ("a0", "off the 15x15 board"),
        ("h", "is not a coordinate"),
        ("8h", "is not a coordinate"),
        ("h08x", "is not a coordinate"),
        ("", "is not a coordinate"),
        ("h123", "is not a coordinate"),
    ],
)
def test_bad_coordinates_are_refused(text: str, quoted: str) -> None:
    with pytest.raises(CoordinateError) as caught:
        geometry(15, 15).parse_coordinate(text)
    assert quoted in str(caught.value)
    assert isinstance(caught.value, InvalidBoardError)


def test_a_bad_coordinate_is_told_what_a_coordinate_is() -> None:
    with pytest.raises(CoordinateError) as not_one:
        geometry(15, 15).parse_coordinate("8h")
    assert str(not_one.value) == (
        "'8h' is not a coordinate: a column letter from a, then a row number from 1 "
        "at the bottom, such as h8"
    )
    with pytest.raises(CoordinateError) as off:
        geometry(9, 12).parse_coordinate("m1")
    assert str(off.value) == ("'m1' is off the 9x12 board: columns a to l, rows 1 to 9 (a1 to l9)")


def test_a_move_list_is_the_board_its_moves_make() -> None:
    board = Board.from_moves(["h8", "h9", 113, "G7"], rows=15, cols=15)
    assert board.mark_count == 4 and board.side_to_move is Player.X
    shape = board.shape
    assert board.x == 1 << shape.parse_coordinate("h8") | 1 << 113
    assert board.o == 1 << shape.parse_coordinate("h9") | 1 << shape.parse_coordinate("g7")
    # The size defaults to gomoku's 15x15, and a square where one side is given.
    assert Board.from_moves([]).shape is geometry(15, 15)
    assert Board.from_moves([0], rows=19).shape is geometry(19, 19)
    assert Board.from_moves([0], cols=9).shape is geometry(9, 9)


def test_who_started_follows_from_the_list_and_the_side_to_move() -> None:
    # Without a side to move, X made the first move.
    assert Board.from_moves(["h8"]).side_to_move is Player.O
    # O started when O is to move after an even number of moves, or X after an odd one.
    started_by_o = Board.from_moves(["h8"], player="X")
    assert started_by_o.o == 1 << 112 and started_by_o.x == 0
    assert Board.from_moves([], player="O").side_to_move is Player.O
    assert Board.from_moves(["h8", "h9"], player="O").o == 1 << 112


@pytest.mark.parametrize(
    ("moves", "kwargs", "error", "field", "quoted"),
    [
        (["h8", "h9", "h8"], {}, IllegalMoveError, "moves/2", "move 3 ('h8') takes h8"),
        ([112, "h8"], {}, IllegalMoveError, "moves/1", "already took"),
        (["h8", "z9"], {}, CoordinateError, "moves/1", "'z9' is off the 15x15 board"),
        (["h8", 225], {}, CoordinateError, "moves/1", "cell 225 is off the 15x15 board"),
        (["h8", -1], {}, CoordinateError, "moves/1", "cell -1 is off"),
        (["h8", 1.5], {}, CoordinateError, "moves/1", "got 1.5"),
        (["h8", True], {}, CoordinateError, "moves/1", "got True"),
        (["h8", "?"], {}, CoordinateError, "moves/1", "'?' is not a coordinate"),
        # X completes a1-e1 with its fifth move (the ninth of the list); a tenth is refused.
        (
            ["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1", "j9"],
            {},
            IllegalMoveError,
            "moves/9",
            "after the game ended: X won with move 9",
        ),
        # 3x3: the board fills with the ninth move.
        ([0, 1, 2, 4, 3, 5, 7, 6, 8, 0], {"rows": 3}, IllegalMoveError, "moves/9", "filled"),
        (list(range(401)), {"rows": 20}, BoardSizeError, "moves", "401 moves"),
        ([0], {"rows": 21}, BoardSizeError, "rows", "between 3 and 20"),
    ],
)
def test_bad_move_lists_name_the_move(
    moves: list[object], kwargs: dict[str, int], error: type, field: str, quoted: str
) -> None:
    with pytest.raises(error) as caught:
        Board.from_moves(moves, **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert quoted in str(caught.value)


def test_moves_after_an_overline_go_on_under_the_exact_rule() -> None:
    """Six in a row ends a freestyle game; under the exact rule it wins for nobody."""
    six = ["a1", "a3", "b1", "b3", "c1", "c3", "e1", "e3", "f1", "f3", "d1"]
    freestyle = Board.from_moves(six)
    assert freestyle.status is Status.WON and freestyle.winner is Player.X
    exact = Board.from_moves([*six, "j9"], rule="exact")
    assert exact.status is Status.IN_PROGRESS and exact.winner is None
    assert exact.rule is Rule.EXACT
    assert repr(exact).endswith("rule='exact')")


@pytest.mark.parametrize(
    ("rows", "cols", "k", "matters"),
    [(3, 3, 3, False), (4, 4, 4, False), (4, 4, 3, True), (15, 15, 5, True), (5, 20, 20, False)],
)
def test_the_exact_rule_matters_where_a_row_of_k_plus_one_fits(
    rows: int, cols: int, k: int, matters: bool
) -> None:
    assert geometry(rows, cols, k, Rule.EXACT).overlines_matter is matters
    assert not geometry(rows, cols, k).overlines_matter


@pytest.mark.parametrize("side", [15, 20])
def test_big_boards_parse_and_format_round_trip(side: int) -> None:
    board = Board.from_moves(["h8", "i9", "j10"], rows=side, cols=side)
    text = board.format()
    assert text.count("/") == side - 1 and len(text) == side * side + side - 1
    assert Board.parse(text) == board
    assert eval(repr(board), {"Board": Board}) == board


def test_a_position_no_game_reaches_is_refused_on_big_boards() -> None:
    rows = ["." * 15] * 15
    rows[0] = "XXXXX" + "." * 10
    rows[1] = "OOOOO" + "." * 10
    with pytest.raises(IllegalPositionError, match="both players"):
        Board.parse("/".join(rows))

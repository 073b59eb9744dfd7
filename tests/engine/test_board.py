"""Board parsing, formatting and the rules of reachability."""

from __future__ import annotations

import itertools

import pytest

from service.engine import (
    Board,
    BoardCharacterError,
    BoardError,
    BoardSizeError,
    DoubleWinError,
    GameOverError,
    Geometry,
    IllegalMoveError,
    IllegalPositionError,
    InvalidBoardError,
    MarkCountError,
    Player,
    Rule,
    RuleError,
    SideToMoveError,
    Status,
    UnreachableWinError,
    geometry,
)
from tests.engine.oracle import reachable


@pytest.mark.parametrize(
    ("text", "kwargs", "canonical", "shape"),
    [
        ("X.O.X...O", {}, "X.O.X...O", (3, 3, 3)),
        ("x.o/.X-/__O", {}, "X.O.X...O", (3, 3, 3)),
        ("   \t"[:3] + "......", {}, ".........", (3, 3, 3)),
        ("................", {}, "..../..../..../....", (4, 4, 4)),
        ("................", {"k": 3}, "..../..../..../....", (4, 4, 3)),
        ("...../...../.....", {}, "...../...../.....", (3, 5, 3)),
        ("...............", {"rows": 3, "cols": 5}, "...../...../.....", (3, 5, 3)),
        ("...............", {"rows": 5}, ".../.../.../.../...", (5, 3, 3)),
        ("...............", {"cols": 5}, "...../...../.....", (3, 5, 3)),
        ("." * 49, {}, "/".join(["......."] * 7), (7, 7, 5)),
        ("." * 21, {"rows": 3, "k": 7}, "......./......./.......", (3, 7, 7)),
    ],
)
def test_parse_and_format(
    text: str, kwargs: dict[str, int], canonical: str, shape: tuple[int, int, int]
) -> None:
    board = Board.parse(text.replace("\t", "."), **kwargs)
    assert (board.rows, board.cols, board.k) == shape
    assert board.format() == canonical
    assert Board.parse(canonical, k=board.k) == board


def test_format_with_separators_on_request() -> None:
    board = Board.parse("XO.......")
    assert board.format(separators=True) == "XO./.../..."
    assert board.format(separators=False) == "XO......."


@pytest.mark.parametrize(
    "board",
    [
        Board.parse("X.O.X...O"),
        Board.parse("................", k=3),
        Board.parse("XO../..../..../....", player="X"),
        Board.parse("......./......./.......", k=4),
        Board.parse("OX.......", player="O"),
    ],
)
def test_repr_round_trips(board: Board) -> None:
    assert eval(repr(board), {"Board": Board}) == board
    assert hash(eval(repr(board), {"Board": Board})) == hash(board)


def test_board_is_immutable() -> None:
    board = Board.parse(".........")
    with pytest.raises(AttributeError):
        board.x = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "kwargs", "side"),
    [
        (".........", {}, Player.X),
        ("X........", {}, Player.O),
        (".........", {"player": "O"}, Player.O),
        ("O........", {}, Player.X),
        ("XO.......", {"player": "o"}, Player.O),
        ("XO.......", {"player": Player.X}, Player.X),
    ],
)
def test_side_to_move(text: str, kwargs: dict[str, str], side: Player) -> None:
    assert Board.parse(text, **kwargs).side_to_move is side


@pytest.mark.parametrize(
    ("text", "kwargs", "error", "quoted"),
    [
        ("X.O", {}, BoardSizeError, "3x3 to 20x20"),
        ("." * 10, {}, BoardSizeError, "got 10 cells"),
        ("." * 420, {}, BoardSizeError, "420 characters"),
        ("." * 441, {"rows": 21, "cols": 21}, BoardSizeError, "441 characters"),
        ("." * 4, {"rows": 2, "cols": 2}, BoardSizeError, "rows must be between 3 and 20"),
        ("." * 63, {"rows": 3, "cols": 21}, BoardSizeError, "cols must be between 3 and 20"),
        ("." * 400, {"k": 21}, BoardSizeError, "k must be between 3 and 20"),
        (".........", {"rule": "caro"}, RuleError, "'freestyle' or 'exact' or 'renju'"),
        (".........", {"rule": "renju"}, BoardSizeError, "renju is played with k = 5, got k = 3"),
        (
            "/".join(["." * 8] * 8),
            {"rule": "renju", "k": 5},
            BoardSizeError,
            "renju is played on boards of 9 to 20 cells a side",
        ),
        ("XO./..", {}, BoardSizeError, "same length"),
        ("........./.........", {"rows": 3}, BoardSizeError, "rows=3"),
        ("." * 12, {"rows": 5}, BoardSizeError, "rows of 5"),
        ("." * 9, {"rows": 3, "cols": 4}, BoardSizeError, "has 12 cells"),
        ("." * 9, {"k": 4}, BoardSizeError, "k must be between 3 and 3"),
        ("." * 9, {"k": 2}, BoardSizeError, "got 2"),
        ("X.Z......", {}, BoardCharacterError, "'Z' at cell 2"),
        ("X.0......", {}, BoardCharacterError, "'0' at cell 2"),
        ("XX.......", {}, MarkCountError, "X has 2 marks and O has 0"),
        ("OO.......", {}, MarkCountError, "O has 2"),
        ("X........", {"player": "X"}, SideToMoveError, "O's turn"),
        (".........", {"player": "Y"}, SideToMoveError, "'Y'"),
        ("XXXOOO...", {}, DoubleWinError, "both players"),
        ("XXXOO.O..", {}, UnreachableWinError, "winner must have moved last"),
        ("OOOXX.X.X", {}, UnreachableWinError, "O has a line"),
        ("XXXOO....", {"player": "X"}, SideToMoveError, "O's turn"),
        ("XXX...XXX", {}, MarkCountError, "X has 6"),
        ("XXXOOO..X", {}, DoubleWinError, "both players"),
        ("XXXXOOOO.", {}, UnreachableWinError, "moved last"),
        ("XXXO/O.O./XXXO/O...", {"k": 3}, UnreachableWinError, "share no cell"),
        # Under the exact rule six in a row is no win, so O may move on; five is.
        (
            "XXXXX./OOOO../....../....../....../......",
            {"k": 5, "rule": "exact", "player": "X"},
            SideToMoveError,
            "O's turn",
        ),
    ],
)
def test_invalid_boards_name_the_problem(
    text: str, kwargs: dict[str, object], error: type[BoardError], quoted: str
) -> None:
    with pytest.raises(error) as caught:
        Board.parse(text, **kwargs)  # type: ignore[arg-type]
    assert quoted in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_error_family() -> None:
    for syntax in (BoardSizeError, BoardCharacterError):
        assert issubclass(syntax, InvalidBoardError)
    for rule in (MarkCountError, SideToMoveError, DoubleWinError, UnreachableWinError):
        assert issubclass(rule, IllegalPositionError)
    for family in (InvalidBoardError, IllegalPositionError, GameOverError, IllegalMoveError):
        assert issubclass(family, BoardError)


def test_character_error_names_the_cell() -> None:
    with pytest.raises(BoardCharacterError) as caught:
        Board.parse("X../.?./...")
    assert (caught.value.cell, caught.value.character) == (4, "?")


@pytest.mark.parametrize(
    ("text", "status", "winner", "lines"),
    [
        (".........", Status.IN_PROGRESS, None, ()),
        ("XXXOO....", Status.WON, Player.X, ((0, 1, 2),)),
        ("XOXOXOX..", Status.WON, Player.X, ((2, 4, 6),)),
        ("XXOOOXXOX", Status.DRAWN, None, ()),
        ("XXXOXOXOO", Status.WON, Player.X, ((0, 1, 2), (2, 4, 6))),
        ("OOO/XX./X..", Status.WON, Player.O, ((0, 1, 2),)),
        ("XXXOO.O..", Status.WON, Player.X, ((0, 1, 2),)),  # with player O: O started
    ],
)
def test_status(
    text: str, status: Status, winner: Player | None, lines: tuple[tuple[int, ...], ...]
) -> None:
    board = Board.parse(text, player="O" if text == "XXXOO.O.." else None)
    assert (board.status, board.winner, board.winning_lines) == (status, winner, lines)


def test_a_last_move_may_complete_two_lines() -> None:
    # X's last mark at 2 completed the top row and the anti-diagonal at once.
    assert Board.parse("XXXOXOXOO").winning_lines == ((0, 1, 2), (2, 4, 6))
    # A run longer than k counts every k-cell window in it.
    assert Board.parse("XXXX./OO.O./...../...../.....", k=3).winning_lines == (
        (0, 1, 2),
        (1, 2, 3),
    )


def test_play_and_illegal_moves() -> None:
    board = Board.parse(".........").play(4)
    assert board.format() == "....X...." and board.side_to_move is Player.O
    with pytest.raises(IllegalMoveError, match="already taken"):
        board.play(4)
    with pytest.raises(IllegalMoveError, match="off the board"):
        board.play(9)
    with pytest.raises(IllegalMoveError, match="game is over"):
        Board.parse("XXXOO....").play(8)
    with pytest.raises(GameOverError) as caught:
        Board.parse("XXXOO....").check_in_progress()
    assert caught.value.winner == "X" and caught.value.lines == ((0, 1, 2),)


def _first_player(board: Board) -> Player:
    """Who started the game that reached ``board``."""
    x_count, o_count = board.x.bit_count(), board.o.bit_count()
    if x_count == o_count:
        return board.side_to_move
    return Player.X if x_count > o_count else Player.O


@pytest.mark.parametrize("first", [Player.X, Player.O])
def test_accepted_boards_are_exactly_the_reachable_ones_on_3x3(first: Player) -> None:
    """Every one of the 3^9 texts, with every stated side: the parser accepts
    exactly the positions that legal play reaches."""
    accepted = set()
    for cells in itertools.product(".XO", repeat=9):
        for player in (None, "X", "O"):
            try:
                board = Board.parse("".join(cells), player=player)
            except IllegalPositionError:
                continue
            if _first_player(board) is first:
                accepted.add(board)
    assert accepted == reachable(first)


def test_a_shape_built_again_equals_the_shared_one() -> None:
    """geometry()'s cache is bounded (the book alone names more shapes than it
    holds): a shape built again after an eviction is still the same shape, and
    boards of it compare and hash alike."""
    again = Geometry(3, 3, 3)
    assert again is not geometry(3, 3, 3)
    assert again == geometry(3, 3, 3) and hash(again) == hash(geometry(3, 3, 3))
    assert Board(again, 1, 2, Player.X) == Board.parse("XO.......")
    assert hash(Board(again, 1, 2, Player.X)) == hash(Board.parse("XO......."))
    assert again != Geometry(3, 3, 3, Rule.EXACT) and again != Geometry(4, 3, 3)
    assert again != (3, 3, 3)

"""The board: an immutable, validated position of an m,n,k-game, and its rules.

This module owns parsing and formatting of board text, replaying a list of
moves, the side to move, the game's status (in progress, won, drawn) and the
reachability rules. It knows nothing about search or about HTTP.

Board text lists the cells row by row: ``X``/``x`` and ``O``/``o`` for marks,
``.``, ``-``, ``_`` or a space for an empty cell, and optionally ``/`` between
rows. :meth:`Board.parse` reads it and :meth:`Board.format` writes it back in
one canonical form.

>>> board = Board.parse("x.o/.X-/__O")
>>> board
Board.parse('X.O.X...O')
>>> board.side_to_move, board.status.value
(<Player.X: 'X'>, 'in_progress')
>>> Board.parse("XXXOO....").winning_lines
((0, 1, 2),)

A game may also be given as its moves in play order, by cell index or in
gomoku notation (see ``geometry.py``):

>>> Board.from_moves(["h8", "h9", 113], rows=15, cols=15).mark_count
3
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

from service.engine.errors import (
    BoardCharacterError,
    BoardSizeError,
    CoordinateError,
    DoubleWinError,
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    IllegalPositionError,
    MarkCountError,
    RuleError,
    SideToMoveError,
    UnreachableWinError,
)
from service.engine.geometry import (
    MAX_SIDE,
    Geometry,
    Rule,
    cells_of,
    check_rule,
    check_shape,
    default_k,
    geometry,
)
from service.engine.renju import first_forbidden, forbidden_cells

EMPTY_CHARACTERS = frozenset(".-_ ")
ROW_SEPARATOR = "/"
# The longest text any board can have: 20x20 cells and 19 separators. Longer
# input is refused before it is scanned.
MAX_TEXT_LENGTH = MAX_SIDE * MAX_SIDE + MAX_SIDE - 1
# A move list names at most every cell of the largest board.
MAX_MOVES = MAX_SIDE * MAX_SIDE
# The board a move list is played on when neither side is given: gomoku's.
DEFAULT_MOVES_SIDE = 15
Move = int | str


class Player(StrEnum):
    """A side: X or O."""

    X = "X"
    O = "O"  # noqa: E741

    @property
    def other(self) -> Player:
        return Player.O if self is Player.X else Player.X


class Status(Enum):
    IN_PROGRESS = "in_progress"
    WON = "won"
    DRAWN = "drawn"


@dataclass(frozen=True, slots=True)
class Board:
    """A legal position: marks as bitboards, the shape, and whose turn it is.

    Construct boards with :meth:`parse` or :meth:`empty`; the constructor does
    not validate. Equal boards are equal values and hash alike.
    """

    shape: Geometry
    x: int
    o: int
    side_to_move: Player

    # -- construction -------------------------------------------------------

    @classmethod
    def empty(
        cls,
        rows: int = 3,
        cols: int = 3,
        k: int | None = None,
        first: Player = Player.X,
        rule: Rule | str = Rule.FREESTYLE,
    ) -> Board:
        shape = geometry(rows, cols, k, _parse_rule(rule))
        _check_first(shape, first)
        return cls(shape, 0, 0, first)

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        rows: int | None = None,
        cols: int | None = None,
        k: int | None = None,
        player: Player | str | None = None,
        rule: Rule | str = Rule.FREESTYLE,
    ) -> Board:
        """Read board text, check it is a reachable position, and return it.

        ``rows``/``cols`` are needed only for non-square boards written without
        ``/``; ``k`` defaults to ``min(rows, cols, 5)``; ``player`` (the side to
        move) matters only when the counts are equal, where ``"O"`` says that O
        started; ``rule`` is ``freestyle`` (k or more in a row win), ``exact`` or
        ``renju`` (see ``geometry.py``).
        Raises a :class:`~service.engine.errors.BoardError`.
        """
        if len(text) > MAX_TEXT_LENGTH:
            raise BoardSizeError(
                f"board text has {len(text)} characters; the largest board ({MAX_SIDE}x"
                f"{MAX_SIDE} with '/' between rows) has {MAX_TEXT_LENGTH}"
            )
        side = _parse_player(player)
        game_rule = _parse_rule(rule)
        found_rows, found_cols, cells = _read_cells(text, rows, cols)
        shape_k = default_k(found_rows, found_cols) if k is None else k
        sides_given = rows is not None or cols is not None
        check_shape(found_rows, found_cols, shape_k, sides_given=sides_given)
        check_rule(found_rows, found_cols, shape_k, game_rule, sides_given=sides_given)
        shape = geometry(found_rows, found_cols, shape_k, game_rule)
        x = o = 0
        for index, mark in enumerate(cells):
            if mark == "X":
                x |= 1 << index
            elif mark == "O":
                o |= 1 << index
        board = cls(shape, x, o, _side_to_move(x.bit_count(), o.bit_count(), side))
        x_started = x.bit_count() - o.bit_count() == (board.side_to_move is Player.O)
        _check_first(shape, Player.X if x_started else Player.O)
        board._check_reachable()
        return board

    @classmethod
    def from_moves(
        cls,
        moves: Sequence[Move],
        *,
        rows: int | None = None,
        cols: int | None = None,
        k: int | None = None,
        player: Player | str | None = None,
        rule: Rule | str = Rule.FREESTYLE,
    ) -> Board:
        """Replay a game given as its moves in play order, and return the position.

        Each move is a cell index or a gomoku coordinate (``"h8"``). The board is
        ``rows`` x ``cols``, 15x15 when neither is given and square when one is.
        The sides alternate from the first move, which is X's unless ``player``
        (the side to move after the list) says that O started. Raises a
        :class:`~service.engine.errors.BoardError` naming the first move at
        fault (``field`` is ``moves/<index>``): one that names no cell, takes an
        occupied cell, comes after the game ended, or under renju is forbidden.
        """
        side = _parse_player(player)
        game_rule = _parse_rule(rule)
        if len(moves) > MAX_MOVES:
            raise BoardSizeError(
                f"{len(moves)} moves: no board has more than {MAX_MOVES} cells",
                field="moves",
            )
        shape_rows = rows if rows is not None else cols if cols is not None else DEFAULT_MOVES_SIDE
        shape_cols = cols if cols is not None else shape_rows
        shape_k = default_k(shape_rows, shape_cols) if k is None else k
        check_shape(shape_rows, shape_cols, shape_k)
        shape = geometry(shape_rows, shape_cols, shape_k, game_rule)
        # The side that made the first move: X, unless the side to move says otherwise.
        first = Player.X
        if side is not None:
            first = side if len(moves) % 2 == 0 else side.other
        _check_first(shape, first)
        cells: list[int] = []
        marks = {Player.X: 0, Player.O: 0}
        mover = first
        over = ""
        for index, move in enumerate(moves):
            field = f"moves/{index}"
            cell = _move_cell(shape, move, field)
            bit = 1 << cell
            if over:
                raise IllegalMoveError(
                    f"move {index + 1} ({_move_name(shape, move)}) comes after the game ended: "
                    f"{over}",
                    cell=cell,
                    field=field,
                )
            if (marks[Player.X] | marks[Player.O]) & bit:
                raise IllegalMoveError(
                    f"move {index + 1} ({_move_name(shape, move)}) takes {shape.coordinate(cell)}"
                    f" (cell {cell}), which an earlier move already took",
                    cell=cell,
                    field=field,
                )
            marks[mover] |= bit
            cells.append(cell)
            if shape.has_line_through(marks[mover], cell, x=mover is Player.X):
                over = f"{mover.value} won with move {index + 1}"
            elif (marks[Player.X] | marks[Player.O]) == shape.full:
                over = f"move {index + 1} filled the board"
            mover = mover.other
        found = first_forbidden(shape, cells)
        if found is not None:
            index, kind = found
            cell = cells[index]
            raise ForbiddenMoveError(
                f"move {index + 1} ({shape.coordinate(cell)}, cell {cell}) is forbidden to X "
                f"(Black) under renju: {kind.value.replace('-', ' ')}",
                cell=cell,
                kind=kind.value,
                field=f"moves/{index}",
            )
        return cls(shape, marks[Player.X], marks[Player.O], mover)

    # -- text ---------------------------------------------------------------

    def format(self, separators: bool | None = None) -> str:
        """Canonical text: ``.`` for empty, upper-case marks, ``/`` between rows
        (by default only for boards other than 3x3).

        >>> Board.parse("x.o/.x./..o").format(), Board.parse("XO.......").format(True)
        ('X.O.X...O', 'XO./.../...')
        """
        marks = [self.mark(cell) for cell in range(self.shape.cells)]
        chars = ["." if m is None else m.value for m in marks]
        if separators is None:
            separators = (self.shape.rows, self.shape.cols) != (3, 3)
        if not separators:
            return "".join(chars)
        cols = self.shape.cols
        return ROW_SEPARATOR.join(
            "".join(chars[r * cols : (r + 1) * cols]) for r in range(self.shape.rows)
        )

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        args = [repr(self.format())]
        if self.shape.k != default_k(self.shape.rows, self.shape.cols):
            args.append(f"k={self.shape.k}")
        if self.shape.rule is not Rule.FREESTYLE:
            args.append(f"rule={self.shape.rule.value!r}")
        if self.side_to_move != _side_to_move(self.x.bit_count(), self.o.bit_count(), None):
            args.append(f"player={self.side_to_move.value!r}")
        return f"Board.parse({', '.join(args)})"

    # -- cells --------------------------------------------------------------

    @property
    def rows(self) -> int:
        return self.shape.rows

    @property
    def cols(self) -> int:
        return self.shape.cols

    @property
    def k(self) -> int:
        return self.shape.k

    @property
    def rule(self) -> Rule:
        return self.shape.rule

    def mark(self, cell: int) -> Player | None:
        bit = 1 << cell
        if self.x & bit:
            return Player.X
        if self.o & bit:
            return Player.O
        return None

    def marks_of(self, player: Player) -> int:
        """The bitboard of one side's marks."""
        return self.x if player is Player.X else self.o

    @property
    def mark_count(self) -> int:
        return (self.x | self.o).bit_count()

    def empty_cells(self) -> list[int]:
        return cells_of(self.shape.full & ~(self.x | self.o))

    def is_full(self) -> bool:
        return (self.x | self.o) == self.shape.full

    # -- rules --------------------------------------------------------------

    def lines_of(self, player: Player) -> tuple[tuple[int, ...], ...]:
        """Every k-cell window that ``player`` has won on under the rule, as cell indices."""
        return self.shape.winning_lines(self.marks_of(player), x=player is Player.X)

    @property
    def winner(self) -> Player | None:
        if self.shape.has_line(self.x, x=True):
            return Player.X
        if self.shape.has_line(self.o, x=False):
            return Player.O
        return None

    def forbidden(self) -> dict[int, str]:
        """Under renju with X to move, X's forbidden empty cells and why
        (``overline``, ``double-four``, ``double-three``); else empty."""
        if self.side_to_move is not Player.X:
            return {}
        return {cell: kind.value for cell, kind in forbidden_cells(self)}

    @property
    def winning_lines(self) -> tuple[tuple[int, ...], ...]:
        """The winner's lines (empty while nobody has won)."""
        winner = self.winner
        return () if winner is None else self.lines_of(winner)

    @property
    def status(self) -> Status:
        if self.winner is not None:
            return Status.WON
        if self.is_full():
            return Status.DRAWN
        return Status.IN_PROGRESS

    def is_game_over(self) -> bool:
        return self.status is not Status.IN_PROGRESS

    def check_in_progress(self) -> None:
        """Raise :class:`GameOverError` if the game has ended."""
        status = self.status
        if status is Status.WON:
            winner = self.winner
            assert winner is not None
            raise GameOverError(
                f"{winner.value} has won on {_describe_lines(self.lines_of(winner))}; "
                "there is no move to suggest",
                winner=winner.value,
                lines=self.lines_of(winner),
            )
        if status is Status.DRAWN:
            raise GameOverError(
                "the board is full and the game is drawn; there is no move to suggest",
                winner=None,
                lines=(),
            )

    def play(self, cell: int) -> Board:
        """The board after the side to move marks ``cell``."""
        if not 0 <= cell < self.shape.cells:
            raise IllegalMoveError(
                f"cell {cell} is off the board: cells are 0 to {self.shape.cells - 1}", cell=cell
            )
        if (self.x | self.o) >> cell & 1:
            raise IllegalMoveError(f"cell {cell} is already taken", cell=cell)
        if self.is_game_over():
            raise IllegalMoveError(f"cell {cell} cannot be played: the game is over", cell=cell)
        kind = self.forbidden().get(cell) if self.shape.rule is Rule.RENJU else None
        if kind is not None:
            raise ForbiddenMoveError(
                f"{self.shape.coordinate(cell)} (cell {cell}) is forbidden to X (Black) under "
                f"renju: {kind.replace('-', ' ')}",
                cell=cell,
                kind=kind,
            )
        bit = 1 << cell
        if self.side_to_move is Player.X:
            return Board(self.shape, self.x | bit, self.o, Player.O)
        return Board(self.shape, self.x, self.o | bit, Player.X)

    def _check_reachable(self) -> None:
        """Refuse won positions that no legal game reaches (counts were checked at parse)."""
        x_lines, o_lines = self.lines_of(Player.X), self.lines_of(Player.O)
        if self.shape.rule is Rule.RENJU and not x_lines:
            overlines = self.shape.overlines(self.x)
            if overlines:
                raise IllegalPositionError(
                    f"X has six or more in a row on {_describe_lines(overlines)}: renju forbids "
                    "X (Black) an overline, so no game reaches this position"
                )
        if x_lines and o_lines:
            raise DoubleWinError(
                f"both players have a line (X on {_describe_lines(x_lines)}, O on "
                f"{_describe_lines(o_lines)}); the game stops at the first line"
            )
        winner = Player.X if x_lines else Player.O if o_lines else None
        if winner is None:
            return
        lines = x_lines or o_lines
        if self.side_to_move is winner:
            raise UnreachableWinError(
                f"{winner.value} has a line on {_describe_lines(lines)} but it is "
                f"{winner.value}'s turn by the mark counts: the winner must have moved last"
            )
        common = self.shape.full
        for cells in lines:
            common &= sum(1 << c for c in cells)
        if not common:
            raise UnreachableWinError(
                f"{winner.value} has lines {_describe_lines(lines)} that share no cell; "
                "one last move must complete every line, since the game stops at the first"
            )


def _parse_rule(rule: Rule | str) -> Rule:
    if isinstance(rule, Rule):
        return rule
    try:
        return Rule(rule)
    except ValueError:
        names = " or ".join(repr(r.value) for r in Rule)
        raise RuleError(f"rule must be {names}, got {rule!r}") from None


def _move_cell(shape: Geometry, move: Move, field: str) -> int:
    """The cell a move of a list names: a cell index or a gomoku coordinate."""
    if isinstance(move, bool) or not isinstance(move, int | str):
        raise CoordinateError(
            f"a move is a cell index or a coordinate such as 'h8', got {move!r}", field=field
        )
    if isinstance(move, str):
        try:
            return shape.parse_coordinate(move)
        except CoordinateError as error:
            raise CoordinateError(str(error), field=field) from None
    if not 0 <= move < shape.cells:
        raise CoordinateError(
            f"cell {move} is off the {shape.rows}x{shape.cols} board: cells are 0 to "
            f"{shape.cells - 1}",
            field=field,
        )
    return move


def _move_name(shape: Geometry, move: Move) -> str:
    return repr(move) if isinstance(move, str) else f"cell {move}"


def _parse_player(player: Player | str | None) -> Player | None:
    if player is None or isinstance(player, Player):
        return player
    if isinstance(player, str) and player.upper() in ("X", "O"):
        return Player(player.upper())
    raise SideToMoveError(f"player must be 'X' or 'O', got {player!r}")


def _read_cells(text: str, rows: int | None, cols: int | None) -> tuple[int, int, list[str | None]]:
    """Split text into cells and work out the dimensions it implies."""
    segments = text.split(ROW_SEPARATOR)
    cells: list[str | None] = []
    for segment in segments:
        for char in segment:
            upper = char.upper()
            if upper in ("X", "O"):
                cells.append(upper)
            elif char in EMPTY_CHARACTERS:
                cells.append(None)
            else:
                raise BoardCharacterError(
                    f"unknown character {char!r} at cell {len(cells)}: use X or O for marks, "
                    "'.', '-', '_' or a space for empty cells, and '/' between rows",
                    cell=len(cells),
                    character=char,
                )
    count = len(cells)
    if len(segments) > 1:
        widths = [len(s) for s in segments]
        if len(set(widths)) != 1:
            raise BoardSizeError(
                f"rows must all have the same length, got lengths {widths} "
                f"in {len(segments)} rows separated by '/'"
            )
        found_rows, found_cols = len(segments), widths[0]
        if (rows is not None and rows != found_rows) or (cols is not None and cols != found_cols):
            raise BoardSizeError(
                f"the text has {found_rows} rows of {found_cols} cells but rows={rows} and "
                f"cols={cols} were given"
            )
        return found_rows, found_cols, cells
    if rows is not None and cols is not None:
        if rows * cols != count:
            raise BoardSizeError(
                f"a {rows}x{cols} board has {rows * cols} cells, the text has {count}"
            )
        return rows, cols, cells
    given = rows if rows is not None else cols
    if given is not None:
        if given <= 0 or count % given:
            raise BoardSizeError(
                f"{count} cells cannot be split into {'rows' if rows is not None else 'columns'}"
                f" of {given}"
            )
        other = count // given
        return (given, other, cells) if rows is not None else (other, given, cells)
    side = math.isqrt(count)
    if side * side != count or not 3 <= side <= MAX_SIDE:
        raise BoardSizeError(
            f"a board without '/' between rows must be square (9, 16, 25, ... or "
            f"{MAX_SIDE * MAX_SIDE} cells: 3x3 to {MAX_SIDE}x{MAX_SIDE}) unless rows and cols "
            f"are given; got {count} cells"
        )
    return side, side, cells


def _check_first(shape: Geometry, first: Player) -> None:
    """Under renju X is Black and moves first: refuse a game that O started."""
    if shape.rule is Rule.RENJU and first is not Player.X:
        raise SideToMoveError(
            "under renju X (Black) moves first: a game O started is not renju "
            "(with equal counts it is X's turn)"
        )


def _side_to_move(x_count: int, o_count: int, stated: Player | None) -> Player:
    """Whose turn it is, from the counts and the caller's word when they are equal."""
    if x_count == o_count:
        return stated or Player.X
    if x_count == o_count + 1:
        expected = Player.O
    elif o_count == x_count + 1:
        expected = Player.X
    else:
        raise MarkCountError(
            f"X has {_marks(x_count)} and O has {_marks(o_count)}: with alternating moves the "
            "counts are equal or differ by one",
            x_count=x_count,
            o_count=o_count,
        )
    if stated is not None and stated is not expected:
        raise SideToMoveError(
            f"player {stated.value} cannot be to move: X has {_marks(x_count)} and O has "
            f"{_marks(o_count)}, so it is {expected.value}'s turn"
        )
    return expected


def _marks(count: int) -> str:
    return f"{count} mark" if count == 1 else f"{count} marks"


def _describe_lines(lines: tuple[tuple[int, ...], ...]) -> str:
    return " and ".join("cells " + ",".join(map(str, cells)) for cells in lines)

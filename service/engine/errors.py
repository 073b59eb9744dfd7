"""The engine's error family: every way a board or a request for a move can be refused.

Errors split by cause, as python-chess splits ``InvalidMoveError`` from
``IllegalMoveError``: :class:`InvalidBoardError` says the text is not a board
(syntax, size, characters); :class:`IllegalPositionError` says it is a board
that no legal game reaches (a rule is broken); :class:`GameOverError` says the
position is fine but has no move to suggest. All are :class:`BoardError`, and so
``ValueError``. Messages quote the offending input and say how to fix it.

This module owns the family and nothing else: the HTTP layer maps it to
problem responses in one place.
"""

from __future__ import annotations


class BoardError(ValueError):
    """Base class of every error the engine raises for a client's input.

    ``field`` names the input at fault: ``board`` unless it is ``k``, ``rows``,
    ``cols``, ``player``, ``rule`` or one move of a move list (``moves/3``, the
    fourth), so that callers can point at it.
    """

    field = "board"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field


class InvalidBoardError(BoardError):
    """The text cannot be read as a board."""


class BoardSizeError(InvalidBoardError):
    """Wrong number of cells or rows, or dimensions outside 3x3..20x20, or a bad k."""


class RuleError(InvalidBoardError):
    """A rule the engine does not play."""

    field = "rule"


class CoordinateError(InvalidBoardError):
    """A move that names no cell of the board: a malformed coordinate, or a cell
    index or coordinate off the board."""


class BoardCharacterError(InvalidBoardError):
    """A character that is neither a mark, an empty cell nor a row separator."""

    def __init__(self, message: str, *, cell: int, character: str) -> None:
        super().__init__(message)
        self.cell = cell
        self.character = character


class IllegalPositionError(BoardError):
    """The board is well formed, but no legal game reaches it."""


class MarkCountError(IllegalPositionError):
    """The numbers of X and O marks cannot arise from alternating moves."""

    def __init__(self, message: str, *, x_count: int, o_count: int) -> None:
        super().__init__(message)
        self.x_count = x_count
        self.o_count = o_count


class SideToMoveError(IllegalPositionError):
    """The stated side to move contradicts the mark counts."""

    field = "player"


class DoubleWinError(IllegalPositionError):
    """Both players have a line: the game would have stopped at the first."""


class UnreachableWinError(IllegalPositionError):
    """A won position no legal game reaches: the winner did not move last, or the
    winning lines share none of the winner's marks."""


class GameOverError(BoardError):
    """A move was asked for in a finished game."""

    def __init__(self, message: str, *, winner: str | None, lines: tuple[tuple[int, ...], ...]):
        super().__init__(message)
        self.winner = winner
        self.lines = lines


class IllegalMoveError(IllegalPositionError):
    """A move onto an occupied cell, off the board, or after the game ended: no
    legal game plays it."""

    def __init__(self, message: str, *, cell: int, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.cell = cell


class ForbiddenMoveError(IllegalMoveError):
    """A move of X that renju forbids (``kind``: overline, double-four or
    double-three)."""

    def __init__(self, message: str, *, cell: int, kind: str, field: str | None = None) -> None:
        super().__init__(message, cell=cell, field=field)
        self.kind = kind

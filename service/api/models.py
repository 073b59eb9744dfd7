"""Request and response models of API v1, named by role.

These define the public contract and its OpenAPI schema. Field names are fixed
by the API issue; add fields, never rename them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from service.engine import Difficulty
from service.engine.board import MAX_MOVES, MAX_TEXT_LENGTH
from service.engine.geometry import MAX_SIDE, MIN_K, MIN_SIDE

# The largest integer JavaScript clients can send exactly (Number.MAX_SAFE_INTEGER).
MAX_SEED = 2**53 - 1
Mark = Literal["X", "O"]
OutcomeName = Literal["win", "draw", "loss"]
RuleName = Literal["freestyle", "exact", "renju"]
ForbiddenName = Literal["overline", "double-four", "double-three"]
# A move of a move list: a cell index, or a gomoku coordinate (at most "t20").
MoveName = int | str
MAX_COORDINATE_LENGTH = 8
StatusName = Literal["in_progress", "won", "drawn"]
StopName = Literal["budget", "deadline", "decided"]
# The longest time limit a request may name; the server's own deadline
# (TTT_SEARCH_DEADLINE_MS) caps it further.
MAX_TIME_LIMIT_MS = 600_000
STOPPED_BY_DESCRIPTION = (
    "Why the search answered with estimates: 'budget' (the node budget ran out: independent "
    "of the machine's load, though a repeated question may get a deeper answer from what "
    "earlier searches left in the shared table) or 'deadline' (the time limit ran out: depends "
    "on the server's load) or 'decided' (big boards: a win was proven, or every move but one "
    "was proven to lose, so the other moves got a depth-1 estimate and no more search). "
    "Never cached. Null when exact."
)

BOARD_DESCRIPTION = (
    "Cells row by row: X and O (either case) for marks; '.', '-', '_' or a space for "
    "empty; optionally '/' between rows. Without '/', the board must be square unless "
    "rows and cols are given. Give exactly one of board and moves."
)
MOVES_DESCRIPTION = (
    "The game so far as its moves in play order, each a cell index (0-based, row by row "
    "from the top) or a gomoku coordinate: a column letter from 'a' on the left and a row "
    "number from 1 at the bottom ('h8' is the centre of 15x15). The first move is X's, "
    "unless player (the side to move after the list) says O started. The board is rows x "
    "cols, 15x15 when neither is given. Give exactly one of board and moves."
)
RULE_DESCRIPTION = (
    "What wins: 'freestyle', k or more in a row; 'exact', exactly k (a row of k + 1 or more "
    "wins for neither side: Gomocup's 'standard' gomoku); 'renju' (k = 5, boards 9x9 to "
    "20x20, X is Black and moves first): X wins with exactly five and may not make an "
    "overline, a double four or a double three; O wins with five or more. A forbidden move "
    "of X in a move list is refused with 422."
)


SCORE_DESCRIPTION = (
    "The move's score for the player making it: a win whose final move is n plies away "
    "(this move is ply 1) scores cells + 1 - n, a loss the negative, a draw 0; estimates lie "
    "strictly between -1 and 1. A win proven without its distance scores the least its proof "
    "guarantees (at least 1: above every draw and estimate); such a loss, the most (at most -1)."
)
MOVE_OUTCOME_DESCRIPTION = (
    "Proven result of the move for its player, distance known or not; null if estimated."
)
PLIES_DESCRIPTION = (
    "Plies to the end of the game, this move included, when the distance is proven; null when "
    "estimated or when only the outcome is proven."
)
LINE_DESCRIPTION = (
    "The move and the expected continuation. For a proven win or loss whose distance is "
    "proven, it reaches the winning move in exactly 'plies' moves; otherwise it is the "
    "principal variation as far as it is known."
)


class PositionFields(BaseModel):
    """The fields besides the board or the moves that name a position and the game."""

    model_config = ConfigDict(extra="forbid", strict=True)

    k: int | None = Field(
        default=None,
        ge=MIN_K,
        le=MAX_SIDE,
        description="Marks in a row that win, up to the longer side; default min(rows, cols, 5).",
    )
    rows: int | None = Field(
        default=None, ge=MIN_SIDE, le=MAX_SIDE, description="Rows, for unsquare boards."
    )
    cols: int | None = Field(
        default=None, ge=MIN_SIDE, le=MAX_SIDE, description="Columns, for unsquare boards."
    )
    rule: RuleName = Field(default="freestyle", description=RULE_DESCRIPTION)
    player: Mark | None = Field(
        default=None,
        description="The side to move. Needed only when the counts are equal and O started.",
    )
    time_limit_ms: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TIME_LIMIT_MS,
        description="The longest the search may take, in milliseconds; the server's own "
        "deadline (800 ms by default) caps it. In a batch it caps the item's search, inside "
        "the batch's one deadline.",
    )


def _not_both(moves: object, info: ValidationInfo) -> object:
    """Refuse moves beside a board, at the moves' own pointer."""
    if moves is not None and info.data.get("board") is not None:
        raise ValueError("give either board or moves, not both")
    return moves


def _one_of_board_and_moves(board: object, moves: object) -> None:
    if board is None and moves is None:
        raise ValueError("give the position as board (its cells) or moves (the game so far)")


class BoardQuestion(PositionFields):
    """The fields every request uses to name a position.

    JSON bodies are validated strictly (``false`` is not a seed, ``"3"`` is not a
    k); query strings, where every value is text, use the ``*Query`` models.
    """

    board: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TEXT_LENGTH * 2,
        description=BOARD_DESCRIPTION,
        examples=["X.O.X...."],
    )
    moves: list[MoveName] | None = Field(
        default=None,
        max_length=MAX_MOVES,
        description=MOVES_DESCRIPTION,
        examples=[["h8", "h9", "i9"]],
    )

    @field_validator("moves")
    @classmethod
    def _moves(cls, moves: list[MoveName] | None, info: ValidationInfo) -> list[MoveName] | None:
        _not_both(moves, info)
        for move in moves or ():
            if isinstance(move, str) and len(move) > MAX_COORDINATE_LENGTH:
                raise ValueError(
                    f"a move is a cell index or a coordinate such as 'h8', got {move[:20]!r}"
                )
        return moves

    @model_validator(mode="after")
    def _one_position(self) -> BoardQuestion:
        _one_of_board_and_moves(self.board, self.moves)
        return self


class MoveFields(BaseModel):
    """What a move request adds: how strong the move should be."""

    model_config = ConfigDict(extra="forbid", strict=True)

    difficulty: Difficulty = Field(
        default=Difficulty.PERFECT,
        strict=False,  # FastAPI validates parsed JSON as Python: the name, not the enum
        description="How often a random legal move replaces a best one: "
        + ", ".join(f"{level.value} {level.blunder_rate:.0%}" for level in Difficulty)
        + ". On boards of 8x8 and more the random move is one of the analysed candidates.",
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Makes every random choice reproducible. Without it, perfect play returns "
        "the first best move in cell order and lower levels use fresh randomness.",
    )


class MoveRequest(BoardQuestion, MoveFields):
    """Ask for the move to play."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"board": "X...O....", "difficulty": "perfect"}]},
    )


class AnalysisRequest(BoardQuestion):
    """Ask for the value of every legal move."""

    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra={"examples": [{"board": "X.O/.X./..O"}]}
    )


class BoardQuery(PositionFields):
    """``BoardQuestion`` read from a query string: numbers arrive as text, and the
    moves as one comma-separated list."""

    model_config = ConfigDict(extra="forbid", strict=False)

    board: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_TEXT_LENGTH * 2,
        description=BOARD_DESCRIPTION,
        examples=["X.O.X...."],
    )
    moves: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_MOVES * (MAX_COORDINATE_LENGTH + 1),
        description=MOVES_DESCRIPTION + " In a query string: one comma-separated list.",
        examples=["h8,h9,i9"],
    )

    @field_validator("moves")
    @classmethod
    def _moves(cls, moves: str | None, info: ValidationInfo) -> str | None:
        _not_both(moves, info)
        return moves

    @model_validator(mode="after")
    def _one_position(self) -> BoardQuery:
        _one_of_board_and_moves(self.board, self.moves)
        return self

    def move_list(self) -> list[MoveName] | None:
        """The moves, each a cell index or a coordinate."""
        if self.moves is None:
            return None
        return [int(m) if m.strip().isdecimal() else m.strip() for m in self.moves.split(",")]


class MoveQuery(BoardQuery, MoveFields):
    """``MoveRequest`` read from a query string."""

    model_config = ConfigDict(extra="forbid", strict=False)


class AnalysisQuery(BoardQuery):
    """``AnalysisRequest`` read from a query string."""

    model_config = ConfigDict(extra="forbid", strict=False)


class BatchRequest(BaseModel):
    """Many move requests at once; results come back in the same order."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "examples": [{"requests": [{"board": "........."}, {"board": "X...O...."}]}]
        },
    )

    requests: list[MoveRequest] = Field(
        min_length=1,
        description="Up to the configured batch limit (100 by default) move requests.",
    )


NAME_DESCRIPTION = (
    "The cell in gomoku notation: its column's letter from 'a' on the left, its row's number "
    "from 1 at the bottom."
)


class Cell(BaseModel):
    index: int = Field(description="0-based cell index, row by row.")
    row: int = Field(description="0-based row, from the top.")
    col: int = Field(description="0-based column.")
    name: str = Field(description=NAME_DESCRIPTION, examples=["h8"])


class ForbiddenCell(Cell):
    kind: ForbiddenName = Field(
        description="Why renju forbids X the cell: 'overline' (six or more in a row), "
        "'double-four' (two fours at once) or 'double-three' (two real threes at once)."
    )


class MoveAnswer(BaseModel):
    """The move to play and what the engine knows about it."""

    move: Cell
    player: Mark = Field(description="The side that plays the move.")
    score: float = Field(description=SCORE_DESCRIPTION)
    outcome: OutcomeName | None = Field(description=MOVE_OUTCOME_DESCRIPTION)
    plies: int | None = Field(description=PLIES_DESCRIPTION)
    line: list[Cell] = Field(description=LINE_DESCRIPTION)
    best_moves: list[Cell] = Field(description="Every move of the best score, in cell order.")
    best_score: float
    is_best: bool = Field(description="False when a lower difficulty chose a weaker move.")
    exact: bool = Field(description="True when the scores are proven, not estimated.")
    depth: int = Field(description="Search depth in plies behind the scores.")
    stopped_by: StopName | None = Field(description=STOPPED_BY_DESCRIPTION)
    board: str = Field(description="The position asked about, in canonical form.")
    board_after: str = Field(description="The position after the move, in canonical form.")
    status_after: StatusName
    winner_after: Mark | None
    winning_lines_after: list[list[int]]
    rows: int
    cols: int
    k: int
    rule: RuleName
    difficulty: Difficulty
    seed: int | None


class MoveValue(BaseModel):
    index: int
    row: int
    col: int
    name: str = Field(description=NAME_DESCRIPTION)
    score: float = Field(description=SCORE_DESCRIPTION)
    outcome: OutcomeName | None = Field(description=MOVE_OUTCOME_DESCRIPTION)
    plies: int | None = Field(description=PLIES_DESCRIPTION)
    line: list[Cell] = Field(description=LINE_DESCRIPTION)
    exact: bool


class OmittedMoves(BaseModel):
    """The legal moves an analysis does not list."""

    count: int = Field(
        description="Legal moves not listed: 0 where the exact core answers (up to 7x7, and "
        "on boards with a side of 8 where it settles the outcome), which lists every move. "
        "Where the big-board search answers, the list holds its candidates (cells within two of "
        "a stone, and every cell that makes a four or a three), and the other cells are left out."
    )
    score: float | None = Field(
        description="Their common proven score when a tactic proves it (facing a four, each "
        "loses in 2; facing an open three, in 4); null when nothing is claimed about them."
    )
    outcome: OutcomeName | None = Field(description="Their proven result, or null.")
    plies: int | None = Field(description="Their proven distance to the end, or null.")


class AnalysisAnswer(BaseModel):
    """The position's status and every legal move's value, best first."""

    board: str
    rows: int
    cols: int
    k: int
    rule: RuleName
    status: StatusName
    winner: Mark | None
    winning_lines: list[list[int]]
    player: Mark = Field(description="The side to move.")
    score: float = Field(description="The best move's score for the side to move.")
    outcome: OutcomeName | None = Field(
        description="The position's proven result for the side to move, distance known or not: "
        "'win' when any move is a proven win; 'draw' when a move is a proven draw and the side "
        "to move is proven unable to win with any other (their values may still be estimates, "
        "below 0); 'loss' when every move is a proven loss; otherwise null."
    )
    plies: int | None = Field(
        description="Plies to the end under best play, when that distance is proven; null "
        "otherwise."
    )
    exact: bool
    depth: int
    stopped_by: StopName | None = Field(description=STOPPED_BY_DESCRIPTION)
    moves: list[MoveValue] = Field(
        description="The legal moves, best first: every one where the exact core answers, the "
        "big-board search's candidates where it does (see omitted)."
    )
    omitted: OmittedMoves
    forbidden: list[ForbiddenCell] = Field(
        description="Under renju with X to move, the empty cells X may not play, lowest index "
        "first, each with why; they are neither listed in moves nor counted as omitted. Empty "
        "under the other rules, with O to move, and once the game is over."
    )


class ProblemDetail(BaseModel):
    """An RFC 9457 problem; extensions (errors, winner, ...) vary by type."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="A stable URI reference per kind of problem.")
    title: str
    status: int
    detail: str = Field(description="What went wrong and how to fix the request.")
    instance: str | None = None


class BatchAnswer(BaseModel):
    results: list[MoveAnswer | ProblemDetail] = Field(
        description="One per request, in order: a move answer or a problem."
    )


class Health(BaseModel):
    status: Literal["ok", "starting", "stopping"]

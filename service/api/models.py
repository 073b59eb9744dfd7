"""Request and response models of API v1, named by role.

These define the public contract and its OpenAPI schema. Field names are fixed
by the API issue; add fields, never rename them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from service.engine import Difficulty
from service.engine.board import MAX_TEXT_LENGTH

# The largest integer JavaScript clients can send exactly (Number.MAX_SAFE_INTEGER).
MAX_SEED = 2**53 - 1
Mark = Literal["X", "O"]
OutcomeName = Literal["win", "draw", "loss"]
StatusName = Literal["in_progress", "won", "drawn"]
StopName = Literal["budget", "deadline"]
# The longest time limit a request may name; the server's own deadline
# (TTT_SEARCH_DEADLINE_MS) caps it further.
MAX_TIME_LIMIT_MS = 600_000
STOPPED_BY_DESCRIPTION = (
    "Why the search answered with estimates: 'budget' (the node budget ran out: the same "
    "question gets the same answer) or 'deadline' (the time limit ran out: depends on the "
    "server's load; never cached). Null when exact."
)

BOARD_DESCRIPTION = (
    "Cells row by row: X and O (either case) for marks; '.', '-', '_' or a space for "
    "empty; optionally '/' between rows. Without '/', the board must be square unless "
    "rows and cols are given."
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


class BoardQuestion(BaseModel):
    """The fields every request uses to name a position.

    JSON bodies are validated strictly (``false`` is not a seed, ``"3"`` is not a
    k); query strings, where every value is text, use the ``*Query`` models.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    board: str = Field(
        min_length=1,
        max_length=MAX_TEXT_LENGTH * 2,
        description=BOARD_DESCRIPTION,
        examples=["X.O.X...."],
    )
    k: int | None = Field(
        default=None,
        ge=3,
        le=7,
        description="Marks in a row that win; default min(rows, cols, 5).",
    )
    rows: int | None = Field(default=None, ge=3, le=7, description="Rows, for unsquare boards.")
    cols: int | None = Field(default=None, ge=3, le=7, description="Columns, for unsquare boards.")
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


class MoveRequest(BoardQuestion):
    """Ask for the move to play."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={"examples": [{"board": "X...O....", "difficulty": "perfect"}]},
    )

    difficulty: Difficulty = Field(
        default=Difficulty.PERFECT,
        strict=False,  # FastAPI validates parsed JSON as Python: the name, not the enum
        description="How often a random legal move replaces a best one: "
        + ", ".join(f"{level.value} {level.blunder_rate:.0%}" for level in Difficulty)
        + ".",
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Makes every random choice reproducible. Without it, perfect play returns "
        "the first best move in cell order and lower levels use fresh randomness.",
    )


class AnalysisRequest(BoardQuestion):
    """Ask for the value of every legal move."""

    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra={"examples": [{"board": "X.O/.X./..O"}]}
    )


class MoveQuery(MoveRequest):
    """``MoveRequest`` read from a query string: numbers arrive as text."""

    model_config = ConfigDict(strict=False)


class AnalysisQuery(AnalysisRequest):
    """``AnalysisRequest`` read from a query string."""

    model_config = ConfigDict(strict=False)


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


class Cell(BaseModel):
    index: int = Field(description="0-based cell index, row by row.")
    row: int = Field(description="0-based row.")
    col: int = Field(description="0-based column.")


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
    difficulty: Difficulty
    seed: int | None


class MoveValue(BaseModel):
    index: int
    row: int
    col: int
    score: float = Field(description=SCORE_DESCRIPTION)
    outcome: OutcomeName | None = Field(description=MOVE_OUTCOME_DESCRIPTION)
    plies: int | None = Field(description=PLIES_DESCRIPTION)
    line: list[Cell] = Field(description=LINE_DESCRIPTION)
    exact: bool


class AnalysisAnswer(BaseModel):
    """The position's status and every legal move's value, best first."""

    board: str
    rows: int
    cols: int
    k: int
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
    moves: list[MoveValue]


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

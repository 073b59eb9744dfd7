"""Requests and answers of API v1 as frozen dataclasses, and the one JSON mapping.

Each class mirrors the schema of the same name in ``openapi/openapi.json``
(``tests/clients/test_contract.py`` fails when they differ), so a field the API
adds is one line here. :func:`from_json` reads every answer: it converts each
field by its annotation and ignores keys it does not know, so a newer server's
extra fields never break an older client. A field added to the API later gets a
default, so the client still reads answers from servers that predate it.

This module imports nothing from the service: the client installs without it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

Mark = Literal["X", "O"]
Outcome = Literal["win", "draw", "loss"]
Status = Literal["in_progress", "won", "drawn"]
Difficulty = Literal["perfect", "hard", "medium", "easy"]
HealthStatus = Literal["ok", "starting", "stopping"]
StopReason = Literal["budget", "deadline", "decided"]
Rule = Literal["freestyle", "exact", "renju"]
ForbiddenKind = Literal["overline", "double-four", "double-three"]
# A move of a move list: a cell index, or a gomoku coordinate such as "h8".
MoveName = int | str


def _one_position(request: MoveRequest | AnalysisRequest) -> None:
    if (request.board is None) == (request.moves is None):
        raise ValueError(
            f"{type(request).__name__}: give the position as board (its cells) or as moves "
            "(the game so far), one of the two"
        )


@dataclasses.dataclass(frozen=True)
class MoveRequest:
    """Ask for the move to play; ``None`` leaves a field to the server's default.
    Name the position by ``board`` or by ``moves`` (cell indices or coordinates
    such as ``"h8"``), one of the two."""

    board: str | None = None
    moves: tuple[MoveName, ...] | None = None
    k: int | None = None
    rows: int | None = None
    cols: int | None = None
    rule: Rule | None = None
    player: Mark | None = None
    time_limit_ms: int | None = None
    difficulty: Difficulty | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        _one_position(self)


@dataclasses.dataclass(frozen=True)
class AnalysisRequest:
    """Ask for the value of every legal move (the position as in MoveRequest)."""

    board: str | None = None
    moves: tuple[MoveName, ...] | None = None
    k: int | None = None
    rows: int | None = None
    cols: int | None = None
    rule: Rule | None = None
    player: Mark | None = None
    time_limit_ms: int | None = None

    def __post_init__(self) -> None:
        _one_position(self)


@dataclasses.dataclass(frozen=True)
class Cell:
    index: int
    row: int
    col: int
    name: str = ""  # gomoku notation ("h8"); empty from servers that predate it


@dataclasses.dataclass(frozen=True)
class MoveAnswer:
    """The move to play and what the engine knows about it (docs/engine.md explains the scores)."""

    move: Cell
    player: Mark
    score: float
    outcome: Outcome | None
    plies: int | None
    line: tuple[Cell, ...]
    best_moves: tuple[Cell, ...]
    best_score: float
    is_best: bool
    exact: bool
    depth: int
    stopped_by: StopReason | None
    board: str
    board_after: str
    status_after: Status
    winner_after: Mark | None
    winning_lines_after: tuple[tuple[int, ...], ...]
    rows: int
    cols: int
    k: int
    difficulty: Difficulty
    seed: int | None
    rule: Rule = "freestyle"


@dataclasses.dataclass(frozen=True)
class MoveValue:
    index: int
    row: int
    col: int
    score: float
    outcome: Outcome | None
    plies: int | None
    line: tuple[Cell, ...]
    exact: bool
    name: str = ""


@dataclasses.dataclass(frozen=True)
class OmittedMoves:
    """The legal moves an analysis does not list (boards of 8x8 and more list the
    search's candidates), and their common proven value when there is one."""

    count: int
    score: float | None
    outcome: Outcome | None
    plies: int | None


NOTHING_OMITTED = OmittedMoves(0, None, None, None)


@dataclasses.dataclass(frozen=True)
class ForbiddenCell:
    """Under renju, a cell X (Black) may not play, and why."""

    index: int
    row: int
    col: int
    name: str
    kind: ForbiddenKind


@dataclasses.dataclass(frozen=True)
class AnalysisAnswer:
    """The position's status and every legal move's value, best first."""

    board: str
    rows: int
    cols: int
    k: int
    status: Status
    winner: Mark | None
    winning_lines: tuple[tuple[int, ...], ...]
    player: Mark
    score: float
    outcome: Outcome | None
    plies: int | None
    exact: bool
    depth: int
    stopped_by: StopReason | None
    moves: tuple[MoveValue, ...]
    rule: Rule = "freestyle"
    omitted: OmittedMoves = NOTHING_OMITTED
    forbidden: tuple[ForbiddenCell, ...] = ()  # renju, X to move; () from older servers


@dataclasses.dataclass(frozen=True)
class Health:
    status: HealthStatus


def to_json(request: MoveRequest | AnalysisRequest) -> dict[str, Any]:
    """The request body: every field that is set (the server fills in the rest)."""
    return {
        field.name: value
        for field in dataclasses.fields(request)
        if (value := getattr(request, field.name)) is not None
    }


Answer = TypeVar("Answer")


def from_json(cls: type[Answer], data: Mapping[str, Any]) -> Answer:
    """Build the dataclass ``cls`` from a JSON object, field by field.

    >>> from_json(Cell, {"index": 5, "row": 1, "col": 2, "name": "c2", "new": "ignored"})
    Cell(index=5, row=1, col=2, name='c2')
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"{cls.__name__}: expected a JSON object, got {data!r:.80}")
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field.name in data:
            values[field.name] = _convert(hints[field.name], data[field.name])
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ValueError(f"{cls.__name__}: the answer has no {field.name!r}: {data!r:.200}")
    return cls(**values)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _convert(hint: Any, value: Any) -> Any:
    """``value`` as the annotation ``hint`` says; literals and scalars pass as they are."""
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        if value is None:
            return None
        (inner,) = [arm for arm in typing.get_args(hint) if arm is not type(None)]
        return _convert(inner, value)
    if origin is tuple:
        item = typing.get_args(hint)[0]
        return tuple(_convert(item, entry) for entry in value)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)  # JSON writes 9.0 as 9
    if dataclasses.is_dataclass(hint):
        return from_json(hint, value)  # type: ignore[arg-type]
    return value

"""The engine: an exact, cached alpha-beta solver for m,n,k-games, as a library.

It imports nothing from FastAPI, pydantic or prometheus_client and reads no
environment: the HTTP layer in ``service.api`` translates to and from it.

>>> from service.engine import Board, Engine
>>> Engine().analyze(Board.parse("....X....")).best_moves
(0, 2, 6, 8)
"""

from service.engine.analysis import (
    DEFAULT_NODE_BUDGET,
    DEFAULT_TABLE_BYTES,
    Analysis,
    Engine,
    EngineStats,
    MoveValue,
    Omitted,
    move_outcome,
    rank_moves,
)
from service.engine.board import Board, Player, Status
from service.engine.cache import BoundedCache, CacheStats
from service.engine.choice import Difficulty, Suggestion, suggest
from service.engine.errors import (
    BoardCharacterError,
    BoardError,
    BoardSizeError,
    CoordinateError,
    DoubleWinError,
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    IllegalPositionError,
    InvalidBoardError,
    MarkCountError,
    RuleError,
    SideToMoveError,
    UnreachableWinError,
)
from service.engine.geometry import GENERAL_RULES, Geometry, Rule, default_k, geometry
from service.engine.score import Outcome, outcome
from service.engine.search import SearchCancelled, SearchControl, StopReason

__all__ = [
    "DEFAULT_NODE_BUDGET",
    "DEFAULT_TABLE_BYTES",
    "GENERAL_RULES",
    "Analysis",
    "Board",
    "BoardCharacterError",
    "BoardError",
    "BoardSizeError",
    "BoundedCache",
    "CacheStats",
    "CoordinateError",
    "Difficulty",
    "DoubleWinError",
    "Engine",
    "EngineStats",
    "ForbiddenMoveError",
    "GameOverError",
    "Geometry",
    "IllegalMoveError",
    "IllegalPositionError",
    "InvalidBoardError",
    "MarkCountError",
    "MoveValue",
    "Omitted",
    "Outcome",
    "Player",
    "Rule",
    "RuleError",
    "SearchCancelled",
    "SearchControl",
    "SideToMoveError",
    "Status",
    "StopReason",
    "Suggestion",
    "UnreachableWinError",
    "default_k",
    "geometry",
    "move_outcome",
    "outcome",
    "rank_moves",
    "suggest",
]

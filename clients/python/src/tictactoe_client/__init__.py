"""A typed client for tictactoe-service, the move-suggestion API; it needs only httpx.

``Client("http://127.0.0.1:8000").move("X...O....").move.index`` is 1.
"""

from tictactoe_client.client import (
    DEFAULT_BATCH_LIMIT,
    DEFAULT_TIMEOUT,
    VERSION,
    AsyncClient,
    Client,
)
from tictactoe_client.models import (
    AnalysisAnswer,
    AnalysisRequest,
    Cell,
    Difficulty,
    ForbiddenCell,
    Health,
    HealthStatus,
    Mark,
    MoveAnswer,
    MoveName,
    MoveRequest,
    MoveValue,
    OmittedMoves,
    Outcome,
    Rule,
    Status,
    StopReason,
)
from tictactoe_client.problems import FieldError, Problem, ProblemError
from tictactoe_client.retries import DEFAULT_RETRIES

__version__ = VERSION
__all__ = [
    "DEFAULT_BATCH_LIMIT",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "AnalysisAnswer",
    "AnalysisRequest",
    "AsyncClient",
    "Cell",
    "Client",
    "Difficulty",
    "FieldError",
    "ForbiddenCell",
    "Health",
    "HealthStatus",
    "Mark",
    "MoveAnswer",
    "MoveName",
    "MoveRequest",
    "MoveValue",
    "OmittedMoves",
    "Outcome",
    "Problem",
    "ProblemError",
    "Rule",
    "Status",
    "StopReason",
]

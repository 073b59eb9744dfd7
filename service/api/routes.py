"""API v1 routes: move, analysis and batch, over POST bodies and cacheable GETs.

Handlers are a few lines each: validate (pydantic), parse the board, ask the
:class:`~service.api.solver.Solver`, translate (``answers.py``). Errors are
raised and become problems in ``problems.py``; nothing here builds one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Hashable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from service.api import answers
from service.api.bodies import JsonBodyRoute
from service.api.models import (
    AnalysisAnswer,
    AnalysisQuery,
    AnalysisRequest,
    BatchAnswer,
    BatchRequest,
    MoveAnswer,
    MoveQuery,
    MoveRequest,
    ProblemDetail,
)
from service.api.problems import ProblemError, board_problem, problem_body
from service.api.replay import (
    REPLAYABLE,
    REPLAYED_DIFFICULTY,
    AnswerCache,
    StoredAnswer,
    etag_matches,
)
from service.api.solver import MoveQuestion, Solver
from service.engine import BoardError

PROBLEM_CODES = (400, 401, 408, 413, 415, 422, 429, 503)
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"model": ProblemDetail, "description": "A problem (RFC 9457)"} for code in PROBLEM_CODES
}
GET_PROBLEMS: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not modified: the ETag in If-None-Match still matches."},
    **{code: PROBLEMS[code] for code in (400, 401, 422, 429, 503)},
}

PREFIX = "/v1"
BATCH_ITEM = "batch-item"  # the answer cache's kind for one request of a batch
BATCH_PATH = f"{PREFIX}/batch"
MOVE_PATH = f"{PREFIX}/move"
ANALYSIS_PATH = f"{PREFIX}/analysis"
router = APIRouter(prefix=PREFIX, tags=["v1"], route_class=JsonBodyRoute)


def solver_of(request: Request) -> Solver:
    solver: Solver = request.app.state.solver
    return solver


def json_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(_dumps(body), media_type="application/json", headers=headers)


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def single_valued_query(request: Request) -> None:
    """Refuse a query parameter given twice, by name, as an unknown one is refused.

    Otherwise the framework keeps the last value and ``?board=X..&board=...``
    silently answers for a position the client may not have meant.
    """
    counts = Counter(name for name, _ in request.query_params.multi_items())
    repeated = [name for name, count in counts.items() if count > 1]
    if repeated:
        raise RequestValidationError(
            [
                {
                    "type": "repeated_parameter",
                    "loc": ("query", name),
                    "msg": f"given more than once ({counts[name]} times); send each parameter once",
                    "input": None,
                }
                for name in repeated
            ]
        )


SINGLE_VALUED = [Depends(single_valued_query)]


async def _move(request: Request, body: MoveRequest | MoveQuery) -> tuple[dict[str, Any], bool]:
    """The move answer and whether it is the same for every equal request."""
    board = answers.parse_board(body)
    question = MoveQuestion(board, body.difficulty, body.seed, body.time_limit_ms)
    suggestion = await solver_of(request).suggest(request, question)
    request.app.state.observe_move(body.difficulty)
    return answers.move_answer(body, suggestion), suggestion.deterministic and (
        suggestion.analysis.exact
    )


async def _analysis(
    request: Request, body: AnalysisRequest | AnalysisQuery
) -> tuple[dict[str, Any], bool]:
    board = answers.parse_board(body)
    if board.is_game_over():
        return answers.finished_answer(board), True
    analysis = await solver_of(request).analyze(request, board, body.time_limit_ms)
    return answers.analysis_answer(analysis), analysis.exact


def cacheable(request: Request, body: dict[str, Any], deterministic: bool) -> Response:
    """A GET answer with HTTP caching: strong ETag and max-age when deterministic."""
    payload = _dumps(body)
    if not deterministic:
        return Response(
            payload, media_type="application/json", headers={"cache-control": "no-store"}
        )
    etag = '"' + hashlib.blake2b(payload, digest_size=16).hexdigest() + '"'
    max_age = request.app.state.settings.cache_max_age_seconds
    headers = {"etag": etag, "cache-control": f"public, max-age={max_age}"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(payload, media_type="application/json", headers=headers)


@router.post(
    "/move",
    operation_id="postMove",
    summary="Suggest a move",
    response_model=MoveAnswer,
    responses=PROBLEMS,
)
async def post_move(request: Request, body: MoveRequest) -> Response:
    answer, deterministic = await _move(request, body)
    _offer_for_replay(request, deterministic, body.difficulty.value)
    return json_response(answer)


def _offer_for_replay(request: Request, deterministic: bool, difficulty: str | None) -> None:
    """Let the request guard replay this answer to the same body (``replay.py``)."""
    state = request.scope.setdefault("state", {})
    state[REPLAYABLE] = deterministic
    state[REPLAYED_DIFFICULTY] = difficulty


@router.get(
    "/move",
    operation_id="getMove",
    dependencies=SINGLE_VALUED,
    summary="Suggest a move (cacheable GET)",
    response_model=MoveAnswer,
    responses=GET_PROBLEMS,
)
async def get_move(request: Request, query: Annotated[MoveQuery, Query()]) -> Response:
    answer, deterministic = await _move(request, query)
    _offer_for_replay(request, deterministic, query.difficulty.value)
    return cacheable(request, answer, deterministic)


@router.post(
    "/analysis",
    operation_id="postAnalysis",
    summary="Score every legal move",
    response_model=AnalysisAnswer,
    responses=PROBLEMS,
)
async def post_analysis(request: Request, body: AnalysisRequest) -> Response:
    answer, deterministic = await _analysis(request, body)
    _offer_for_replay(request, deterministic, None)
    return json_response(answer)


@router.get(
    "/analysis",
    operation_id="getAnalysis",
    dependencies=SINGLE_VALUED,
    summary="Score every legal move (cacheable GET)",
    response_model=AnalysisAnswer,
    responses=GET_PROBLEMS,
)
async def get_analysis(request: Request, query: Annotated[AnalysisQuery, Query()]) -> Response:
    answer, deterministic = await _analysis(request, query)
    _offer_for_replay(request, deterministic, None)
    return cacheable(request, answer, deterministic)


@router.post(
    "/batch",
    operation_id="postBatch",
    summary="Suggest moves for many positions",
    response_model=BatchAnswer,
    responses=PROBLEMS,
)
async def post_batch(request: Request, body: BatchRequest) -> Response:
    limit = request.app.state.settings.batch_limit
    if len(body.requests) > limit:
        raise ProblemError(
            "batch-too-large",
            f"a batch holds at most {limit} requests, this one has {len(body.requests)}; split it",
            errors=[{"pointer": "/requests", "detail": f"at most {limit} items"}],
        )
    await solver_of(request).charge(request, len(body.requests))  # a unit per item
    replays: AnswerCache = request.app.state.replays
    results: list[bytes] = [b""] * len(body.requests)
    questions: list[tuple[int, Hashable, MoveQuestion]] = []
    moves: dict[str, int] = {}
    for index, item in enumerate(body.requests):
        level = item.difficulty.value  # a str hashes in C, the enum in Python
        played = None if item.moves is None else tuple(item.moves)
        key: Hashable = (
            *(item.board, played, item.k, item.rows, item.cols),
            *(item.rule, item.player, level, item.seed),
        )
        stored = replays.get(BATCH_ITEM, key)
        if stored is not None:
            results[index] = stored.body
            moves[level] = moves.get(level, 0) + 1
            continue
        try:
            board = answers.parse_board(item)
            board.check_in_progress()
        except BoardError as error:
            slug, detail, extensions = board_problem(error, prefix=f"/requests/{index}")
            results[index] = _dumps(problem_body(slug, detail, **extensions))
            continue
        question = MoveQuestion(board, item.difficulty, item.seed, item.time_limit_ms)
        questions.append((index, key, question))
    suggestions = await solver_of(request).suggest_many(request, [q for _, _, q in questions])
    for (index, item_key, _), suggestion in zip(questions, suggestions, strict=True):
        item = body.requests[index]
        results[index] = _dumps(answers.move_answer(item, suggestion))
        if suggestion.deterministic and suggestion.analysis.exact:
            replays.put(BATCH_ITEM, item_key, StoredAnswer(results[index], None, None))
        moves[item.difficulty.value] = moves.get(item.difficulty.value, 0) + 1
    request.app.state.observe_batch(len(body.requests), moves)
    return Response(b'{"results":[' + b",".join(results) + b"]}", media_type="application/json")

"""The HTTP clients: :class:`Client` for blocking code, :class:`AsyncClient` for asyncio.

Both send the same requests and read the same answers; they differ only in
how they wait. Answers become the dataclasses of ``models.py``, error answers
:class:`~tictactoe_client.problems.ProblemError`, and ``retries.py`` decides
what is sent again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from importlib import metadata
from types import TracebackType
from typing import Any, Self

import httpx

from tictactoe_client.models import (
    AnalysisAnswer,
    AnalysisRequest,
    Difficulty,
    Health,
    Mark,
    MoveAnswer,
    MoveName,
    MoveRequest,
    Rule,
    from_json,
    to_json,
)
from tictactoe_client.problems import Problem, ProblemError, problem_of
from tictactoe_client.retries import DEFAULT_RETRIES, RETRIED_ERRORS, Backoff, retry_after

MOVE_PATH = "/v1/move"
ANALYSIS_PATH = "/v1/analysis"
BATCH_PATH = "/v1/batch"
HEALTH_PATH = "/readyz"
DEFAULT_TIMEOUT = 30.0
# The server's TTT_BATCH_LIMIT by default. The API does not publish its limit,
# so a client talking to a server configured otherwise is told with batch_limit.
DEFAULT_BATCH_LIMIT = 100
try:
    VERSION = metadata.version("tictactoe-client")
except metadata.PackageNotFoundError:  # run from a source tree without installing
    VERSION = "0+unknown"
USER_AGENT = f"tictactoe-client/{VERSION} (python)"
_REQUEST_POINTER = re.compile(r"(?<![\w/])/requests/(\d+)\b")
# What the server takes as X-API-Key (service/api/limits.py); it answers 400 to anything else.
MAX_API_KEY_LENGTH = 128


class _Settings:
    """What both clients are configured with, and what they do without I/O."""

    def __init__(
        self, base_url: str, timeout: float, retries: int, batch_limit: int, api_key: str | None
    ) -> None:
        Backoff(retries)  # refuses a negative count now rather than at the first call
        if batch_limit < 1:
            raise ValueError(f"batch_limit must be 1 or more, not {batch_limit}")
        if api_key is not None:
            _check_api_key(api_key)
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.batch_limit = batch_limit
        self._headers = {"user-agent": USER_AGENT}
        if api_key is not None:
            self._headers["x-api-key"] = api_key

    def _chunks(
        self, requests: Iterable[MoveRequest | str | Mapping[str, Any]]
    ) -> Iterator[tuple[int, list[MoveRequest]]]:
        """Consecutive runs of at most ``batch_limit`` requests, with their offsets.

        Every request is checked before the first chunk is sent.
        """
        pending = _move_requests(requests)
        for offset in range(0, len(pending), self.batch_limit):
            yield offset, pending[offset : offset + self.batch_limit]


def _check_api_key(api_key: str) -> None:
    """A ``ValueError`` for a key the server would refuse; the message never quotes the key.

    >>> try:
    ...     _check_api_key("my key")
    ... except ValueError as error:
    ...     print(str(error).partition("; ")[2])
    character 3 is outside that range
    """
    fault = None
    if not api_key:
        fault = "it is empty"
    elif len(api_key) > MAX_API_KEY_LENGTH:
        fault = f"it has {len(api_key)} characters"
    else:
        for position, character in enumerate(api_key, 1):
            if not "\x21" <= character <= "\x7e":
                fault = f"character {position} is outside that range"
                break
    if fault is not None:
        raise ValueError(
            f"api_key must be 1 to {MAX_API_KEY_LENGTH} visible ASCII characters (0x21-0x7E); "
            + fault
        )


_MOVE_REQUEST_FIELDS = tuple(field.name for field in dataclasses.fields(MoveRequest))


def _move_requests(requests: Iterable[MoveRequest | str | Mapping[str, Any]]) -> list[MoveRequest]:
    """Each of ``requests`` as a :class:`MoveRequest`, or a ``TypeError`` that says why not.

    >>> requests = _move_requests(["X...O....", {"board": "." * 16, "k": 3}])
    >>> [(request.board, request.k) for request in requests]
    [('X...O....', None), ('................', 3)]
    """
    if isinstance(requests, str | bytes | Mapping | MoveRequest):
        raise TypeError(
            f"batch() takes a list of requests, not one {type(requests).__name__}: "
            f"{requests!r:.80}; pass [request] for a single one"
        )
    return [_move_request(index, request) for index, request in enumerate(requests)]


def _move_request(index: int, request: object) -> MoveRequest:
    if isinstance(request, MoveRequest):
        return request
    if isinstance(request, str):
        return MoveRequest(request)
    if isinstance(request, Mapping):
        unknown = [repr(name) for name in request if name not in _MOVE_REQUEST_FIELDS]
        if unknown:
            raise TypeError(
                f"batch(): requests[{index}] has {', '.join(unknown)}, which MoveRequest lacks; "
                f"its fields are {', '.join(_MOVE_REQUEST_FIELDS)}"
            )
        if "board" not in request and "moves" not in request:
            raise TypeError(
                f"batch(): requests[{index}] has neither 'board' nor 'moves': {request!r:.80}"
            )
        fields = dict(request)
        if fields.get("moves") is not None:
            fields["moves"] = tuple(fields["moves"])
        return MoveRequest(**fields)
    raise TypeError(
        f"batch(): requests[{index}] is {request!r:.80} ({type(request).__name__}); "
        "a request is a board string (as move() takes), a mapping of MoveRequest's fields, "
        "or a MoveRequest"
    )


def _moves(moves: Sequence[MoveName] | None) -> tuple[MoveName, ...] | None:
    if isinstance(moves, str):
        raise TypeError(f"moves is a list of cells or coordinates, not one string: {moves!r:.80}")
    return None if moves is None else tuple(moves)


def _answer(response: httpx.Response) -> Any:
    if response.is_success:
        return response.json()
    raise ProblemError(problem_of(response), retry_after(response.headers.get("retry-after")))


def _batch_body(chunk: Sequence[MoveRequest]) -> dict[str, Any]:
    return {"requests": [to_json(request) for request in chunk]}


def _batch_results(data: Mapping[str, Any], offset: int) -> list[MoveAnswer | Problem]:
    return [
        Problem.from_json(_shift_pointers(item, offset))
        if "type" in item and "status" in item
        else from_json(MoveAnswer, item)
        for item in data["results"]
    ]


def _batch_error(error: ProblemError, offset: int) -> ProblemError:
    """A chunk's problem, its pointers counted in the whole list of requests."""
    if offset == 0 or not error.raw:
        return error
    return ProblemError(Problem.from_json(_shift_pointers(error.raw, offset)), error.retry_after)


def _shift_pointers(problem: Mapping[str, Any], offset: int) -> dict[str, Any]:
    """``/requests/2/board`` in the chunk at ``offset`` 100 is ``/requests/102/board``,
    in the pointers and in the detail that quotes them.

    >>> problem = {"detail": "/requests/2/k: too big", "errors": [{"pointer": "/requests/2/k"}]}
    >>> _shift_pointers(problem, 5)
    {'detail': '/requests/7/k: too big', 'errors': [{'pointer': '/requests/7/k'}]}
    """
    if offset == 0:
        return dict(problem)

    def shift(text: str) -> str:
        return _REQUEST_POINTER.sub(lambda m: f"/requests/{int(m.group(1)) + offset}", text)

    shifted = dict(problem)
    if isinstance(problem.get("detail"), str):
        shifted["detail"] = shift(problem["detail"])
    if isinstance(problem.get("errors"), list):
        shifted["errors"] = [
            {**entry, "pointer": shift(entry["pointer"])}
            if isinstance(entry, Mapping) and isinstance(entry.get("pointer"), str)
            else entry
            for entry in problem["errors"]
        ]
    return shifted


class Client(_Settings):
    """A blocking client. Use it as a context manager, or call :meth:`close`.

    ``api_key`` goes with every request as ``X-API-Key``: a key the server
    knows has its own quota. One the server would refuse as malformed (empty,
    over 128 characters, or outside visible ASCII) is a ``ValueError`` here.
    ``http_client`` lends an ``httpx.Client`` of your own: its settings, its
    timeout included, apply, and it is not closed here. ``sleep`` is how
    retries wait.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        batch_limit: int = DEFAULT_BATCH_LIMIT,
        api_key: str | None = None,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        super().__init__(base_url, timeout, retries, batch_limit, api_key)
        self._owns_http = http_client is None
        self._http = httpx.Client(timeout=timeout) if http_client is None else http_client
        self._sleep = sleep

    def move(
        self,
        board: str | None = None,
        *,
        moves: Sequence[MoveName] | None = None,
        k: int | None = None,
        rows: int | None = None,
        cols: int | None = None,
        rule: Rule | None = None,
        player: Mark | None = None,
        time_limit_ms: int | None = None,
        difficulty: Difficulty | None = None,
        seed: int | None = None,
    ) -> MoveAnswer:
        """The move to play in ``board``, or after ``moves`` (``POST /v1/move``)."""
        request = MoveRequest(
            board, _moves(moves), k, rows, cols, rule, player, time_limit_ms, difficulty, seed
        )
        return from_json(MoveAnswer, self._send("POST", MOVE_PATH, to_json(request)))

    def analysis(
        self,
        board: str | None = None,
        *,
        moves: Sequence[MoveName] | None = None,
        k: int | None = None,
        rows: int | None = None,
        cols: int | None = None,
        rule: Rule | None = None,
        player: Mark | None = None,
        time_limit_ms: int | None = None,
    ) -> AnalysisAnswer:
        """The legal moves' values, best first (``POST /v1/analysis``); on boards of
        8x8 and more the search's candidates, with ``omitted`` for the rest."""
        request = AnalysisRequest(board, _moves(moves), k, rows, cols, rule, player, time_limit_ms)
        return from_json(AnalysisAnswer, self._send("POST", ANALYSIS_PATH, to_json(request)))

    def batch(
        self, requests: Iterable[MoveRequest | str | Mapping[str, Any]]
    ) -> list[MoveAnswer | Problem]:
        """One answer per request, in order: a move, or the problem with that request.

        A request is a board string (as :meth:`move` takes), a mapping of
        :class:`MoveRequest`'s fields, or a ``MoveRequest``; anything else
        raises ``TypeError`` before anything is sent. Sent in chunks of
        ``batch_limit``, one after another. A problem with a whole chunk raises
        :class:`ProblemError`, its pointers indexing ``requests``.
        """
        results: list[MoveAnswer | Problem] = []
        for offset, chunk in self._chunks(requests):
            try:
                data = self._send("POST", BATCH_PATH, _batch_body(chunk))
            except ProblemError as error:
                raise _batch_error(error, offset) from None
            results += _batch_results(data, offset)
        return results

    def health(self) -> Health:
        """``ok`` once the server is ready; a 503 is retried, then raised."""
        return from_json(Health, self._send("GET", HEALTH_PATH))

    def _send(self, method: str, path: str, body: object = None) -> Any:
        backoff = Backoff(self.retries)
        while True:
            try:
                response = self._http.request(
                    method,
                    self.base_url + path,
                    json=body,
                    headers=self._headers,
                )
            except RETRIED_ERRORS:
                wait = backoff.after_error()
                if wait is None:
                    raise
            else:
                wait = backoff.after_response(response)
                if wait is None:
                    return _answer(response)
            self._sleep(wait)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient(_Settings):
    """The same calls as :class:`Client`, awaited. Use ``async with`` or :meth:`aclose`.

    ``api_key`` as ``Client``'s; ``http_client`` lends an ``httpx.AsyncClient`` as
    ``Client``'s ``http_client``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        batch_limit: int = DEFAULT_BATCH_LIMIT,
        api_key: str | None = None,
        http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        super().__init__(base_url, timeout, retries, batch_limit, api_key)
        self._owns_http = http_client is None
        self._http = httpx.AsyncClient(timeout=timeout) if http_client is None else http_client
        self._sleep = sleep

    async def move(
        self,
        board: str | None = None,
        *,
        moves: Sequence[MoveName] | None = None,
        k: int | None = None,
        rows: int | None = None,
        cols: int | None = None,
        rule: Rule | None = None,
        player: Mark | None = None,
        time_limit_ms: int | None = None,
        difficulty: Difficulty | None = None,
        seed: int | None = None,
    ) -> MoveAnswer:
        """The move to play in ``board``, or after ``moves`` (``POST /v1/move``)."""
        request = MoveRequest(
            board, _moves(moves), k, rows, cols, rule, player, time_limit_ms, difficulty, seed
        )
        return from_json(MoveAnswer, await self._send("POST", MOVE_PATH, to_json(request)))

    async def analysis(
        self,
        board: str | None = None,
        *,
        moves: Sequence[MoveName] | None = None,
        k: int | None = None,
        rows: int | None = None,
        cols: int | None = None,
        rule: Rule | None = None,
        player: Mark | None = None,
        time_limit_ms: int | None = None,
    ) -> AnalysisAnswer:
        """The legal moves' values, best first (``POST /v1/analysis``); on boards of
        8x8 and more the search's candidates, with ``omitted`` for the rest."""
        request = AnalysisRequest(board, _moves(moves), k, rows, cols, rule, player, time_limit_ms)
        data = await self._send("POST", ANALYSIS_PATH, to_json(request))
        return from_json(AnalysisAnswer, data)

    async def batch(
        self, requests: Iterable[MoveRequest | str | Mapping[str, Any]]
    ) -> list[MoveAnswer | Problem]:
        """As :meth:`Client.batch`: the same requests, the answers in order."""
        results: list[MoveAnswer | Problem] = []
        for offset, chunk in self._chunks(requests):
            try:
                data = await self._send("POST", BATCH_PATH, _batch_body(chunk))
            except ProblemError as error:
                raise _batch_error(error, offset) from None
            results += _batch_results(data, offset)
        return results

    async def health(self) -> Health:
        """``ok`` once the server is ready; a 503 is retried, then raised."""
        return from_json(Health, await self._send("GET", HEALTH_PATH))

    async def _send(self, method: str, path: str, body: object = None) -> Any:
        backoff = Backoff(self.retries)
        while True:
            try:
                response = await self._http.request(
                    method,
                    self.base_url + path,
                    json=body,
                    headers=self._headers,
                )
            except RETRIED_ERRORS:
                wait = backoff.after_error()
                if wait is None:
                    raise
            else:
                wait = backoff.after_response(response)
                if wait is None:
                    return _answer(response)
            await self._sleep(wait)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

"""Problem responses (RFC 9457): every error the service returns, in one place.

This module owns the catalogue of problem types (a stable URI, title and status
each), the mapping from the engine's error family and the framework's own
errors to problems, and the handlers that write them as
``application/problem+json``. Routes raise; they never build error bodies.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match, Mount

from service.engine import (
    BoardCharacterError,
    BoardError,
    ForbiddenMoveError,
    GameOverError,
    IllegalPositionError,
)

PROBLEM_MEDIA_TYPE = "application/problem+json"
log = logging.getLogger("service.api")


@dataclass(frozen=True)
class ProblemType:
    slug: str
    title: str
    status: int
    description: str

    @property
    def uri(self) -> str:
        return f"/problems/{self.slug}"


_TYPES = [
    ProblemType(
        "invalid-board",
        "The board text is not a board",
        422,
        "Wrong size, unknown characters or rows of different lengths.",
    ),
    ProblemType(
        "illegal-position",
        "No legal game reaches this position",
        422,
        "Impossible mark counts, a side to move the counts contradict, both "
        "players with a line, or a win the game would not have reached.",
    ),
    ProblemType(
        "game-over",
        "The game is over",
        422,
        "A move was asked for in a won or drawn position; the problem carries "
        "the winner and the winning lines.",
    ),
    ProblemType(
        "validation",
        "The request does not match the schema",
        422,
        "One or more fields are missing, of the wrong type or out of range; "
        "`errors` lists each with a JSON pointer.",
    ),
    ProblemType(
        "batch-too-large",
        "Too many requests in one batch",
        422,
        "A batch holds at most the configured number of move requests.",
    ),
    ProblemType(
        "malformed-json",
        "The body is not valid JSON",
        400,
        "The request body could not be parsed as JSON.",
    ),
    ProblemType(
        "body-too-large",
        "The request body is too large",
        413,
        "Bodies are limited by TTT_BODY_LIMIT_BYTES and TTT_BATCH_BODY_LIMIT_BYTES.",
    ),
    ProblemType(
        "body-timeout",
        "The request body did not arrive in time",
        408,
        "The client stopped sending the body before it was complete.",
    ),
    ProblemType(
        "headers-too-large",
        "The request line and headers are too large",
        431,
        "The request line and headers together are limited by TTT_HEADER_LIMIT_BYTES; "
        "the connection is closed. Send long data in a POST body.",
    ),
    ProblemType(
        "headers-timeout",
        "The request headers did not arrive in time",
        408,
        "The request line and headers must arrive within TTT_HEADER_TIMEOUT_SECONDS of "
        "their first byte; the connection is closed.",
    ),
    ProblemType(
        "unsupported-media-type",
        "The body must be uncompressed JSON",
        415,
        "Send `Content-Type: application/json` and no `Content-Encoding` (or `identity`): "
        "compressed bodies are not accepted.",
    ),
    ProblemType(
        "invalid-api-key",
        "The API key is malformed",
        400,
        "X-API-Key holds 1 to 128 visible ASCII characters.",
    ),
    ProblemType(
        "api-key-required",
        "A known API key is required",
        401,
        "This server is configured to answer only requests with a known X-API-Key "
        "(TTT_REQUIRE_API_KEY).",
    ),
    ProblemType(
        "rate-limited",
        "Too many requests from this client",
        429,
        "The client is over its quota: `reason` is `rate` (its bucket of work units is "
        "empty) or `concurrency` (it has its share of searches running or waiting). "
        "Retry-After says when to try again; RateLimit and RateLimit-Policy give the quota.",
    ),
    ProblemType("not-found", "No such resource", 404, "The path matches no route."),
    ProblemType(
        "method-not-allowed",
        "Method not allowed",
        405,
        "The route exists but not for this method; see the Allow header.",
    ),
    ProblemType(
        "not-acceptable",
        "Cannot produce an acceptable representation",
        406,
        "This resource is JSON only.",
    ),
    ProblemType(
        "service-unavailable",
        "The service is not ready",
        503,
        "The service is starting up or shutting down; try again shortly.",
    ),
    ProblemType(
        "internal",
        "Internal error",
        500,
        "Something went wrong on our side; quote the request id when reporting it.",
    ),
]
PROBLEM_TYPES: dict[str, ProblemType] = {t.slug: t for t in _TYPES}


class ProblemError(Exception):
    """Raise to answer with a problem: ``ProblemError("game-over", detail, winner=...)``."""

    def __init__(
        self, slug: str, detail: str, headers: dict[str, str] | None = None, **extensions: Any
    ) -> None:
        super().__init__(detail)
        self.kind = PROBLEM_TYPES[slug]
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions


def problem_body(
    slug: str, detail: str, instance: str | None = None, **extensions: Any
) -> dict[str, Any]:
    kind = PROBLEM_TYPES[slug]
    body: dict[str, Any] = {
        "type": kind.uri,
        "title": kind.title,
        "status": kind.status,
        "detail": detail,
    }
    if instance is not None:
        body["instance"] = instance
    body.update(extensions)
    return body


def problem_response(
    slug: str,
    detail: str,
    *,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Response:
    body = problem_body(slug, detail, instance, **(extensions or {}))
    return Response(
        json.dumps(body, separators=(",", ":")).encode(),
        status_code=PROBLEM_TYPES[slug].status,
        headers=headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )


def board_problem(error: BoardError, prefix: str = "") -> tuple[str, str, dict[str, Any]]:
    """The problem a board error becomes: (slug, detail, extensions). The one mapping.

    ``prefix`` locates the request in a larger body (``/requests/3`` in a batch).
    """
    detail = str(error)
    if isinstance(error, GameOverError):
        return (
            "game-over",
            detail,
            {
                "winner": error.winner,
                "winning_lines": [list(line) for line in error.lines],
            },
        )
    extensions: dict[str, Any] = {
        "errors": [{"pointer": f"{prefix}/{error.field}", "detail": detail}]
    }
    if isinstance(error, ForbiddenMoveError):
        extensions["cell"] = error.cell
        extensions["forbidden"] = error.kind
    if isinstance(error, IllegalPositionError):
        return "illegal-position", detail, extensions
    if isinstance(error, BoardCharacterError):
        extensions["cell"] = error.cell
    # InvalidBoardError, and IllegalMoveError should a caller pass one.
    return "invalid-board", detail, extensions


def internal_problem(request_id: str, path: str | None) -> Response:
    """The generic 500: no internal names, the request id to quote."""
    return problem_response(
        "internal",
        f"the request failed on our side; quote request id {request_id} when reporting it",
        instance=path,
        extensions={"request_id": request_id},
    )


def validation_errors(errors: list[dict[str, Any]]) -> tuple[str, str, list[dict[str, str]]]:
    """Translate pydantic/FastAPI errors into (slug, detail, per-field entries)."""
    if any(e.get("type") == "json_invalid" for e in errors):
        return "malformed-json", "the body is not valid JSON: " + _json_position(errors), []
    entries: list[dict[str, str]] = []
    for error in errors:
        location = [str(part) for part in error.get("loc", ())]
        message = _describe(error)
        if location and location[0] in ("query", "path"):
            entries.append({"parameter": "/".join(location[1:]), "detail": message})
        else:
            parts = location[1:] if location and location[0] == "body" else location
            pointer = "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)
            entries.append({"pointer": pointer if parts else "", "detail": message})
    summary = "; ".join(
        f"{e.get('pointer') or e.get('parameter') or 'body'}: {e['detail']}" for e in entries[:5]
    )
    more = f" (and {len(entries) - 5} more)" if len(entries) > 5 else ""
    return "validation", f"fix these fields and retry: {summary}{more}", entries


def _describe(error: dict[str, Any]) -> str:
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if error.get("type") == "missing":
        return "this field is required"
    if error.get("type") == "extra_forbidden":
        return "unknown field; check its spelling against the API documentation"
    return message[:1].lower() + message[1:]


def _json_position(errors: list[dict[str, Any]]) -> str:
    for error in errors:
        if error.get("type") == "json_invalid":
            ctx = error.get("ctx") or {}
            return str(ctx.get("error", "parse error"))
    return "parse error"


def _allowed(headers: Mapping[str, str] | None) -> str | None:
    for name, value in (headers or {}).items():
        if name.lower() == "allow":
            return value
    return None


PROBED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _methods_at(request: Request) -> str:
    """Every method some route accepts at this path, found by asking the routes.

    (Starlette's 405 names only the first route's methods, and FastAPI's
    included routers do not expose theirs.) HEAD goes wherever GET does.
    """
    allowed = []
    for method in PROBED_METHODS:
        probe = {**request.scope, "method": method}
        if any(route.matches(probe)[0] is Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    if "GET" in allowed:
        allowed.insert(1, "HEAD")
    return ", ".join(allowed)


def _slash_hint(request: Request) -> str:
    """Name the route a trailing slash missed; paths are exact, never redirected."""
    path = request.url.path
    bare = path.rstrip("/")
    if not bare or bare == path:
        return ""
    probe = {**request.scope, "path": bare}
    for route in request.app.router.routes:
        if not isinstance(route, Mount) and route.matches(probe)[0] is not Match.NONE:
            return f" (without the trailing slash: {bare})"
    return ""


def install_problem_handlers(app: FastAPI) -> None:
    """Route every error, ours and the framework's, to a problem response."""

    async def on_problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ProblemError)
        return problem_response(
            exc.kind.slug,
            exc.detail,
            instance=request.url.path,
            headers=exc.headers,
            extensions=exc.extensions,
        )

    async def on_board_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BoardError)
        slug, detail, extensions = board_problem(exc)
        return problem_response(slug, detail, instance=request.url.path, extensions=extensions)

    async def on_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        slug, detail, entries = validation_errors(list(exc.errors()))
        extra = {"errors": entries} if entries else {}
        return problem_response(slug, detail, instance=request.url.path, extensions=extra)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 405:
            # The routes' methods at this path; where no route speaks for it (inside the
            # static files' mount), the Allow of what raised the 405 (GET, HEAD).
            exc.headers = {"allow": _methods_at(request) or _allowed(exc.headers) or ""}
        slug = {
            400: "malformed-json",  # FastAPI: a body it could not decode or parse
            404: "not-found",
            405: "method-not-allowed",
            408: "body-timeout",
            406: "not-acceptable",
            413: "body-too-large",
            415: "unsupported-media-type",
            503: "service-unavailable",
        }.get(exc.status_code)
        if slug is None:
            slug = "validation" if 400 <= exc.status_code < 500 else "internal"
        detail = {
            "malformed-json": "the body could not be read as UTF-8 JSON; check the encoding "
            "and the syntax",
            "not-found": f"there is no resource at {request.url.path}; see /docs for the API"
            + _slash_hint(request),
            "method-not-allowed": f"{request.method} is not allowed on {request.url.path}; "
            f"use {_allowed(exc.headers) or 'another method'}",
        }.get(slug, str(exc.detail))
        return problem_response(
            slug, detail, instance=request.url.path, headers=dict(exc.headers or {})
        )

    async def on_crash(request: Request, exc: Exception) -> Response:
        # The last resort, outside every middleware; RequestGuard answers first.
        request_id = getattr(request.state, "request_id", "-")
        log.exception("unhandled error (request id %s)", request_id)
        return internal_problem(request_id, request.url.path)

    app.add_exception_handler(ProblemError, on_problem)
    app.add_exception_handler(BoardError, on_board_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)

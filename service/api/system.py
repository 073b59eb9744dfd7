"""Routes around the API: health, metrics, offline docs, problem types, playground.

``/livez`` answers while the process serves; ``/readyz`` only once the
start-up solve is done and until shutdown begins. ``/docs`` serves Swagger UI
from the package (no CDN), and ``/problems/{slug}`` documents each problem type
a response can name.
"""

from __future__ import annotations

import json
from pathlib import Path as FilePath
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import FileResponse, HTMLResponse, Response

from service.api.models import Health, ProblemDetail
from service.api.problems import PROBLEM_TYPES, ProblemError

STATIC_DIR = FilePath(__file__).resolve().parent.parent / "static"
SWAGGER = "/static/vendor/swagger-ui"

router = APIRouter()


@router.get(
    "/livez",
    operation_id="getLivez",
    tags=["operations"],
    response_model=Health,
    summary="Liveness: 200 while the process serves",
)
async def livez() -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


@router.get(
    "/readyz",
    operation_id="getReadyz",
    tags=["operations"],
    response_model=Health,
    summary="Readiness: 200 after the start-up solve, 503 once shutdown begins",
    responses={503: {"model": ProblemDetail, "description": "Starting or stopping"}},
)
async def readyz(request: Request) -> Response:
    state = request.app.state
    if state.stopping:
        raise ProblemError(
            "service-unavailable",
            "shutting down: send requests elsewhere",
            headers={"retry-after": "1"},
        )
    if not state.ready:
        raise ProblemError(
            "service-unavailable",
            "starting: the 3x3 start-up solve is running",
            headers={"retry-after": "1"},
        )
    return Response(b'{"status":"ok"}', media_type="application/json")


@router.get(
    "/metrics",
    operation_id="getMetrics",
    tags=["operations"],
    summary="Prometheus metrics (text exposition format)",
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "Prometheus text format 0.0.4",
        }
    },
)
async def metrics(request: Request) -> Response:
    body, content_type = request.app.state.metrics.exposition()
    return Response(body, media_type=content_type)


@router.get(
    "/problems/{slug}",
    operation_id="getProblemType",
    tags=["operations"],
    summary="What a problem type means",
    responses={404: {"model": ProblemDetail, "description": "No such problem type"}},
)
async def problem_type(
    slug: Annotated[str, Path(json_schema_extra={"enum": sorted(PROBLEM_TYPES)})],
) -> Response:
    kind = PROBLEM_TYPES.get(slug)
    if kind is None:
        raise ProblemError(
            "not-found",
            f"there is no problem type {slug!r}; known types: " + ", ".join(sorted(PROBLEM_TYPES)),
        )
    description = {
        "type": kind.uri,
        "title": kind.title,
        "status": kind.status,
        "description": kind.description,
    }
    return Response(json.dumps(description).encode(), media_type="application/json")


@router.get("/openapi.json", include_in_schema=False)
async def openapi_document(request: Request) -> Response:
    return Response(json.dumps(request.app.openapi()).encode(), media_type="application/json")


@router.get("/docs", include_in_schema=False)
async def docs() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="tictactoe-service API",
        swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js",
        swagger_css_url=f"{SWAGGER}/swagger-ui.css",
        swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
    )


@router.get("/", include_in_schema=False)
async def playground() -> FileResponse:
    return FileResponse(STATIC_DIR / "playground" / "index.html")

"""The application: wiring of settings, engine, routes and middleware.

``create_app(settings)`` builds an app; the module attribute ``app`` (built on
first access, from the environment) is what ``uvicorn service.app:app`` serves.
Middleware, outermost first: request observation (id, access log, metrics),
CORS, the per-client limits on ``/v1`` (who the client is, its bucket, the
RateLimit headers), the request guard (bodies, HEAD, unexpected errors).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.staticfiles import StaticFiles

from service import __version__
from service.api import routes, system
from service.api.guards import RequestGuard
from service.api.limits import (
    Buckets,
    ClientLimits,
    Identify,
    Limits,
    RedisBuckets,
    parse_networks,
)
from service.api.metrics import Metrics
from service.api.observe import RequestObserver, configure_access_log
from service.api.openapi import install_openapi
from service.api.problems import install_problem_handlers
from service.api.replay import AnswerCache
from service.api.solver import Solver
from service.engine import Engine, book, store
from service.settings import Settings

DESCRIPTION = """Move suggestions for tic-tac-toe and m,n,k-games, k in a row, from 3x3 to
20x20: exact up to 7x7 and wherever the exact core finishes on boards with a side of 8, a
threat-and-pattern search beyond.

Scores are from the point of view of the side to move: a win whose final move is n plies
away scores cells + 1 - n, a loss the negative, a draw 0; estimates lie strictly between
-1 and 1 and come with `exact: false`. Errors are RFC 9457 problems."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    engine = Engine(
        node_budget=settings.node_budget,
        table_bytes=settings.table_mb * 2**20,
        answer_entries=settings.answer_entries,
    )
    replays = AnswerCache(settings.response_cache_entries)
    limits = build_limits(settings)
    solver = Solver(
        engine,
        search_threads=settings.search_threads,
        search_queue=settings.search_queue,
        batch_node_budget=settings.batch_node_budget,
        search_deadline_ms=settings.search_deadline_ms,
        batch_deadline_ms=settings.batch_deadline_ms,
        limits=limits,
    )
    metrics = Metrics(engine, replays, solver.admission, limits)
    engine.observer = metrics.observe_search

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.stopping = False
        warm_up = None if app.state.ready else asyncio.create_task(_solve_at_start_up(app))
        yield
        app.state.stopping = True
        if warm_up is not None:
            await warm_up
        if isinstance(limits.store, RedisBuckets):
            await limits.store.close()

    app = FastAPI(
        title="tictactoe-service",
        version=__version__,
        description=DESCRIPTION,
        openapi_url=None,  # served by system.router, as a route with a template label
        docs_url=None,  # served by system.router from packaged assets, not a CDN
        redoc_url=None,
        # Paths are exact: Starlette's slash redirect builds its Location from the
        # Host header, which the client chooses. /v1/move/ is a 404 problem instead.
        redirect_slashes=False,
        lifespan=lifespan,
    )
    state = app.state
    state.settings = settings
    state.engine = engine
    state.solver = solver
    state.limits = limits
    state.metrics = metrics
    state.ready = False
    state.stopping = False
    state.observe_move = lambda difficulty: metrics.moves.labels(difficulty.value).inc()
    state.replays = replays
    state.observe_batch = metrics.observe_batch

    install_problem_handlers(app)
    app.include_router(routes.router)
    app.include_router(system.router)
    app.mount("/static", StaticFiles(directory=system.STATIC_DIR), name="static")
    install_openapi(app)

    app.add_middleware(
        RequestGuard,
        body_limit=settings.body_limit_bytes,
        batch_body_limit=settings.batch_body_limit_bytes,
        batch_path=routes.BATCH_PATH,
        answers=replays,
        replayable_paths=frozenset({routes.MOVE_PATH, routes.ANALYSIS_PATH}),
        on_replay=metrics.observe_replay,
    )
    if limits.enabled:
        v1_routes = {route.path: route for route in routes.router.routes}  # type: ignore[attr-defined]
        app.add_middleware(ClientLimits, limits=limits, routes=v1_routes)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origin_list,
        allow_credentials=False,
        allow_methods=["GET", "POST"],
        allow_headers=["Content-Type", "If-None-Match", "X-Request-ID", "X-API-Key"],
        expose_headers=["ETag", "X-Request-ID", "RateLimit", "RateLimit-Policy", "Retry-After"],
        max_age=600,
    )
    app.add_middleware(RequestObserver, metrics=metrics)
    configure_access_log(settings.log_level)
    return app


def build_limits(settings: Settings) -> Limits:
    """Who clients are and where their buckets live, from the settings."""
    memory = Buckets(settings.rate_limit_clients)
    store: Buckets | RedisBuckets = memory
    if settings.rate_limit_store != "memory":
        store = RedisBuckets(settings.rate_limit_store, fallback=memory)
    identify = Identify(
        settings.anonymous_quota,
        settings.api_keys,
        parse_networks(settings.trusted_proxies),
        settings.require_api_key,
        settings.forwarded_header,
    )
    return Limits(identify, store)


async def _solve_at_start_up(app: FastAPI) -> None:
    """The opening book and the stores of proven positions into the table, then
    every 3x3 position into the answers."""
    engine: Engine = app.state.engine
    started = time.perf_counter()
    await anyio.to_thread.run_sync(lambda: book.load().install(engine))
    await anyio.to_thread.run_sync(lambda: store.install_all(engine))
    await anyio.to_thread.run_sync(engine.solve_game)
    app.state.metrics.startup_solve.set(time.perf_counter() - started)
    app.state.ready = True


_default_app: FastAPI | None = None


def __getattr__(name: str) -> FastAPI:
    """Build ``app`` from the environment on first access, not at import."""
    global _default_app  # noqa: PLW0603 - one app per process, built lazily
    if name == "app":
        if _default_app is None:
            _default_app = create_app()
        return _default_app
    raise AttributeError(name)

"""The HTTP application: wiring of settings, engine and routes.

``create_app(settings)`` builds an app; the module attribute ``app`` (built on
first access, from the environment) is what ``uvicorn service.app:app`` serves.
"""

from __future__ import annotations

from fastapi import FastAPI

from service import __version__
from service.engine import Engine
from service.settings import Settings


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    engine = Engine(
        node_budget=settings.node_budget,
        cache_entries=settings.cache_entries,
        answer_entries=settings.answer_entries,
    )
    app = FastAPI(title="tictactoe-service", version=__version__)
    app.state.settings = settings
    app.state.engine = engine

    @app.get("/livez")
    def livez() -> dict[str, str]:
        return {"status": "ok"}

    return app


_default_app: FastAPI | None = None


def __getattr__(name: str) -> FastAPI:
    """Build ``app`` from the environment on first access, not at import."""
    global _default_app  # noqa: PLW0603 - one app per process, built lazily
    if name == "app":
        if _default_app is None:
            _default_app = create_app()
        return _default_app
    raise AttributeError(name)

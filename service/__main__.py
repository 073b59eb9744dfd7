"""``python -m service`` / ``tictactoe-service``: serve the app with uvicorn.

One process (no workers: see ``service/api/metrics.py``), uvloop when installed,
httptools with a size and a time limit on each request head
(``service/api/connection.py``), and a graceful shutdown: on SIGTERM
``/readyz`` turns 503 at once, the listening socket closes, requests in flight
are answered, and the process exits within ``TTT_GRACEFUL_TIMEOUT_SECONDS``.

``--openapi`` prints the app's OpenAPI document instead of serving (``make
openapi`` writes it to ``openapi/openapi.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from collections.abc import Sequence

import uvicorn
from fastapi import FastAPI

from service.api.connection import bounded_protocol
from service.app import create_app
from service.settings import Settings


class Server(uvicorn.Server):
    """Uvicorn's server, telling the app the moment shutdown begins."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.service_app = app

    def handle_exit(self, sig: int, frame: types.FrameType | None) -> None:
        state = self.service_app.state
        if not state.stopping:
            state.stopping = True
            state.solver.drain(state.settings.graceful_timeout_seconds)
        super().handle_exit(sig, frame)


def build_server(settings: Settings) -> Server:
    """The server ``main`` runs: the app, and uvicorn configured from ``settings``."""
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        http=bounded_protocol(
            settings.header_limit_bytes,
            settings.header_timeout_seconds,
            on_refusal=app.state.metrics.observe_refused_head,
        ),
        timeout_graceful_shutdown=settings.graceful_timeout_seconds,
        server_header=False,
        access_log=False,  # the app writes one JSON line per request
    )
    return Server(config, app)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="tictactoe-service",
        description="Serve the move-suggestion API; every setting is a TTT_* environment variable.",
    )
    parser.add_argument(
        "--openapi", action="store_true", help="print the OpenAPI document and exit"
    )
    arguments = parser.parse_args(argv)
    settings = Settings()
    if arguments.openapi:
        json.dump(create_app(settings).openapi(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    server = build_server(settings)
    print(f"tictactoe-service on http://{settings.host}:{settings.port}/", flush=True)
    server.run()


if __name__ == "__main__":
    main()

"""``python -m service`` / ``tictactoe-service``: serve the app with uvicorn."""

from __future__ import annotations

import uvicorn

from service.app import create_app
from service.settings import Settings


def main() -> None:
    settings = Settings()
    print(f"tictactoe-service listening on http://{settings.host}:{settings.port}/", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        timeout_graceful_shutdown=settings.graceful_timeout_seconds,
        server_header=False,
    )


if __name__ == "__main__":
    main()

"""One real server for every client test, with a small batch limit so that
batches of a few requests already span several chunks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server import RunningServer, running_server

BATCH_LIMIT = 5


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    logs = tmp_path_factory.mktemp("client-server")
    with running_server(logs, TTT_BATCH_LIMIT=str(BATCH_LIMIT), TTT_LOG_LEVEL="warning") as running:
        yield running

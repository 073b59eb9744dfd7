"""One real server for every client test, with a small batch limit so that
batches of a few requests already span several chunks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server import RunningServer, running_server

BATCH_LIMIT = 5
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    logs = tmp_path_factory.mktemp("client-server")
    with running_server(logs, TTT_BATCH_LIMIT=str(BATCH_LIMIT), TTT_LOG_LEVEL="warning") as running:
        yield running


def documented_example(opening: str, url: str) -> str:
    """The code block of docs/clients.md that starts with ``opening``, aimed at ``url``."""
    manual = (ROOT / "docs" / "clients.md").read_text()
    found = re.findall(r"^```\w+\n(" + re.escape(opening) + r".*?)^```$", manual, re.M | re.S)
    assert len(found) == 1, f"docs/clients.md has {len(found)} blocks opening with {opening!r}"
    return found[0].replace("http://127.0.0.1:8000", url)

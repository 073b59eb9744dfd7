"""An app per test module, with the start-up solve done, behind Starlette's TestClient."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(batch_limit=5, node_budget=20_000))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        for _ in range(200):
            if app.state.ready:
                break
            test_client.get("/livez")
        yield test_client

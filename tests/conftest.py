"""Shared test settings and fixtures.

Hypothesis runs derandomized, so CI is reproducible; ``client`` is an app per
test module, with the start-up solve done, behind Starlette's TestClient.
"""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from service.app import create_app
from service.settings import Settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("ci")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(batch_limit=5, node_budget=20_000))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        for _ in range(200):
            if app.state.ready:
                break
            test_client.get("/livez")
        yield test_client

"""Shared test settings and fixtures.

Hypothesis runs derandomized, so CI is reproducible; ``client`` is an app per
test module, with the start-up solve done, behind Starlette's TestClient.
``HYPOTHESIS_PROFILE=mutation`` (``make mutation``) keeps the examples and only
skips shrinking: a mutant needs a failure, not the smallest one.
"""

import os
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, settings

from service.app import create_app
from service.settings import Settings
from tests.ops.waiting import ready

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "mutation", settings.get_profile("ci"), phases=(Phase.explicit, Phase.reuse, Phase.generate)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(batch_limit=5, node_budget=20_000))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        # Ready once the start-up solve is done: waited for, not counted in polls.
        ready(test_client)
        yield test_client

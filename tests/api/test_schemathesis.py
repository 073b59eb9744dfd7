"""The committed OpenAPI document, exercised by schemathesis with all its checks.

Positive and negative cases, a fixed seed (derandomized hypothesis profile),
at least 200 examples per operation. A small node budget keeps big boards fast.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from service.app import create_app
from service.settings import Settings
from tests.server import UNREACHED_LIMITS

app = create_app(Settings(node_budget=2_000, batch_limit=10, **UNREACHED_LIMITS))
app.state.ready = True
# The app's document, read without a request: loading it through the ASGI client
# (from_asgi) would start schemathesis's event-loop thread at import, and a
# process forked after that (mutmut forks one per mutant) would wait on a
# thread it does not have. The cases still go to the app.
schema = schemathesis.openapi.from_dict(app.openapi())
schema.app = app


@schema.parametrize()
@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
def test_api_conforms_to_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate()

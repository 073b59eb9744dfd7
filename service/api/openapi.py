"""The OpenAPI document: FastAPI's, corrected to say what the service really sends.

Problems are ``application/problem+json`` (not ``application/json``), the
framework's default 422 schema is replaced by our problem schema, and every
operation lists the problems any route can answer with. ``python -m service
--openapi`` (``make openapi``) prints the document that ``openapi/openapi.json``
holds: the app is built above this module, which only corrects its document.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

PROBLEM_REF = {"$ref": "#/components/schemas/ProblemDetail"}
# Answers any route may give, whatever its own responses: the framework's and ours.
EVERY_ROUTE = {
    "404": "No route at this path (only for paths outside the document).",
    "405": "The method is not allowed here.",
    "406": "The client does not accept JSON.",
    "408": "The request line and headers did not arrive within TTT_HEADER_TIMEOUT_SECONDS.",
    "431": "The request line and headers are larger than TTT_HEADER_LIMIT_BYTES.",
    "500": "An internal error (logged with the request id).",
}


# What every /v1 answer carries (limits.py), and what a refusal adds.
RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "description": "The client's quotas (draft-ietf-httpapi-ratelimit-headers): "
        '`"default";q=400;w=20` (work units, and the seconds an empty bucket takes to '
        'fill), `"searches";q=4;qu="concurrent-requests"`.',
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'What is left of the units: `"default";r=380;t=1` (remaining, and '
        "seconds until the bucket is full).",
        "schema": {"type": "string"},
    },
}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer"},
    }
}
API_KEY_SCHEME = {
    "type": "apiKey",
    "in": "header",
    "name": "X-API-Key",
    "description": "Optional unless the server requires keys: a known key gets its own "
    "quota; an unknown one is anonymous (limited by address).",
}


def build_openapi(app: FastAPI) -> dict[str, Any]:
    spec = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    # FastAPI's document always has these: schemas (the request models), paths
    # and each operation's responses.
    schemas = spec["components"]["schemas"]
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    spec["components"]["securitySchemes"] = {"ApiKey": API_KEY_SCHEME}
    for path, path_item in spec["paths"].items():
        for operation in path_item.values():
            responses = operation["responses"]
            for code in ("405", "408", "431", "500"):
                responses.setdefault(code, {"description": EVERY_ROUTE[code]})
            for code, response in responses.items():
                if code.startswith(("4", "5")):
                    response["content"] = {"application/problem+json": {"schema": PROBLEM_REF}}
                    if code == "422":
                        response["description"] = "A problem (RFC 9457)"
            if path.startswith("/v1/"):
                operation["security"] = [{}, {"ApiKey": []}]
                for code, response in responses.items():
                    if code not in ("404", "405", "408", "431"):
                        response["headers"] = {
                            **RATE_LIMIT_HEADERS,
                            **(RETRY_AFTER if code in ("429", "503") else {}),
                        }
    return spec


def install_openapi(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

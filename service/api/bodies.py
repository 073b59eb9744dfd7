"""JSON request bodies, read and validated in one pass: bytes to model.

For a route whose only inputs are the request and one JSON body model,
FastAPI's generic path (``json.loads``, a second media-type check, dependency
solving, then validation of the decoded dict) costs more than the rest of a
cached answer. Pydantic's JSON mode decodes and validates at once. The route
keeps its declared body, so the OpenAPI document does not change, and errors
keep FastAPI's ``("body", ...)`` locations, so the problems do not either.
``RequestGuard`` has already checked the size and the media type.

This uses FastAPI's documented extension point, a custom ``APIRoute`` class;
any route that takes more than a body (query parameters, dependencies) or
returns something other than a ``Response`` is left to FastAPI as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class JsonBodyRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        model = self.body_field.field_info.annotation if self.body_field else None
        returns = inspect.signature(self.endpoint, eval_str=True).return_annotation
        if (
            not (isinstance(model, type) and issubclass(model, BaseModel))
            or not (isinstance(returns, type) and issubclass(returns, Response))
            or _takes_more(self.dependant)
        ):
            return super().get_route_handler()
        return _json_body_handler(self.endpoint, self.dependant, model)


def _takes_more(dependant: Dependant) -> bool:
    """Whether the endpoint takes anything besides the request and one body."""
    return len(dependant.body_params) != 1 or bool(
        dependant.dependencies
        or dependant.path_params
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
    )


def _json_body_handler(
    endpoint: Callable[..., Coroutine[Any, Any, Response]],
    dependant: Dependant,
    model: type[BaseModel],
) -> Handler:
    body_name = dependant.body_params[0].name
    request_name = dependant.request_param_name

    async def handle(request: Request) -> Response:
        raw = await request.body()
        if not raw:  # as FastAPI says it: the body is missing
            raise RequestValidationError(
                [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
            )
        try:
            body = model.model_validate_json(raw)
        except ValidationError as error:
            raise RequestValidationError(
                [{**e, "loc": ("body", *e["loc"])} for e in error.errors(include_url=False)]
            ) from None
        arguments: dict[str, Any] = {body_name: body}
        if request_name is not None:
            arguments[request_name] = request
        return await endpoint(**arguments)

    return handle

"""The request guard: what a request may be before a route sees it, at the ASGI level.

It owns the limits on what a client may send: the body size (413 as soon as
the declared or received length passes the limit, never after reading it
whole), the time the whole body may take to arrive (408), and the media type
of JSON bodies (415). It answers HEAD wherever GET is answered (the GET
response without its body, as RFC 9110 asks), and it is the last barrier for
unexpected exceptions: they become the generic ``internal`` problem here,
inside CORS and the request observer, so the answer still carries the request
id and CORS headers. It knows nothing about routes beyond the batch path.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import internal_problem, problem_response

log = logging.getLogger("service.api")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


# HTTPExceptions, because FastAPI turns any other exception raised while it reads
# a body into a generic 400; these pass through it to the problem handlers.
class _BodyTooLargeError(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, _too_large(limit), headers={"connection": "close"})


class _BodyTimeoutError(HTTPException):
    def __init__(self, seconds: float) -> None:
        super().__init__(
            408,
            f"the body did not arrive within {seconds:g} s; send it whole",
            headers={"connection": "close"},
        )


class RequestGuard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        body_limit: int,
        batch_body_limit: int,
        batch_path: str,
        body_timeout: float = 10.0,
    ) -> None:
        self.app = app
        self.body_limit = body_limit
        self.batch_body_limit = batch_body_limit
        self.batch_path = batch_path
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            if scope["method"] == "HEAD":
                await self.app({**scope, "method": "GET"}, receive, _without_body(tracked_send))
            elif scope["method"] in BODY_METHODS:
                await self._with_body(scope, receive, tracked_send)
            else:
                await self.app(scope, receive, tracked_send)
        except Exception:
            request_id = scope.get("state", {}).get("request_id", "-")
            log.exception("unhandled error (request id %s)", request_id)
            if not started:
                await internal_problem(request_id, scope.get("path"))(scope, receive, send)

    async def _with_body(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        limit = self.batch_body_limit if path == self.batch_path else self.body_limit
        declared = None
        content_type = b""
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"content-type":
                content_type = value
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(scope, send, "body-too-large", _too_large(limit))
            return
        # Only POST takes a JSON body here; other methods go on to their 405.
        if scope["method"] == "POST" and path.startswith("/v1/") and not _is_json(content_type):
            detail = (
                f"this endpoint takes JSON; send Content-Type: application/json "
                f"(got {content_type.decode('latin-1') or 'none'})"
            )
            await _refuse(scope, send, "unsupported-media-type", detail)
            return

        received = 0
        body_done = False
        deadline: float | None = None

        async def guarded_receive() -> Message:
            nonlocal received, body_done, deadline
            if body_done:
                return await receive()
            if deadline is None:  # one deadline for the whole body, not per chunk
                deadline = asyncio.get_running_loop().time() + self.body_timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise _BodyTimeoutError(self.body_timeout) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLargeError(limit)
                body_done = not message.get("more_body", False)
            return message

        await self.app(scope, guarded_receive, send)


def _without_body(send: Send) -> Send:
    async def send_headers_only(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return send_headers_only


def _too_large(limit: int) -> str:
    return f"the body must be at most {limit} bytes; send fewer or smaller requests"


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


async def _refuse(scope: Scope, send: Send, slug: str, detail: str) -> None:
    # Closing the connection: the rest of the body will not be read.
    response = problem_response(
        slug, detail, instance=scope.get("path"), headers={"connection": "close"}
    )
    await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}

"""Request body guards, at the ASGI level, before any route reads a byte.

This middleware owns the limits on what a client may send: the body size (413
as soon as the declared or received length passes the limit, never after
reading it whole), the time a body may take to arrive (408), and the media
type of JSON endpoints (415). It answers with problem responses and knows
nothing about routes beyond the batch path's larger limit.
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import problem_response

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
BATCH_PATH = "/v1/batch"


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


class BodyGuard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        body_limit: int,
        batch_body_limit: int,
        body_timeout: float = 10.0,
    ) -> None:
        self.app = app
        self.body_limit = body_limit
        self.batch_body_limit = batch_body_limit
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        limit = self.batch_body_limit if path == BATCH_PATH else self.body_limit
        declared = None
        content_type = b""
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"content-type":
                content_type = value
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._refuse(scope, receive, send, "body-too-large", _too_large(limit))
            return
        if path.startswith("/v1/") and not _is_json(content_type):
            detail = (
                f"this endpoint takes JSON; send Content-Type: application/json "
                f"(got {content_type.decode('latin-1') or 'none'})"
            )
            await self._refuse(scope, receive, send, "unsupported-media-type", detail)
            return

        received = 0
        body_done = False
        started = False

        async def guarded_receive() -> Message:
            nonlocal received, body_done
            if body_done:
                return await receive()
            try:
                async with asyncio.timeout(self.body_timeout):
                    message = await receive()
            except TimeoutError:
                raise _BodyTimeoutError(self.body_timeout) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLargeError(limit)
                body_done = not message.get("more_body", False)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, guarded_receive, tracked_send)
        except (_BodyTooLargeError, _BodyTimeoutError) as refused:
            # Reached only where no exception handler ran (a route that reads the
            # body outside FastAPI's request handling).
            if not started:
                slug = "body-too-large" if refused.status_code == 413 else "body-timeout"
                await _send_problem(scope, send, slug, refused.detail)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, slug: str, detail: str
    ) -> None:
        await _send_problem(scope, send, slug, detail)


def _too_large(limit: int) -> str:
    return f"the body must be at most {limit} bytes; send fewer or smaller requests"


def _is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


async def _send_problem(scope: Scope, send: Send, slug: str, detail: str) -> None:
    # Closing the connection: the rest of the body will not be read.
    response = problem_response(
        slug, detail, instance=scope.get("path"), headers={"connection": "close"}
    )
    await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}

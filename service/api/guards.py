"""The request guard: what a request may be before a route sees it, at the ASGI level.

It owns the limits on what a client may send: the body size (413 as soon as
the declared or received length passes the limit, never after reading it
whole), the time the whole body may take to arrive (408), and the media type
of JSON bodies (415, also for any ``Content-Encoding`` but ``identity``: bodies
are never decompressed). It replays stored answers to repeated bodies
(``replay.py``) before routing. It answers HEAD wherever GET is answered (the GET
response without its body, as RFC 9110 asks), and it is the last barrier for
unexpected exceptions: they become the generic ``internal`` problem here,
inside CORS and the request observer, so the answer still carries the request
id and CORS headers. A client that left (``ClientDisconnect``) is not one of
them: it passes to the observer, which counts it as 499. It knows nothing
about routes beyond the batch path.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import internal_problem, problem_response
from service.api.replay import (
    REPLAYABLE,
    REPLAYED_DIFFICULTY,
    AnswerCache,
    StoredAnswer,
    etag_matches,
)

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
        answers: AnswerCache,
        replayable_paths: frozenset[str],
        on_replay: Callable[[StoredAnswer], None],
        body_timeout: float = 10.0,
    ) -> None:
        self.app = app
        self.body_limit = body_limit
        self.batch_body_limit = batch_body_limit
        self.batch_path = batch_path
        self.answers = answers
        self.replayable_paths = replayable_paths
        self.on_replay = on_replay
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
                await self._head(scope, receive, tracked_send)
            elif scope["method"] in BODY_METHODS:
                await self._with_body(scope, receive, tracked_send)
            elif scope["method"] == "GET" and self._replayable(scope):
                await self._replay_or_answer(scope, receive, tracked_send, scope["query_string"])
            else:
                await self.app(scope, receive, tracked_send)
        except ClientDisconnect:
            raise  # no one to answer: the observer counts it as 499
        except Exception:
            request_id = scope.get("state", {}).get("request_id", "-")
            log.exception("unhandled error (request id %s)", request_id)
            if not started:
                await internal_problem(request_id, scope.get("path"))(scope, receive, send)

    async def _head(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The GET answer without its body, counted under the route GET matched."""
        as_get = {**scope, "method": "GET"}
        try:
            await self.app(as_get, receive, _without_body(send))
        finally:
            for key in ("route", "root_path"):  # what the observer labels the request by
                if key in as_get:
                    scope[key] = as_get[key]

    async def _with_body(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        limit = self.batch_body_limit if path == self.batch_path else self.body_limit
        declared = None
        content_type = b""
        encodings: list[bytes] = []
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value
            elif name == b"content-type":
                content_type = value
            elif name == b"content-encoding":
                encodings += [token.strip().lower() for token in value.split(b",")]
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(scope, send, "body-too-large", _too_large(limit))
            return
        # Only POST takes a JSON body here; other methods go on to their 405.
        takes_json = scope["method"] == "POST" and path.startswith("/v1/")
        coded = [coding for coding in encodings if coding not in (b"", b"identity")]
        if takes_json and coded:
            # Refused on the label, not the bytes: a body that says gzip is never guessed at.
            detail = (
                "compressed bodies are not accepted; send the JSON uncompressed, without "
                f"Content-Encoding (got {b', '.join(coded).decode('latin-1')})"
            )
            await _refuse(
                scope, send, "unsupported-media-type", detail, {"accept-encoding": "identity"}
            )
            return
        if takes_json and not _is_json(content_type):
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

        if self._replayable(scope):
            await self._read_then_replay_or_answer(scope, guarded_receive, send)
        else:
            await self.app(scope, guarded_receive, send)

    def _replayable(self, scope: Scope) -> bool:
        return self.answers.enabled and scope["path"] in self.replayable_paths

    async def _read_then_replay_or_answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks = []
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    raise ClientDisconnect("the client left before sending its body")
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
        except (_BodyTooLargeError, _BodyTimeoutError) as refused:
            slug = "body-too-large" if refused.status_code == 413 else "body-timeout"
            await _refuse(scope, send, slug, refused.detail)
            return
        await self._replay_or_answer(scope, receive, send, b"".join(chunks), body=True)

    async def _replay_or_answer(
        self, scope: Scope, receive: Receive, send: Send, key: bytes, body: bool = False
    ) -> None:
        """Answer from the answer cache, or let the app answer and keep a replayable one.

        ``key`` is the request's body (POST) or query string (GET); the app sees
        the body again when ``body`` is set.
        """
        kind = f"{scope['method']} {scope['path']}"
        stored = self.answers.get(kind, key)
        if stored is not None:
            scope["route"] = stored.route
            self.on_replay(stored)
            if etag_matches(_header(scope, b"if-none-match"), stored.etag):
                kept = [(n, v) for n, v in stored.headers if n in (b"etag", b"cache-control")]
                await send({"type": "http.response.start", "status": 304, "headers": kept})
                await send({"type": "http.response.body", "body": b""})
                return
            await send(
                {"type": "http.response.start", "status": 200, "headers": list(stored.headers)}
            )
            await send({"type": "http.response.body", "body": stored.body})
            return

        replayed = not body

        async def replay_receive() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": key, "more_body": False}
            return await receive()

        status = 0
        headers: tuple[tuple[bytes, bytes], ...] = ()
        sent: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = tuple(message.get("headers", ()))
            elif message["type"] == "http.response.body":
                sent.append(message.get("body", b""))
            await send(message)

        await self.app(scope, replay_receive, capture)
        state = scope.get("state", {})
        if status == 200 and state.get(REPLAYABLE):
            self.answers.put(
                kind,
                key,
                StoredAnswer(
                    b"".join(sent), scope.get("route"), state.get(REPLAYED_DIFFICULTY), headers
                ),
            )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


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


async def _refuse(
    scope: Scope, send: Send, slug: str, detail: str, headers: dict[str, str] | None = None
) -> None:
    # Closing the connection: the rest of the body will not be read.
    response = problem_response(
        slug, detail, instance=scope.get("path"), headers={**(headers or {}), "connection": "close"}
    )
    await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}

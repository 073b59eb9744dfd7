"""Per-request observation: request id, JSON access log line, HTTP metrics.

Outermost middleware: it sees every request, including those the guards refuse
and those that crash. A client's ``X-Request-ID`` is kept when it is sane
(1-128 characters of letters, digits and ``._:-``), otherwise one is generated;
it is echoed on the response and written in the access log. The route label is
the matched route's template; unmatched paths share one label value, so no
client can create new metric series. A request whose client left before its
answer (Starlette's ``ClientDisconnect``, from a body read or a stopped search)
is counted and logged with status 499, nginx's "client closed request": not a
server error, and nothing to answer. The log names the client of a ``/v1``
request as ``limits.py`` identified it: ``key:`` and the first 16 hex digits of
its API key's SHA-256 (never the key), or ``ip:`` and its address.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.metrics import UNMATCHED_ROUTE, Metrics

SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._:\-]{1,128}")
# Any other method a client invents is counted as "other": labels stay bounded.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
CLIENT_CLOSED_REQUEST = 499
access_log = logging.getLogger("service.access")


def configure_access_log(level: str) -> None:
    """One JSON object per line on stdout, nothing else in the line."""
    if access_log.handlers:
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    access_log.addHandler(handler)
    access_log.setLevel(logging.INFO if level in ("info", "debug") else logging.WARNING)
    access_log.propagate = False


class RequestObserver:
    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = None
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                if SANE_REQUEST_ID.fullmatch(value):
                    request_id = value.decode()
                break
        if request_id is None:
            request_id = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        id_header = (b"x-request-id", request_id.encode())
        status = 500
        started = time.perf_counter()
        in_flight = self.metrics.in_flight
        in_flight.inc()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), id_header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:
            status = CLIENT_CLOSED_REQUEST
        finally:
            in_flight.dec()
            elapsed = time.perf_counter() - started
            template = _template(scope)
            method = scope["method"] if scope["method"] in KNOWN_METHODS else "other"
            self.metrics.requests.labels(method, template, str(status)).inc()
            self.metrics.duration.labels(method, template).observe(elapsed)
            if access_log.isEnabledFor(logging.INFO):
                client = scope["state"].get("client")
                access_log.info(
                    json.dumps(
                        {
                            "ts": round(time.time(), 3),
                            "method": method,
                            "route": template,
                            "status": status,
                            "duration_ms": round(elapsed * 1000, 3),
                            "request_id": request_id,
                            "client": client.key if client is not None else None,
                        },
                        separators=(",", ":"),
                    )
                )


def _template(scope: Scope) -> str:
    """The matched route's template, the mount for static files, or "unmatched"."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    if scope.get("root_path"):
        return f"{scope['root_path']}/{{path}}"
    return UNMATCHED_ROUTE

"""When to send a request again, and how long to wait first.

Only a ``503`` (the server is starting, stopping or its search queue is full),
a ``429`` (this client is over its quota: its rate, or its searches running at
once) and a failure to reach the server or to hear back are retried: every
call asks a question whose answer does not depend on how often it is asked, so
sending it again is safe. Any other answer, every other 4xx included, is final.

Waits double from :data:`FIRST_WAIT` up to :data:`MAX_WAIT`; a ``Retry-After``
header (seconds or an HTTP date) lengthens the wait to what it asks, up to
:data:`MAX_RETRY_AFTER`. A ``429`` and a ``503`` draw on the same retries.
"""

from __future__ import annotations

import email.utils
import time

import httpx

DEFAULT_RETRIES = 3
FIRST_WAIT = 0.5
MAX_WAIT = 8.0
MAX_RETRY_AFTER = 30.0
RETRIED_STATUSES = frozenset({429, 503})
# Connection refused or reset, timeouts, a connection closed mid-answer.
RETRIED_ERRORS = (httpx.NetworkError, httpx.TimeoutException, httpx.RemoteProtocolError)


class Backoff:
    """The retries left for one call. Each method answers the seconds to wait
    before trying again, or ``None`` when the call has to stop here.

    >>> backoff = Backoff(retries=3)
    >>> [backoff.after_error() for _ in range(4)]
    [0.5, 1.0, 2.0, None]
    """

    def __init__(self, retries: int) -> None:
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, not {retries}")
        self.retries = retries
        self.done = 0

    def after_error(self) -> float | None:
        """A transport error: wait, or ``None`` to re-raise it."""
        return self._next(None)

    def after_response(self, response: httpx.Response) -> float | None:
        """An answer: wait before sending again, or ``None`` to accept it."""
        if response.status_code not in RETRIED_STATUSES:
            return None
        return self._next(retry_after(response.headers.get("retry-after")))

    def _next(self, asked: float | None) -> float | None:
        if self.done >= self.retries:
            return None
        wait = min(FIRST_WAIT * 2.0**self.done, MAX_WAIT)
        self.done += 1
        if asked is not None:
            wait = max(wait, min(asked, MAX_RETRY_AFTER))
        return wait


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for; ``None`` when absent or unreadable.

    >>> retry_after("2"), retry_after("soon"), retry_after(None)
    (2.0, None, None)
    >>> retry_after("Thu, 01 Jan 1970 00:01:40 GMT", now=40.0)
    60.0
    """
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    seconds = moment.timestamp() - (time.time() if now is None else now)
    return max(seconds, 0.0)

"""The HTTP/1.1 connection, below the ASGI app: how large and how slow a request head may be.

Uvicorn's httptools protocol feeds every byte it receives to the parser, and
while a header line is unfinished httptools keeps its value in memory (uvicorn
keeps the URL), with no limit on either and no time limit on the head: three
connections each sending an unfinished 50 MiB header grew the process by 150
MiB, and a client could hold a connection for ever by trickling header bytes.

:class:`BoundedHttpToolsProtocol` is that protocol with two bounds:

* **Size.** The request line and headers of each request, the blank line that
  ends them included, may take ``header_limit`` bytes. Bytes are fed to the
  parser in pieces that never pass the limit; once a head reaches it unfinished,
  the answer is ``431`` with the ``headers-too-large`` problem, and the rest of
  what the client sends is read and dropped, never kept.
* **Time.** A head must be complete ``header_timeout`` seconds after its first
  byte (for a connection's first request, after the connection opens); then
  the answer is ``408`` with the ``headers-timeout`` problem, or, when no byte
  of a request has arrived, the connection just closes.

Each request on a kept-alive or pipelined connection is measured on its own:
pieces are cut at the end of each head (its first blank line) and after each
``Content-Length`` body, so a body never counts as the next request's head.
After a chunked body, the next head is counted from the last blank line of the
piece that held the body's end (the end of a chunked body is such a line), an
upper bound that is exact unless more whole requests share that piece.

After a refusal the connection half-closes (the answer is flushed, then FIN)
and reads and drops for at most :data:`LINGER_SECONDS`, so that the client can
read the answer instead of a reset; a response already in flight on the
connection is finished first, and the connection closes after it. Refusals are
below the ASGI app, so ``http_requests_total`` never sees them: each is logged
by uvicorn's logger and reported, with its problem type as the reason, to the
``on_refusal`` callback that :func:`bounded_protocol` is given (the app's
metrics count them; this module knows nothing of metrics). A connection closed
because no byte of a request arrived is not a refusal: no request began, and
browsers open such connections in advance.
"""

from __future__ import annotations

import asyncio
import http
import json
from collections.abc import Callable

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.api.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPES, problem_body

# How long a refused connection is read (and dropped) after its answer, at most.
LINGER_SECONDS = 2.0
BLANK_LINE = b"\r\n\r\n"
# Why a head is refused: the problem types of the answers.
HEAD_REFUSALS = ("headers-too-large", "headers-timeout")


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """Uvicorn's httptools protocol with a size and a time limit on each request head."""

    header_limit = 16_384
    header_timeout = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._in_head = True  # between the end of one request and the end of the next head
        self._head_bytes = 0  # of the current head, fed to the parser so far
        self._head_tail = b""  # the head's last bytes: a blank line may straddle two reads
        self._body_left: int | None = None  # Content-Length bytes still to come; None: chunked
        self._message_done = False  # a request ended in the piece being fed
        self._refused = False
        self._head_deadline: float | None = None  # when the head in progress must be complete
        self._head_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        self._start_head_clock()  # a connection that never sends a byte is not kept either

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head_timer, self._linger_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._linger_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # read and dropped until the close
        start = 0
        while start < len(data):
            # Cut the piece where the parser's state changes: at the end of a head, at
            # the end of a Content-Length body, or at the size limit.
            exact = True  # whether a request that ends in this piece ends at its end
            if self._in_head:
                if self._head_deadline is None:
                    self._start_head_clock()
                end = self._head_piece_end(data, start)
            elif self._body_left is not None:
                end = min(len(data), start + self._body_left)
                self._body_left -= end - start
            else:  # a chunked body: where it ends is the parser's to find
                end = min(len(data), start + self.header_limit)
                exact = False
            self._message_done = False
            super().data_received(data if start == 0 and end == len(data) else data[start:end])
            if self.parser is None or self.transport.is_closing():
                return  # answered and closing (a parse error, a refusal by the app)
            if self.transport.get_protocol() is not self:  # upgraded: the rest is not ours
                if end < len(data):
                    self.transport.get_protocol().data_received(data[end:])  # type: ignore[attr-defined]
                return
            if self._in_head:
                self._count_head(data, start, end, exact)
                if self._head_bytes >= self.header_limit:
                    self._refuse_oversized_head()
                    return
                if self._head_bytes and self._head_deadline is None:
                    self._start_head_clock()  # a pipelined request began in this piece
            start = end

    def _head_piece_end(self, data: bytes, start: int) -> int:
        """The end of the head's blank line, or where the head would pass the limit."""
        stop = min(len(data), start + self.header_limit - self._head_bytes)
        if self._head_tail:  # a blank line begun at the end of the previous read
            found = (self._head_tail + data[start : start + 3]).find(BLANK_LINE)
            if found >= 0:
                return min(stop, start + found + len(BLANK_LINE) - len(self._head_tail))
        found = data.find(BLANK_LINE, start, stop)
        return found + len(BLANK_LINE) if found >= 0 else stop

    def _count_head(self, data: bytes, start: int, end: int, exact: bool) -> None:
        if not self._message_done:
            self._head_bytes += end - start
        elif exact:
            self._head_bytes = 0  # the request ended where the piece does
        else:
            # A chunked body ended inside this piece and another request began: count
            # what follows the piece's last blank line (the end of that body, or of a
            # later head).
            last = data.rfind(BLANK_LINE, start, end)
            self._head_bytes = end - (last + len(BLANK_LINE) if last >= 0 else start)
        self._head_tail = data[max(start, end - 3) : end] if self._head_bytes else b""

    # Parser callbacks, on top of uvicorn's.
    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._in_head = False
        self._head_bytes = 0
        self._head_tail = b""
        self._head_deadline = None  # the clock stops; its timer, if armed, will find so
        length = None
        chunked = False
        for name, value in self.headers:
            if name == b"content-length":
                length = value.strip()
            elif name == b"transfer-encoding":
                chunked = True
        if chunked or (length is not None and not length.isdigit()):
            self._body_left = None
        else:
            self._body_left = int(length) if length is not None else 0

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True
        self._message_done = True

    # The head clock. Its timer is not armed and cancelled for every request (that
    # costs about 0.8 us a request, a third of this class's overhead): when it fires,
    # it checks the deadline of the head in progress, if any, and waits for a later one.
    def _start_head_clock(self) -> None:
        self._head_deadline = self.loop.time() + self.header_timeout
        if self._head_timer is None:
            self._head_timer = self.loop.call_at(self._head_deadline, self._check_head_clock)

    def _check_head_clock(self) -> None:
        self._head_timer = None
        if self._head_deadline is None or self._refused or self.transport.is_closing():
            return
        if self.loop.time() < self._head_deadline:
            self._head_timer = self.loop.call_at(self._head_deadline, self._check_head_clock)
            return
        if self._head_bytes == 0 and not self._in_flight():
            self.transport.close()  # no request began: nothing to answer
            return
        self.logger.warning("Request headers did not arrive within %g s.", self.header_timeout)
        self._refuse(
            "headers-timeout",
            f"the request line and headers did not arrive within {self.header_timeout:g} s; "
            "send them whole",
        )

    def _refuse_oversized_head(self) -> None:
        self.logger.warning("Request headers larger than %d bytes.", self.header_limit)
        self._refuse(
            "headers-too-large",
            f"the request line and headers must be at most {self.header_limit} bytes; "
            "send fewer or shorter headers, and long data in a POST body",
        )

    def _in_flight(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def count_refusal(self, reason: str) -> None:
        """Called once for each refused head, ``reason`` one of :data:`HEAD_REFUSALS`."""

    def _refuse(self, slug: str, detail: str) -> None:
        self.count_refusal(slug)
        self._refused = True
        self._head_deadline = None
        if self._in_flight():
            # An answer is being written: it is the connection's last; no other may interleave.
            self.cycle.keep_alive = False
            return
        self.transport.write(_problem_bytes(slug, detail, self.server_state.default_headers))
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()
        self._linger_timer = self.loop.call_later(LINGER_SECONDS, self.transport.close)


def _problem_bytes(slug: str, detail: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    status = PROBLEM_TYPES[slug].status
    body = json.dumps(problem_body(slug, detail), separators=(",", ":")).encode()
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}".encode()]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [
        b"content-type: " + PROBLEM_MEDIA_TYPE.encode(),
        b"content-length: %d" % len(body),
        b"connection: close",
    ]
    return b"\r\n".join(lines) + BLANK_LINE + body


def bounded_protocol(
    header_limit: int,
    header_timeout: float,
    on_refusal: Callable[[str], None] | None = None,
) -> type[BoundedHttpToolsProtocol]:
    """The protocol class with these limits, for ``uvicorn.Config(http=...)``.

    ``on_refusal`` is called on the event loop with the reason of each refused
    head (a problem type of :data:`HEAD_REFUSALS`); it must not block.
    """

    class Configured(BoundedHttpToolsProtocol):
        def count_refusal(self, reason: str) -> None:
            if on_refusal is not None:
                on_refusal(reason)

    Configured.header_limit = header_limit
    Configured.header_timeout = header_timeout
    return Configured

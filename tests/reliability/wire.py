"""HTTP/1.1 on raw sockets, for tests that need many cheap clients or every byte in hand.

An HTTP client library costs more CPU per request than the server does; with
200 clients on a 2-core machine the client would be what is measured. A
:class:`Connection` writes the request bytes itself and reads one response
(``Content-Length`` framed, as the server always sends), nothing more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping


class Connection:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1:``port``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, bytes]:
        """Send one request, return (status, body). Raises on a short or odd answer."""
        lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        fields = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        if "content-length" not in fields:
            raise ValueError(f"no Content-Length in {status_line!r}: {fields}")
        payload = await self.reader.readexactly(int(fields["content-length"]))
        if fields.get("connection", "").lower() == "close":
            self.close()
        return status, payload

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()

"""The protocol's channel: the one way out for answers, and where stray output goes.

A manager reads every line on the brain's standard output as an answer (but
``MESSAGE`` and ``DEBUG`` lines), and Piskvork merges standard error into the
same pipe. So a word printed by a library, a warning or a traceback would be
read as a move. ``open_channel()``, at the brain's start:

* keeps the protocol on a duplicate of file descriptor 1, the only handle
  answers are written to (``Channel``), one whole line at a time under a lock;
* points descriptor 1 at standard error, so bytes written there below Python
  (a C library's ``printf``) never reach the protocol;
* makes ``sys.stdout``, Python's warnings and uncaught exceptions in threads
  ``MESSAGE`` lines, which every manager skips (and Piskvork shows).

A command's failure is the protocol module's to turn into ``ERROR`` or
``MESSAGE``. This module touches process state only in ``open_channel()``.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import warnings
from typing import TextIO


class Channel:
    """Writes protocol lines: one line each, never two halves of two lines."""

    def __init__(self, sink: TextIO) -> None:
        self.sink = sink
        self.lock = threading.Lock()

    def write(self, line: str) -> None:
        # A line break inside would start a line the manager reads as an answer.
        text = " ".join(line.splitlines())
        with self.lock:
            self.sink.write(text + "\n")
            self.sink.flush()

    def message(self, text: str) -> None:
        self.write(f"MESSAGE {text}")


class MessageStream(io.TextIOBase):
    """A text stream (for ``sys.stdout``) whose lines become MESSAGE lines."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.pending = ""
        self.lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self.lock:
            *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.channel.message(line)
        return len(text)

    def flush(self) -> None:
        """Nothing: a line is said when it is whole. (Python flushes
        ``sys.stdout`` at exit, and a brain says nothing after END.)"""


def open_channel() -> Channel:
    """The protocol on the process's standard output, and stray output kept off it."""
    sys.stdout.flush()
    protocol = os.fdopen(
        os.dup(sys.stdout.fileno()), "w", encoding="utf-8", errors="replace", newline="\n"
    )
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    channel = Channel(protocol)
    sys.stdout = MessageStream(channel)

    def show_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        channel.message(f"{category.__name__}: {message} ({filename}:{lineno})")

    warnings.showwarning = show_warning

    def thread_failed(args: threading.ExceptHookArgs) -> None:
        channel.message(f"internal error in a thread: {args.exc_type.__name__}: {args.exc_value}")

    threading.excepthook = thread_failed
    return channel


def open_input() -> TextIO:
    """Standard input, any line endings, bytes that are not UTF-8 replaced:
    a line the brain cannot decode is a line it answers, not a crash."""
    return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")

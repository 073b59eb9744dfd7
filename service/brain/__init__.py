"""The engine as a Gomocup brain: ``python -m service.brain`` and ``pbrain-tictactoe``.

The protocol has one implementation, in C (``service/brain/native/``,
docs/brain.md): the one the Linux and Windows executables run, reached here
through the extension's ``run_brain``. What is left to Python is what a
process must do before the brain starts, as ``native/main.c`` does for the
executables: keep the protocol's descriptor clean.

A manager reads every line on the brain's standard output as an answer but
``MESSAGE`` and ``DEBUG`` lines, and Piskvork merges standard error into the
same pipe. So ``main`` keeps the protocol on a duplicate of descriptor 1,
points descriptor 1 at standard error (bytes written below Python go there),
and makes ``sys.stdout``, Python's warnings and failures in threads
``MESSAGE`` lines, each written whole in one call (the C side writes its lines
whole too, so the two never split each other's). Once the brain has ended,
nothing more is said there.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import warnings
from typing import TextIO


class MessageLines(io.TextIOBase):
    """A text stream (for ``sys.stdout``) whose lines become MESSAGE lines on
    the protocol's descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = ""
        self.lock = threading.Lock()
        self.open = True

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self.lock:
            *lines, self.pending = (self.pending + text).split("\n")
            for line in lines:
                self.say(line)
        return len(text)

    def say(self, text: str) -> None:
        if self.open:  # nothing after the brain has ended
            line = "MESSAGE " + " ".join(text.splitlines()) + "\n"
            os.write(self.fd, line.encode("utf-8", "replace"))

    def flush(self) -> None:
        """Nothing: a line is said when it is whole."""


def main() -> None:
    """The brain on standard input and output, until END or the input's end."""
    sys.stdout.flush()
    protocol = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    talk = MessageLines(protocol)
    sys.stdout = talk

    def show_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        talk.say(f"{category.__name__}: {message} ({filename}:{lineno})")

    def thread_failed(args: threading.ExceptHookArgs) -> None:
        talk.say(f"internal error in a thread: {args.exc_type.__name__}: {args.exc_value}")

    warnings.showwarning = show_warning
    threading.excepthook = thread_failed
    # Imported after the descriptors are set: importing the engine hands the
    # core service/engine/evaluation.json's weights, the brain's evaluation.
    from service.engine import _core  # noqa: PLC0415 (after the descriptors: see above)

    try:
        _core.run_brain(sys.stdin.fileno(), protocol)
    finally:
        with talk.lock:
            talk.open = False
        os.close(protocol)

"""Start the real server (uvicorn, not the test client): as ``python -m service``
in a process of its own, or the same server on a thread of the test process."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from service.__main__ import build_server
from service.settings import Settings
from tests.ops.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
# For tests where one test process stands for many clients (drains, load
# shedding, floods of distinct boards): no per-client limits. The limits have
# tests of their own (tests/api/test_limits.py) and a benchmark (bench/fairness.py).
NO_CLIENT_LIMITS = {"TTT_RATE_LIMIT_RATE": "0", "TTT_CLIENT_SEARCHES": "0"}
# In process, where the limiter should still run on every request (its headers
# included) but never refuse one: quotas no test reaches.
UNREACHED_LIMITS = {"rate_limit_rate": 1e6, "rate_limit_burst": 10**7, "client_searches": 10_000}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class RunningServer:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def running_server(tmp: Path, ready: bool = True, **settings: str) -> Iterator[RunningServer]:
    port = free_port()
    env = {**os.environ, "TTT_HOST": "127.0.0.1", "TTT_PORT": str(port), **settings}
    log = tmp / f"server-{port}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "service"], cwd=ROOT, env=env, stdout=sink, stderr=sink
        )
    server = RunningServer(process, f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + 30
        path = "/readyz" if ready else "/livez"
        while True:
            try:
                if httpx.get(server.url + path, timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start:\n{server.output()}")
            time.sleep(0.05)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@dataclass
class InProcessServer:
    url: str
    log: _Collect

    def output(self) -> str:
        """What the server logged (tracebacks included) while it ran."""
        return "\n".join(self.log.lines)


@contextmanager
def serving_in_process(**settings: str) -> Iterator[InProcessServer]:
    """The server ``python -m service`` runs (``service.__main__.build_server``), on a
    thread of this process, so that in-process tools see the code it runs (mutmut
    learns which tests reach the connection protocol). ``settings`` are ``TTT_*``
    names, as for :func:`running_server`."""
    port = free_port()
    fields = {name.removeprefix("TTT_").lower(): value for name, value in settings.items()}
    server = build_server(Settings(host="127.0.0.1", port=port, **fields))
    log = _Collect()
    loggers = [logging.getLogger(name) for name in ("", "uvicorn")]  # uvicorn's do not propagate
    for logger in loggers:
        logger.addHandler(log)
    thread = threading.Thread(target=server.run, name=f"server-{port}", daemon=True)
    thread.start()
    running = InProcessServer(f"http://127.0.0.1:{port}", log)

    def started() -> bool:
        if not thread.is_alive():
            raise RuntimeError(f"server did not start:\n{running.output()}")
        return server.started

    try:
        wait_for("the in-process server's start", started, timeout=30)
        yield running
    finally:
        server.should_exit = True
        thread.join(30)
        for logger in loggers:
            logger.removeHandler(log)

"""Real servers for the reliability suite, and the figures the suite records.

A :class:`Backend` is the production entry point (``python -m service``: one
uvicorn process, httptools and uvloop) on a fixed loopback port, so that it can
be stopped with SIGTERM and started again where a proxy expects it. Every
request the suite sends goes to 127.0.0.1, and every loop is bounded in time.

Each test puts its figures (requests sent, failures, memory before and after)
in the session's ``figures``; they are written to
``bench/results/reliability.json`` at the end, for ``docs/reliability.md``.
Tests that need a system binary (nginx) fail, naming the command that installs
it, rather than skip.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server import NO_CLIENT_LIMITS, free_port

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results" / "reliability.json"
INSTALL_COMMAND = "make tools"
START_TIMEOUT_SECONDS = 30
STOP_TIMEOUT_SECONDS = 30


def require_binary(name: str) -> str:
    """The path of a system binary, or a test failure that says how to install it."""
    path = shutil.which(name) or (
        f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None
    )
    if path is None:
        pytest.fail(f"{name} is not installed: `{INSTALL_COMMAND}` installs it (make test does)")
    return path


class Backend:
    """One server process on a fixed loopback port: start, stop gracefully, start again."""

    def __init__(self, log_dir: Path, name: str = "server", **settings: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.name = name
        self.log_dir = log_dir
        self.env = {
            **os.environ,
            "TTT_HOST": "127.0.0.1",
            "TTT_PORT": str(self.port),
            "TTT_LOG_LEVEL": "warning",
            **NO_CLIENT_LIMITS,
            **settings,
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.log_dir / f"{self.name}-{self.port}.log"

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def start(self) -> None:
        assert self.process is None or self.process.poll() is not None, "already running"
        with self.log.open("ab") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "service"],
                cwd=REPO,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"{self.name} exited with {self.process.returncode}:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.kill()
        pytest.fail(f"{self.name} was not ready within {START_TIMEOUT_SECONDS} s:\n{self.output()}")

    def stop(self) -> int:
        """SIGTERM (the graceful drain), then the exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"{self.name} did not exit within {STOP_TIMEOUT_SECONDS} s of SIGTERM")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def rss_mib(self) -> float:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        raise AssertionError("no VmRSS in /proc/<pid>/status")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """One production server for a module's tests.

    The search queue is raised from its default (8), and the search deadline
    from its default (800 ms), so that 200 clients asking for uncached boards at
    once wait for exact answers rather than get the load-shedding 503 or the
    deadline's estimates that tests/ops covers.
    """
    backend = Backend(
        tmp_path_factory.mktemp("server"),
        TTT_SEARCH_QUEUE="512",
        TTT_SEARCH_DEADLINE_MS="120000",
    )
    backend.start()
    try:
        yield backend
    finally:
        if backend.is_running():
            backend.stop()


@pytest.fixture(scope="session")
def figures() -> Iterator[dict[str, Any]]:
    """Figures by test name; merged into bench/results/reliability.json at the end."""
    recorded: dict[str, Any] = {}
    yield recorded
    if not recorded:
        return
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    try:
        previous = json.loads(RESULTS.read_text())
    except (OSError, ValueError):
        previous = {}
    RESULTS.write_text(json.dumps({**previous, **recorded}, indent=2, sort_keys=True) + "\n")

"""Start the real server (``python -m service``: uvicorn, not the test client)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


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

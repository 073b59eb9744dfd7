"""The real server for the benchmarks: ``python -m service``, one process, on loopback.

Also the benchmarks' shared set of positions: every reachable 3x3 one, and
the API key a benchmark sends so that the per-client limits run on every
request without refusing one (``unlimited_key()``).

Started as in production (uvicorn with httptools and uvloop, the access log on
at ``info``) on a free port of 127.0.0.1, pinned to one CPU with ``taskset``
when it is installed so the load generator can have the other. Stopped with
SIGTERM (the graceful drain), killed only if it overstays.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from service.api.limits import hash_key
from service.engine import Board, Status

REPO = Path(__file__).resolve().parents[1]
INSTALL_SCRIPT = ".ci/install-bench-tools.sh"
READY_TIMEOUT_SECONDS = 60
STOP_TIMEOUT_SECONDS = 30
# A benchmark is one client sending more than the default quota allows (wrk's
# thousands of requests a second, or big-board searches back to back): it
# sends this key (``X-API-Key``), whose quota it never reaches, so the limiter
# runs in full on every request and refuses none.
BENCH_KEY = "bench-load-key"


def unlimited_key(folder: Path) -> dict[str, str]:
    """The server's settings that give BENCH_KEY its quota (a keys file
    written in ``folder``)."""
    keys = folder / "keys.json"
    quota = {"rate": 10**9, "burst": 10**9, "searches": 1000}
    entry = {"name": "bench", "sha256": hash_key(BENCH_KEY), **quota}
    keys.write_text(json.dumps({"keys": [entry]}))
    return {"TTT_API_KEYS_FILE": str(keys)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def pinned(command: list[str], cpu: int | None) -> list[str]:
    """``command`` under ``taskset -c cpu`` when both exist, else as it is."""
    if cpu is None or shutil.which("taskset") is None or cpu >= (os.cpu_count() or 1):
        return command
    return ["taskset", "-c", str(cpu), *command]


def require(binary: str) -> str:
    """The path of ``binary``, or exit naming the script that installs it."""
    path = shutil.which(binary)
    if path is None:
        raise SystemExit(f"{binary} is not installed: run `bash {INSTALL_SCRIPT}` first")
    return path


def get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class LocalServer:
    """``with LocalServer(env, log_path) as server:`` a ready server at ``server.url``."""

    def __init__(self, settings: dict[str, str], log_path: Path, cpu: int | None = 0) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            **settings,
            "TTT_HOST": "127.0.0.1",
            "TTT_PORT": str(self.port),
            "PYTHONUNBUFFERED": "1",
        }
        self.log_path = log_path
        self.cpu = cpu
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def __enter__(self) -> LocalServer:
        command = pinned([sys.executable, "-m", "service"], self.cpu)
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited:\n{self.log_path.read_text()[-4000:]}")
            try:
                if get(f"{self.url}/readyz", timeout=1)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server was not ready within {READY_TIMEOUT_SECONDS} s")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def rss_kib(self) -> int:
        """Resident set size of the server process, from /proc (kB as the kernel counts)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS line in /proc/<pid>/status")

    def cpu_seconds(self) -> float:
        """User and system CPU time the server process has used, all threads."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rpartition(")")[2].split()
        # utime and stime are fields 14 and 15 of stat(5), counted after the ")".
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def metrics(self) -> dict[str, float]:
        """The server's /metrics as {"name{labels}": value}, comments dropped."""
        status, body = get(f"{self.url}/metrics")
        if status != 200:
            raise RuntimeError(f"/metrics answered {status}")
        figures: dict[str, float] = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                figures[name] = float(value)
        return figures


def reachable_3x3() -> list[Board]:
    """Every unfinished 3x3 position a legal game reaches (X first), in a fixed order."""
    seen = {Board.empty()}
    frontier = [Board.empty()]
    while frontier:
        board = frontier.pop()
        if board.status is Status.IN_PROGRESS:
            for cell in board.empty_cells():
                child = board.play(cell)
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return sorted((b for b in seen if not b.is_game_over()), key=lambda b: (b.x, b.o))

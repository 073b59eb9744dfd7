"""A real server and Debian's Chromium for the playground's end-to-end tests.

The server is the one users run (``python -m service``, uvicorn) on a free port;
Chromium is driven by Playwright with the system binary, never a downloaded one.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# This machine has no network: without these flags Chromium keeps dialling out.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
START_TIMEOUT_SECONDS = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_live(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{base_url}/livez", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"the server was not live within {START_TIMEOUT_SECONDS} s:\n{log.read_text()}")


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "TTT_HOST": "127.0.0.1", "TTT_PORT": str(port), "TTT_LOG_LEVEL": "warning"}
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "server.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                [sys.executable, "-m", "service"], env=env, stdout=output, stderr=output
            )
            url = f"http://127.0.0.1:{port}"
            try:
                _wait_until_live(url, process, log)
                yield url
            finally:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(scope="package")  # Playwright's loop must stop before other tests use asyncio
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install it with `apt-get install chromium`")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    """The playground, loaded and settled, in a fresh browser context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base_url}/")
    page.wait_for_selector('#board[aria-busy="false"] button')
    yield page
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

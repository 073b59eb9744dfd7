"""A real server and Debian's Chromium for the playground's end-to-end tests.

The server is the one users run (``python -m service``, uvicorn) on a free port;
Chromium is driven by Playwright with the system binary, never a downloaded one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.server import running_server

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


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("browser-server")
    with running_server(logs, ready=False, TTT_LOG_LEVEL="warning") as server:
        yield server.url


@pytest.fixture(scope="package")  # Playwright's loop must stop before other tests use asyncio
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make tools` installs it (Debian's chromium)")
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

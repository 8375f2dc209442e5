"""What the browser tests share: the app in a subprocess, Chromium's launch, screenshots."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from playwright.sync_api import Page

from tests.app.live import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
STARTUP_SECONDS = 20.0
WAIT_MS = 10_000
"""The longest any expectation waits for the page to show something."""

OpenPage = Callable[..., Page]
"""``open_page(width=…, height=…)``: a new page in a browser context of its own."""


@dataclass(frozen=True)
class Server:
    url: str


def chromium_problem() -> str | None:
    """None when Debian's Chromium is installed, else what is wrong."""
    if not CHROMIUM.is_file():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


@contextlib.contextmanager
def running_app(database: Path) -> Iterator[Server]:
    """The app on a free loopback port: memory room store, a fresh SQLite file, no AI pause."""
    port = free_port()
    env = {
        **os.environ,
        "CASH_STASH_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "CASH_STASH_AI_WORKERS": "0",
        "CASH_STASH_TIMEOUT_LEVEL": "easy",
        "CASH_STASH_JOIN_LIMIT": "1000",
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": "600",
    }
    env.pop("CASH_STASH_REDIS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.browser.server", "--port", str(port)], cwd=ROOT, env=env
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process)
        yield Server(url)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        assert process.poll() is None, "the server exited while starting"
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.05)  # the process is still starting: there is no message to wait for yet


def screenshot(page: Page, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot under test-artifacts/ (kept by CI; the README shows copies)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=full_page)

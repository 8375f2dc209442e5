"""Browser test fixtures: one app for the session, Debian's Chromium, pages that must behave."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    expect,
    sync_playwright,
)

from tests.browser.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    OpenPage,
    Server,
    chromium_problem,
    running_app,
)
from tests.conftest import need_service

BROWSER_TIMEOUT_SECONDS = 300
"""pytest-timeout's hang guard for a browser test: the longest take 60-90 s alone and twice
that while other workers share the cores (the suite's 120 s is for everything else)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.browser)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT_SECONDS))


class Chromium:
    """Playwright (its sync API) and Debian's Chromium, started for the first browser test and
    stopped (``stop``) before any other test runs.

    While it runs, Playwright keeps an event loop marked running on this thread, and no asyncio
    test could run. A serial run takes the browser tests last (``tests/conftest.py``), so it
    starts Chromium once; a pytest-xdist worker may be given other tests after browser tests,
    and starts Chromium again when browser tests come back.
    """

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    def browser(self) -> Browser:
        if self._browser is None:
            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
            )
        return self._browser

    def stop(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = None
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None


_chromium = Chromium()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a browser test's own teardown, Chromium stops unless a browser test comes next."""
    try:
        yield
    finally:
        if nextitem is None or nextitem.get_closest_marker("browser") is None:
            _chromium.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_app(tmp_path_factory.mktemp("browser-db") / "games.db") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Browser:
    """Chromium, as long as browser tests follow one another (``Chromium``). Module-scoped, so
    that a module's fixtures may hold contexts; a module's tests are all browser tests, so it
    ends before Chromium stops."""
    need_service("Chromium", chromium_problem())
    expect.set_options(timeout=WAIT_MS)
    return _chromium.browser()


@pytest.fixture
def open_page(browser: Browser, server: Server) -> Iterator[OpenPage]:
    """New pages, each in a browser context of its own (its own storage: its own person).

    No page may request anything outside the app, raise a script error or break the
    Content-Security-Policy.
    """
    contexts: list[BrowserContext] = []
    outside: list[str] = []
    errors: list[str] = []
    app_origin = urlsplit(server.url).netloc

    def note_request(request: Request) -> None:
        if urlsplit(request.url).netloc != app_origin and not request.url.startswith("data:"):
            outside.append(request.url)

    def note_refusal(message: ConsoleMessage) -> None:
        # The Content-Security-Policy reports whatever it blocks as a console error.
        if message.type == "error" and "Refused to" in message.text:
            errors.append(message.text)

    def open_one(
        width: int = 1280, height: int = 900, *, touch: bool = False, motion: bool = True
    ) -> Page:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            has_touch=touch,
            reduced_motion=None if motion else "reduce",
        )
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("request", note_request)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", note_refusal)
        return page

    yield open_one
    for context in contexts:
        context.close()
    assert not outside, f"requests outside the app: {outside}"
    assert not errors, f"script errors: {errors}"

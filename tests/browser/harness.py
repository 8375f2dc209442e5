"""What the browser tests share: the app in a subprocess, Chromium's launch, screenshots, and
the steps every table test takes (create a room, fill it with AI, play to the end)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

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
STARTUP_SECONDS = 60.0
"""How long the app may take to start: importing it alone takes 13-16 s on a two-core machine
that other test runs keep busy, which left 20 s no margin."""
WAIT_MS = 10_000
"""The longest any expectation waits for the page to show something."""
MOST_TURNS = 400
"""More actions than any game needs: a loop that reaches it means the game never ended."""

OpenPage = Callable[..., Page]
"""``open_page(width=…, height=…, touch=False, motion=True)``: a new page in a browser context
of its own (``touch``: a touch screen, for ``tap()``; ``motion=False``: the person asks for
reduced motion, and no card flies)."""


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
        # Every page of the session comes from one address, standing for many people.
        "CASH_STASH_JOIN_LIMIT": "1000",
        "CASH_STASH_CREATE_LIMIT": "1000",
        "CASH_STASH_REQUEST_RATE_PER_SECOND": "10000",
        "CASH_STASH_REQUEST_BURST": "10000",
        "CASH_STASH_LOBBY_CACHE_MS": "0",
        "CASH_STASH_WAITING_ROOMS_PER_ADDRESS": "1000",
        "CASH_STASH_GAMES_PER_ADDRESS": "1000",
        "CASH_STASH_REPLAYS_PER_MINUTE": "1000",
        "CASH_STASH_QUEUE_JOINS_PER_MINUTE": "1000",
        "CASH_STASH_QUEUE_SOCKETS_PER_ADDRESS": "100",
        "CASH_STASH_WS_WHOLE_STATES_BURST": "1000",
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": "600",
        "CASH_STASH_SEAT_OPEN_SECONDS": "600",
        # Reviews in a thread at a small search budget: a short game's review takes seconds.
        "CASH_STASH_REVIEW_WORKERS": "0",
        "CASH_STASH_REVIEW_ROUNDS": "4",
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


SETTLED = """
() => Promise.all(document.getAnimations()
  .filter((animation) => animation.effect?.getTiming().iterations !== Infinity)
  .map((animation) => animation.finished.catch(() => null)))
"""


def settle(page: Page) -> None:
    """Return once every flight of the last move has landed, so a screenshot shows the table
    still (a card in flight covers the set it flies to)."""
    page.evaluate(SETTLED)


def screenshot(page: Page, name: str, *, full_page: bool = True, as_seen: bool = False) -> None:
    """Save a screenshot under test-artifacts/ (kept by CI; the README shows copies): from the
    top of the page, or with ``as_seen`` the window as the player sees it now."""
    ARTIFACTS.mkdir(exist_ok=True)
    if not as_seen:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=full_page and not as_seen)


def create_room(
    page: Page, server: Server, *, name: str, seats: int, room_name: str = "", clock: str = ""
) -> str:
    """Create a room from the lobby (``clock``: seconds per turn); returns its invite link."""
    page.goto(server.url)
    page.get_by_label("Your name").fill(name)
    if room_name:
        page.get_by_label("Room name").fill(room_name)
    page.get_by_label("Seats").fill(str(seats))
    page.get_by_label("Clock").select_option(clock)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/room/[0-9A-Z]+$"))
    invite = page.get_by_label("Invite link")
    expect(invite).to_have_value(re.compile(r"/r/[0-9A-Z]+$"))
    return invite.input_value()


def add_ai_players(page: Page, count: int, *, level: str = "easy") -> None:
    """Fill ``count`` seats with AI players (Medium never blunders on purpose: a test that needs
    the AI's one best move takes it)."""
    for added in range(1, count + 1):
        page.get_by_label("AI level").select_option(level)
        page.get_by_role("button", name="Add AI player").click()
        expect(page.locator(".seat-row", has_text=f"AI · {level}")).to_have_count(added)


def hand_ids(page: Page) -> list[str]:
    """The ids of the cards in this seat's hand, left to right."""
    ids: list[str] = page.locator(".hand button.hand-card [data-card]").evaluate_all(
        "faces => faces.map(face => face.dataset.card)"
    )
    return ids


def table_version(page: Page) -> str:
    version = page.locator(".felt").get_attribute("data-version")
    assert version is not None
    return version


def wait_for_next_state(page: Page, version: str) -> None:
    expect(page.locator(f'.felt:not([data-version="{version}"])')).to_be_visible()


def take_listed_move(page: Page, *, prefer: str = "") -> None:
    """Open the move menu ("All moves") and press the first move listed, or the first whose
    words start with ``prefer`` (when there is one)."""
    menu = page.locator(".move-menu")
    if not menu.is_visible():
        page.get_by_test_id("all-moves").click()
    options = menu.locator("button.option")
    expect(options.first).to_be_visible()
    preferred = options.filter(has_text=re.compile(f"^{re.escape(prefer)}")) if prefer else None
    (preferred.first if preferred and preferred.count() else options.first).click()


def play_until_over(
    page: Page, *, prefer: str = "", on_turn: Callable[[Page], None] | None = None
) -> int:
    """Take a legal move every time it is this seat's move, to the end of the game: the first
    in the move menu, or the first whose words start with ``prefer``. ``on_turn(page)`` runs
    before each move. Returns the number of moves."""
    over = page.get_by_role("heading", name="Game over")
    my_move = page.locator(".turn-status", has_text=re.compile(r"^Your"))
    for moves in range(MOST_TURNS):
        expect(over.or_(my_move)).to_be_visible()
        if over.is_visible():
            return moves
        if on_turn:
            on_turn(page)
        version = table_version(page)
        take_listed_move(page, prefer=prefer)
        wait_for_next_state(page, version)
    raise AssertionError(f"the game did not end within {MOST_TURNS} moves")


LAYOUT_WATCH = (Path(__file__).parent / "layout_watch.js").read_text()


def watch_layout(page: Page, *, whole_table_in_view: bool) -> None:
    """After every change to the page's DOM, note if the page scrolls sideways; with
    ``whole_table_in_view``, once per state shown (and per selection or opened list): if the page
    scrolls down, if the prompt, the last move, the duel or any button of the bar (End turn,
    Answer, Concede, a Swap's target, the move menu) lies outside the window, and if any text of
    the table is clipped by a box around it, cut by its own box, or covered by another element
    (``elementFromPoint`` at its centre). Read with layout_problems()."""
    script = LAYOUT_WATCH.replace("WHOLE_TABLE", "true" if whole_table_in_view else "false")
    page.add_init_script(script)


def layout_problems(page: Page) -> list[str]:
    problems: list[str] = page.evaluate("window.layoutProblems")
    return problems


def layout_checks(page: Page) -> int:
    """How many table states the layout watch has checked."""
    checks: int = page.evaluate("window.layoutChecks")
    return checks

"""Friends in the browser: two signed-in players (each a browser context of its own, its
session cookie set directly, as if signed in) become friends from the lobby's panel, see each
other online, and one invites the other to the table it waits at, who accepts and is seated;
then a block holds. A profile page shows a friend every game and where the player is, a
stranger the public tables' games only, and the owner their friends. A table begun on one
device of an account opens at its seat on another.

The app runs here on a Redis of its own key prefix, so that the test can open sessions in the
store the server reads (``tests/app/accounts/helpers.py``), with a SQLite file for accounts."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.accounts.sessions import SESSION_COOKIE
from app.accounts.store import RedisAccountStore
from app.db.migrate import upgrade
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.friends import service
from tests.app.accounts.helpers import TestAccount, make_account
from tests.app.conftest import REDIS_URL, redis_problem
from tests.app.db.finished_games import bot, person, played_game
from tests.app.live import free_port
from tests.browser.harness import (
    ARTIFACTS,
    ROOT,
    WAIT_MS,
    Server,
    screenshot,
)
from tests.browser.test_browser_turns import turn_based_table
from tests.conftest import need_service

TABLE = re.compile(r"/room/[0-9A-Z]+$")
STARTUP_SECONDS = 60.0
"""A server on Redis may start slowly on a busy machine: longer than the harness's own wait."""


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        assert process.poll() is None, "the server exited while starting"
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the server did not start in time"
        time.sleep(0.1)  # the process is still starting: there is no message to wait for yet


@pytest.fixture(scope="module")
def friends_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, Path]]:
    """The browser tests' app on its own port, its live store on Redis under a fresh prefix."""
    need_service("Redis", redis_problem())
    database = tmp_path_factory.mktemp("friends-db") / "friends.db"
    # Playwright's sync API runs an event loop in this thread: Alembic's goes in another.
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(upgrade, f"sqlite+aiosqlite:///{database}").result()
    prefix = f"cash_stash_test:{uuid.uuid4().hex[:12]}:"
    port = free_port()
    env = {
        **os.environ,
        "CASH_STASH_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "CASH_STASH_REDIS_URL": REDIS_URL,
        "CASH_STASH_REDIS_PREFIX": prefix,
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "CASH_STASH_AI_WORKERS": "0",
        "CASH_STASH_REVIEW_WORKERS": "0",
        "CASH_STASH_REQUEST_RATE_PER_SECOND": "10000",
        "CASH_STASH_REQUEST_BURST": "10000",
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": "600",
        "CASH_STASH_SEAT_OPEN_SECONDS": "600",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.browser.server", "--port", str(port)], cwd=ROOT, env=env
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process, STARTUP_SECONDS)
        yield Server(url), prefix, database
    finally:
        process.terminate()
        process.wait(timeout=10)
        with redis.Redis.from_url(REDIS_URL) as client:
            keys = list(client.scan_iter(f"{prefix}*"))
            if keys:
                client.delete(*keys)


def signed_in_account(prefix: str, database: Path, name: str) -> TestAccount:
    async def made() -> TestAccount:
        engine = create_engine(f"sqlite+aiosqlite:///{database}")
        store = RedisAccountStore(REDIS_URL, prefix=prefix, cluster=False)
        await store.start()
        try:
            return await make_account(create_session_factory(engine), store, name=name)
        finally:
            await store.close()
            await engine.dispose()

    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, made()).result()


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def signed_in_page(
    browser: Browser,
    contexts: list[BrowserContext],
    server: Server,
    account: TestAccount,
    *,
    guest: str | None = None,
    viewport: tuple[int, int] = (1280, 900),
) -> tuple[Page, list[str]]:
    """A page of its own browser context, signed in as ``account`` (``guest``: the device's
    own guest id, by default the one that made the account); the script errors it raises are
    collected in the list."""
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(WAIT_MS)
    contexts.append(context)
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": account.token, "url": server.url, "httpOnly": True}]
    )
    # What the account page leaves behind on signing in (static/js/account.js, adopt): the
    # device's guest id plays for the account (here the guest that made it), and the lobby
    # then loads the friends panel.
    device = f"JSON.stringify('{guest or account.guest_id}')"
    context.add_init_script(
        f"localStorage.setItem('cash-stash:player-id', {device});"
        f"localStorage.setItem('cash-stash:account-player-id', {device});"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def test_friends_meet_and_an_invitation_accepted_seats_the_guest(
    browser: Browser,
    contexts: list[BrowserContext],
    friends_server: tuple[Server, str, Path],
) -> None:
    server, prefix, database = friends_server
    ann_page, ann_errors = signed_in_page(
        browser, contexts, server, signed_in_account(prefix, database, "Ann")
    )
    bea_page, bea_errors = signed_in_page(
        browser, contexts, server, signed_in_account(prefix, database, "Bea")
    )

    ann_page.goto(server.url)
    bea_page.goto(server.url)
    ann_friends = ann_page.get_by_role("region", name="Friends")
    bea_friends = bea_page.get_by_role("region", name="Friends")
    expect(ann_friends).to_contain_text("No friends yet")

    ann_page.get_by_label("Find by exact name").fill("Bea")
    ann_friends.get_by_role("button", name="Find").click()
    ann_friends.get_by_role("button", name="Ask to be friends").click()
    expect(ann_friends).to_contain_text("Asked, waiting for an answer")

    expect(bea_friends).to_contain_text("Asking to be your friend")
    bea_friends.get_by_role("button", name="Accept Ann").click()
    # Each sees the other online, live (the other's page says so every second).
    expect(bea_friends.locator(".friend", has_text="Ann").get_by_test_id("presence")).to_have_text(
        "online"
    )
    expect(ann_friends.locator(".friend", has_text="Bea").get_by_test_id("presence")).to_have_text(
        "online"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    ann_friends.screenshot(path=ARTIFACTS / "friends-panel.png")

    ann_page.get_by_label("Your name").fill("Ann")
    ann_page.get_by_label("Room name").fill("Ann's den")
    ann_page.get_by_role("button", name="Create room").click()
    expect(ann_page).to_have_url(TABLE)
    invite_box = ann_page.get_by_role("region", name="Invite a friend")
    invite_box.get_by_role("button", name="Invite Bea").click()
    expect(invite_box.get_by_test_id("invitation-status")).to_have_text("pending")

    invitation = bea_page.get_by_test_id("invitation")
    expect(invitation).to_contain_text("Ann invites you to Ann's den.")
    invitation.get_by_role("button", name="Accept").click()
    expect(bea_page).to_have_url(ann_page.url)
    expect(ann_page.get_by_role("list", name="Seats")).to_contain_text("Bea")
    expect(invite_box.get_by_test_id("invitation-status")).to_have_text("accepted")
    # Back in the lobby, Bea sees Ann at a table (its code only while Bea is still at it).
    bea_page.goto(server.url)
    expect(bea_friends.locator(".friend", has_text="Ann").get_by_test_id("presence")).to_have_text(
        re.compile(r"^at (a table|table [0-9A-Z]+)$")
    )
    # A block holds: Ann no longer sees Bea, even at the table that waits for invitations.
    bea_friends.get_by_role("button", name="Block Ann").click()
    expect(bea_friends.get_by_role("list", name="Friends")).to_contain_text("No friends yet")
    expect(invite_box).to_contain_text("None of your friends is online.")
    assert not ann_errors, ann_errors
    assert not bea_errors, bea_errors


def test_a_table_begun_on_a_computer_opens_at_its_seat_on_a_phone_of_the_account(
    browser: Browser,
    contexts: list[BrowserContext],
    friends_server: tuple[Server, str, Path],
) -> None:
    """Ann starts a turn-based game on her computer; her phone, signed in to her account with
    a guest of its own and no seat token, lists it under "Your games" and opens it (as a push
    notification's tap opens its table) seated, while the computer keeps the seat too. Bea,
    signed in to her own account, opening the table's address is shown the room's invitation
    page, as anyone without a seat is."""
    server, prefix, database = friends_server
    ann = signed_in_account(prefix, database, "Ann Devices")
    computer, computer_errors = signed_in_page(browser, contexts, server, ann)
    code = turn_based_table(computer, server, room_name="Ann's long game", move_time="86400")
    code = code.rsplit("/", 1)[-1]

    phone, phone_errors = signed_in_page(
        browser, contexts, server, ann, guest=str(uuid.uuid4()), viewport=(360, 740)
    )
    phone.goto(server.url)
    games = phone.get_by_role("region", name="Your games")
    games.get_by_role("link", name="Ann's long game").click()
    expect(phone).to_have_url(f"{server.url}/room/{code}")
    expect(phone.locator(".hand-card").first).to_be_visible()
    expect(phone.locator(".player.you .player-name")).to_contain_text("Ann")
    expect(phone).to_have_url(f"{server.url}/room/{code}")
    assert (
        phone.evaluate(f"JSON.parse(localStorage.getItem('cash-stash:seats'))['{code}'].seat") == 0
    )
    screenshot(phone, "table-opened-on-a-phone", as_seen=True)
    computer.reload()
    expect(computer.locator(".hand-card").first).to_be_visible()

    bea, bea_errors = signed_in_page(
        browser, contexts, server, signed_in_account(prefix, database, "Bea Devices")
    )
    bea.goto(f"{server.url}/room/{code}")
    expect(bea).to_have_url(re.compile(rf"/r/{code}$"))
    assert bea.evaluate("localStorage.getItem('cash-stash:seats')") in (None, "{}")
    assert not computer_errors and not phone_errors and not bea_errors


def with_history_and_friends(database: Path, ann: TestAccount, bea: TestAccount) -> list[str]:
    """Ann has played a game at a public table and one at a private table, and is Bea's
    friend: the games' ids, public first."""

    async def made() -> list[str]:
        engine = create_engine(f"sqlite+aiosqlite:///{database}")
        sessions = create_session_factory(engine)
        try:
            public = dataclasses.replace(
                played_game([person(0, "Ann", ann.guest_id), bot(1, "easy")], seed=1),
                visibility="public",
            )
            private = played_game([person(0, "Ann", ann.guest_id), bot(1, "easy")], seed=2)
            for game in (public, private):
                await DatabaseRecorder(sessions).record(game)
            async with sessions() as session:
                await service.ask(session, me=ann.account_id, other=bea.account_id, max_friends=9)
                await service.accept(
                    session, me=bea.account_id, other=ann.account_id, max_friends=9
                )
            return [public.game_id, private.game_id]
        finally:
            await engine.dispose()

    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, made()).result()


def test_a_profile_shows_friends_every_game_and_strangers_the_public_ones(
    browser: Browser,
    contexts: list[BrowserContext],
    friends_server: tuple[Server, str, Path],
) -> None:
    server, prefix, database = friends_server
    ann = signed_in_account(prefix, database, "Ann Profile")
    bea = signed_in_account(prefix, database, "Bea Profile")
    public, private = with_history_and_friends(database, ann, bea)
    ann_page, ann_errors = signed_in_page(browser, contexts, server, ann)
    bea_page, bea_errors = signed_in_page(browser, contexts, server, bea)
    address = f"{server.url}/players/{ann.player_id}"

    # Ann's lobby says she is online; her friend Bea sees that and both games.
    ann_page.goto(server.url)
    bea_page.set_viewport_size({"width": 1280, "height": 800})
    bea_page.goto(server.url)
    bea_page.get_by_role("region", name="Friends").get_by_role("link", name="Ann Profile").click()
    expect(bea_page).to_have_url(address)
    expect(bea_page.get_by_role("heading", name="Ann Profile", exact=True)).to_be_visible()
    expect(bea_page.get_by_test_id("profile-where")).to_have_text("online")
    games = bea_page.locator(".history .game-card")
    expect(games).to_have_count(2)
    expect(bea_page.locator(f'a[href="/games/{private}?review"]')).to_be_visible()
    screenshot(bea_page, "profile")
    bea_page.set_viewport_size({"width": 360, "height": 740})
    expect(games).to_have_count(2)
    assert bea_page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(bea_page, "profile-phone")

    # Only Ann sees her friends.
    ann_page.goto(address)
    expect(ann_page.get_by_role("region", name="Your friends")).to_contain_text("Bea Profile")
    expect(ann_page.locator(".history .game-card")).to_have_count(2)

    # A stranger sees the public table's game only, and not where Ann is.
    stranger = browser.new_context(viewport={"width": 1280, "height": 800})
    contexts.append(stranger)
    page = stranger.new_page()
    page.goto(address)
    expect(page.get_by_role("heading", name="Ann Profile", exact=True)).to_be_visible()
    expect(page.locator(".history .game-card")).to_have_count(1)
    expect(page.locator(f'a[href="/games/{public}"]')).to_be_visible()
    expect(page.get_by_text("Games at public tables only")).to_be_visible()
    expect(page.get_by_test_id("profile-where")).to_have_count(0)
    expect(page.get_by_role("region", name="Your friends")).to_have_count(0)
    assert not ann_errors, ann_errors
    assert not bea_errors, bea_errors

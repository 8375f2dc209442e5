"""The pages around the table: lobby, invite, replay, leaderboard, help and not found.

Each fits a 360 px phone without sideways scrolling, reads well at 1280 px, and says in words
what went wrong (a blank name, a room that is gone, an address with no page). The first visit's
download stays small: the page-weight test measures every byte the browser receives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Response, expect

from tests.browser.harness import (
    ARTIFACTS,
    WAIT_MS,
    OpenPage,
    Server,
    add_ai_players,
    play_until_over,
    screenshot,
)

PHONE = {"width": 360, "height": 740}
LAPTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "laptop": LAPTOP}

WEIGHT_BUDGET = 300 * 1024
"""The first visit, from the lobby to a dealt table, all card art included (issue 21)."""

HELP_TOPICS = [
    "The goal and the cards",
    "The three rule sets",
    "A turn",
    "Challenges",
    "The end of the game",
    "Playing at the table",
    "Draft piles",
    "Protected and exposed sets",
    "Why a challenge is unavailable",
    "Playing online",
    "How the Hard AI plays fairly",
]


@dataclass(frozen=True)
class FinishedGame:
    id: str
    totals: dict[str, int]
    """Each player's final total, by name."""
    player_id: str
    """The guest id of the browser that played it (Ann's)."""


def sideways_overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0 or less: no sideways scroll)."""
    overflow: int = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    return overflow


def page_errors(page: Page) -> list[str]:
    """Every response of ``page`` from now on whose status says something failed."""
    failed: list[str] = []

    def note(response: Response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.request.method} {response.url}")

    page.on("response", note)
    return failed


@pytest.fixture(scope="module")
def finished_game(browser: Browser, server: Server) -> Iterator[FinishedGame]:
    """One game played to the end in the browser: Ann against an easy AI, simple rules (asking
    for reduced motion: no card flies in a game played for the pages after it)."""
    context = browser.new_context(viewport=LAPTOP, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Rule set").select_option("simple")
    page.get_by_label("Seats").fill("2")
    page.get_by_role("button", name="Create room").click()
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    play_until_over(page, prefer="Form")
    page.get_by_role("link", name="Watch the replay").click()
    expect(page).to_have_url(re.compile(r"/games/[^/]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    player_id = page.evaluate("JSON.parse(localStorage.getItem('cash-stash:player-id'))")
    context.close()
    game = httpx.get(f"{server.url}/api/games/{game_id}").json()
    totals = {seat["name"]: seat["total"] for seat in game["players"]}
    yield FinishedGame(game_id, totals, player_id)


def test_help_explains_the_rules_online_play_and_the_fair_ai(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**PHONE)
    page.goto(server.url)
    page.get_by_role("link", name="How to play").click()
    for topic in HELP_TOPICS:
        expect(page.get_by_role("heading", name=topic)).to_be_visible()
    expect(page.locator("#fair-ai")).to_contain_text("invariance")
    # Direct play: no list of moves called "Your moves", no Challenge button (issue 43).
    for gone in ("Your moves", "Challenge</em> button", "a drawer under the table"):
        assert gone not in page.content(), f"the help page still says {gone!r}"
    assert sideways_overflow(page) <= 0, "the help page does not fit a 360 px wide screen"


def test_leaderboard_page_shows_the_ranking(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.goto(server.url)
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Leaderboard").click()
    expect(page).to_have_url(f"{server.url}/leaderboard")
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    expect(page.get_by_role("table").or_(page.get_by_text("No rated games yet."))).to_be_visible()
    expect(page.get_by_role("link", name="Leaderboard", exact=True)).to_have_attribute(
        "aria-current", "page"
    )


def test_an_invite_link_to_no_room_says_so(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.goto(f"{server.url}/r/ZZZZZZZZ")
    expect(page.get_by_role("heading", name="Room not found")).to_be_visible()
    expect(page.get_by_role("alert")).not_to_be_empty()
    page.get_by_role("link", name="Back to the lobby").click()
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()


def test_an_unknown_address_gets_a_friendly_page_with_the_way_back(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**PHONE)
    response = page.goto(f"{server.url}/no/such/page")
    assert response is not None
    assert response.status == 404, "the address has no page: the status must say so"
    expect(page.get_by_role("heading", name="This card is not in the deck")).to_be_visible()
    expect(page.locator(".not-found")).to_contain_text("/no/such/page")
    expect(page).to_have_title(re.compile("^Page not found"))
    screenshot(page, "not-found-phone")
    page.get_by_role("link", name="Back to the lobby").click()
    expect(page).to_have_url(f"{server.url}/")
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()


def test_a_blank_name_is_explained_before_anything_is_sent(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**PHONE)
    sent: list[str] = []
    page.on(
        "request", lambda request: sent.append(request.url) if request.method == "POST" else None
    )
    page.goto(server.url)
    name = page.get_by_label("Your name")
    name.fill("   ")
    page.get_by_role("button", name="Create room").click()
    expect(page.get_by_role("alert")).to_contain_text("Please enter a name")
    expect(name).to_be_focused()
    expect(name).to_have_attribute("aria-invalid", "true")
    assert sent == [], "a blank name must not reach the server"

    name.fill("Ann")
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(re.compile(r"/room/[0-9A-Z]+$"))


def test_the_servers_refusal_of_a_name_is_shown_in_its_words(
    open_page: OpenPage, server: Server
) -> None:
    created = httpx.post(f"{server.url}/api/rooms", json={"name": "Bea"})
    assert created.status_code == 201, created.text
    refused = httpx.post(
        f"{server.url}/api/rooms/{created.json()['code']}/join", json={"name": "Ann\u0007"}
    )
    assert refused.status_code == 422, refused.text
    words = refused.json()["detail"]
    assert isinstance(words, str), "the server's refusal is a sentence, not a list of errors"

    page = open_page(**PHONE)
    page.goto(f"{server.url}/r/{created.json()['code']}")
    name = page.get_by_label("Your name")
    name.fill("Ann\u0007")
    page.get_by_role("button", name="Join the room").click()
    expect(page.get_by_role("alert")).to_have_text(words)
    expect(name).to_have_attribute("aria-invalid", "true")


def test_a_new_players_lobby_asks_nothing_that_fails(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    failed = page_errors(page)
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Public rooms")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert failed == [], "a new player's first visit must not end in an error status"
    expect(page.get_by_role("heading", name="Recent games")).to_be_hidden()


def test_the_replay_lists_players_by_final_result(
    open_page: OpenPage, server: Server, finished_game: FinishedGame
) -> None:
    page = open_page(**PHONE)
    page.goto(f"{server.url}/games/{finished_game.id}")
    standings = page.get_by_test_id("standing")
    expect(standings).to_have_count(len(finished_game.totals))
    best_first = sorted(finished_game.totals, key=lambda name: -finished_game.totals[name])
    for place, name in enumerate(best_first):
        expect(standings.nth(place)).to_contain_text(name)
        expect(standings.nth(place)).to_contain_text(f"${finished_game.totals[name]:,}")
    expect(standings.first).to_contain_text("1st")


def test_a_players_lobby_lists_their_finished_games(
    open_page: OpenPage, server: Server, finished_game: FinishedGame
) -> None:
    page = open_page(**PHONE)
    page.add_init_script(
        f"localStorage.setItem('cash-stash:player-id', '\"{finished_game.player_id}\"')"
    )
    page.goto(server.url)
    history = page.get_by_role("region", name="Recent games")
    expect(history).to_be_visible()
    screenshot(page, "page-lobby-with-history-phone")
    history.get_by_role("link").first.click()
    expect(page).to_have_url(f"{server.url}/games/{finished_game.id}")
    expect(page.get_by_test_id("standing")).to_have_count(len(finished_game.totals))


PAGES: dict[str, Callable[[Page, Server, FinishedGame], Any]] = {
    "lobby": lambda page, server, game: page.goto(server.url),
    "leaderboard": lambda page, server, game: page.goto(f"{server.url}/leaderboard"),
    "help": lambda page, server, game: page.goto(f"{server.url}/help"),
    "replay": lambda page, server, game: page.goto(f"{server.url}/games/{game.id}"),
    "not-found": lambda page, server, game: page.goto(f"{server.url}/nowhere"),
}


def open_invite(page: Page, server: Server) -> None:
    created = httpx.post(
        f"{server.url}/api/rooms",
        json={"name": "Bea Marchetti-Okonkwo", "room_name": "Thursday's long-named stash table"},
    )
    assert created.status_code == 201, created.text
    page.goto(f"{server.url}/r/{created.json()['code']}")
    expect(page.get_by_role("button", name="Join the room")).to_be_visible()


@pytest.mark.parametrize("size", SIZES)
def test_every_page_fits_the_screen_without_sideways_scroll(
    open_page: OpenPage, server: Server, finished_game: FinishedGame, size: str
) -> None:
    page = open_page(**SIZES[size])
    shown = {"invite": lambda page, server, game: open_invite(page, server), **PAGES}
    for name, open_it in shown.items():
        open_it(page, server, finished_game)
        expect(page.locator("main h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        assert sideways_overflow(page) <= 0, f"the {name} page scrolls sideways at {size} size"
        screenshot(page, f"page-{name}-{size}")


def test_the_first_visit_downloads_less_than_300_kb(open_page: OpenPage, server: Server) -> None:
    """Every byte a new visitor's browser receives, from the lobby to a dealt table with every
    card on it: HTML, CSS, scripts, card art, icon and the API's answers (no cache: a new
    context)."""
    page = open_page()
    received: dict[str, int] = {}
    urls: dict[str, str] = {}
    network = page.context.new_cdp_session(page)
    network.on(
        "Network.requestWillBeSent",
        lambda event: urls.update({event["requestId"]: event["request"]["url"]}),
    )
    network.on(
        "Network.loadingFinished",
        lambda event: received.update({event["requestId"]: int(event["encodedDataLength"])}),
    )
    network.send("Network.enable")

    page.goto(server.url)
    page.wait_for_load_state("networkidle")
    lobby = sum(received.values())
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Seats").fill("2")
    page.get_by_role("button", name="Create room").click()
    add_ai_players(page, 1)
    with page.expect_response(re.compile(r"/start$")) as started:
        page.get_by_role("button", name="Start the game").click()
    started.value.finished()
    expect(page.locator(".hand button.hand-card").first).to_be_visible()
    # This session's answer comes after every network event the browser sent it before.
    network.send("Runtime.evaluate", {"expression": "0"})
    total = sum(received.values())
    fetched = sorted(urls[request] for request in received)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "page-weight.txt").write_text(
        f"lobby {lobby} bytes; lobby to a dealt table {total} bytes\n" + "\n".join(fetched) + "\n"
    )
    for part in (".css", ".js", "/static/img/", "/static/favicon"):
        assert any(part in url for url in fetched), f"nothing like {part} was counted: {fetched}"
    assert total < WEIGHT_BUDGET, f"{total} bytes received: {fetched}"

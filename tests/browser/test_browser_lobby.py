"""Play now and the lobby's life, in the browser, on a 1280 px laptop and a 360 px phone:
the choice is remembered, the waiting view says how the search goes, two players meet at a
table, a lone player asks for AI at once, and the lobby shows who is online and what to watch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import OpenPage, Server, screenshot
from tests.browser.test_browser_a11y import violations

SIZES = {"phone": {"width": 360, "height": 740}, "laptop": {"width": 1280, "height": 800}}
TABLE = re.compile(r"/room/[0-9A-Z]+$")


def _play_now(page: Page, server: Server, name: str, seats: int, rules: str = "advanced") -> None:
    page.goto(server.url)
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Table").select_option(str(seats))
    page.get_by_label("Rules").select_option(rules)
    page.get_by_role("button", name="Play now").click()


@pytest.mark.parametrize("size", SIZES)
def test_play_now_meets_a_player_and_the_lobby_shows_the_game(
    open_page: OpenPage, server: Server, size: str
) -> None:
    ann = open_page(**SIZES[size])
    _play_now(ann, server, "Ann", seats=2)
    expect(ann.get_by_role("heading", name="Finding your table…")).to_be_visible()
    expect(ann.get_by_role("status")).to_contain_text("1 of 2 players found")
    expect(ann.locator(".queue-waited")).to_have_text(re.compile(r"^0:0[1-9]$"))
    expect(ann.get_by_role("status")).to_contain_text("Place in the queue1")
    expect(ann).to_have_title(re.compile(r"^Waiting \d+:\d\d · Cash Stash$"))
    # A player waiting in the queue is online (the count refreshes every few seconds).
    expect(ann.locator("#online-count")).to_have_text(re.compile(r"^[1-9]\d* players? online$"))
    screenshot(ann, f"play-now-waiting-{size}", full_page=False)

    bob = open_page(**SIZES[size])
    _play_now(bob, server, "Bob", seats=2)
    expect(ann).to_have_url(TABLE)
    expect(bob).to_have_url(TABLE)
    assert ann.url == bob.url
    expect(ann.locator(".felt")).to_be_visible()
    expect(bob.locator(".felt")).to_be_visible()
    screenshot(ann, f"play-now-table-{size}", as_seen=True)

    watcher = open_page(**SIZES[size])
    watcher.goto(server.url)
    expect(watcher.locator("#online-count")).to_have_text(re.compile(r"^[1-9]\d* players? online$"))
    expect(watcher.locator("#playing-count")).to_have_text(re.compile(r"^[1-9]\d* games? in play$"))
    code = ann.url.rsplit("/", 1)[1]
    game = watcher.locator(".live-card", has=watcher.locator(f'a[href="/room/{code}?watch"]'))
    expect(game).to_contain_text("Ann (0) · Bob (0)")
    expect(game).to_contain_text(re.compile(r"Advanced · round 1, \d+ cards left"))
    screenshot(watcher, f"lobby-live-{size}")
    overflow = watcher.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the lobby scrolls sideways by {overflow} px"
    game.get_by_role("link", name="Watch Ann, Bob").click()
    expect(watcher).to_have_url(re.compile(r"/room/[0-9A-Z]+\?watch$"))
    expect(watcher.locator(".felt")).to_be_visible()


def test_a_lone_player_fills_with_ai_now_and_the_lobby_leads_back_to_the_table(
    open_page: OpenPage, server: Server
) -> None:
    """The choice is remembered, and the live game left for the lobby is listed first under
    "Your games" ("Live now") until it ends: its link takes the seat back."""
    cy = open_page(**SIZES["phone"])
    _play_now(cy, server, "Cy", seats=3, rules="simple")
    expect(cy.get_by_role("heading", name="Finding your table…")).to_be_visible()
    cy.get_by_role("button", name="Fill with AI now").click()
    expect(cy).to_have_url(TABLE)
    expect(cy.locator(".felt")).to_be_visible()
    table = cy.url
    cy.goto(server.url)
    expect(cy.get_by_label("Table")).to_have_value("3")
    expect(cy.get_by_label("Rules")).to_have_value("simple")
    expect(cy.get_by_label("Name", exact=True)).to_have_value("Cy")
    expect(cy.get_by_label("Draft", exact=True)).to_be_visible()
    cy.get_by_label("Table").select_option("4")
    expect(cy.get_by_label("Draft", exact=True)).to_be_hidden()

    games = cy.get_by_role("region", name="Your games")
    expect(games).to_be_visible()
    # Said once: not counted again among the games that wait for Cy's move.
    expect(games.locator("p.hint")).to_have_text("A live game is going on: open it to play.")
    entry = games.get_by_test_id("your-game")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text(re.compile(r"^Play now.*Live now · (Your move|Waiting for)"))
    expect(entry).to_contain_text(re.compile(r"with \w+ Bot, \w+ Bot 2$"))
    games.scroll_into_view_if_needed()
    screenshot(cy, "lobby-live-game-to-go-back-to-phone", as_seen=True)
    problems = violations(cy, "lobby with a live game to go back to")
    assert problems == [], "\n".join(problems)
    entry.get_by_role("link").click()
    expect(cy).to_have_url(table)
    expect(cy.locator(".player.you .player-name")).to_contain_text("Cy")
    expect(cy.locator(".hand-card").first).to_be_visible()


HOLD_QUEUE_SOCKET = (Path(__file__).parent / "hold_queue_socket.js").read_text()
"""Holds the page's Play now socket connecting until ``window.releaseQueue()`` is called."""


def test_fill_with_ai_pressed_while_the_queue_still_connects_is_not_lost(
    open_page: OpenPage, server: Server
) -> None:
    """On a slow connection the waiting view shows before the queue's socket opens: pressing
    Fill with AI now then is kept and sent as it opens, so the table comes at once, not after
    the queue's wait for players (20 s)."""
    fay = open_page(**SIZES["laptop"])
    fay.add_init_script(HOLD_QUEUE_SOCKET)
    _play_now(fay, server, "Fay", seats=2)
    expect(fay.get_by_role("heading", name="Finding your table…")).to_be_visible()
    fay.get_by_role("button", name="Fill with AI now").click()
    fay.evaluate("window.releaseQueue()")
    expect(fay).to_have_url(TABLE, timeout=8_000)
    expect(fay.locator(".felt")).to_be_visible()


def test_any_size_waits_and_cancel_returns_to_the_form(open_page: OpenPage, server: Server) -> None:
    dee = open_page(**SIZES["laptop"])
    _play_now(dee, server, "Dee", seats="any")
    expect(dee.get_by_role("heading", name="Finding your table…")).to_be_visible()
    expect(dee.get_by_role("status")).to_contain_text("1 player found")
    dee.get_by_role("button", name="Cancel").click()
    expect(dee.get_by_role("button", name="Play now")).to_be_visible()
    expect(dee).to_have_title("Cash Stash")


def test_a_background_tab_is_told_that_the_game_started(
    open_page: OpenPage, server: Server
) -> None:
    eve = open_page(**SIZES["laptop"])
    eve.add_init_script(
        "Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });"
    )
    _play_now(eve, server, "Eve", seats=2, rules="simple")
    expect(eve.get_by_role("heading", name="Finding your table…")).to_be_visible()
    fay = open_page(**SIZES["laptop"])
    _play_now(fay, server, "Fay", seats=2, rules="simple")
    expect(eve).to_have_url(TABLE)
    expect(eve).to_have_title(re.compile(r"● Your game has started — "))
    expect(fay).to_have_url(TABLE)
    expect(fay).not_to_have_title(re.compile("started"))

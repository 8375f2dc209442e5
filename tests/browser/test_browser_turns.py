"""Turn-based tables in the browser: the create form's time to move (no limit only at a
private table), the table saying what it is, Play now's turn-based choice, and the lobby's
"Your games" with the game that waits for you first, at 1280x800 and 360x740, through axe."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.harness import (
    OpenPage,
    Server,
    add_ai_players,
    layout_checks,
    layout_problems,
    screenshot,
    settle,
    watch_layout,
)
from tests.browser.test_browser_a11y import violations

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
TABLE = re.compile(r"/room/[0-9A-Z]+$")
A_DAY_LEFT = re.compile(r"^(1 d|23 h) left$")


def turn_based_table(page: Page, server: Server, *, room_name: str, move_time: str) -> str:
    """Create a private two-seat turn-based table with an AI, start it and wait for the
    player's move; returns the table's address."""
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Room name").fill(room_name)
    page.get_by_label("Seats").fill("2")
    page.get_by_label("How it is played").select_option("turn")
    page.get_by_label("Time to move").select_option(move_time)
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(TABLE)
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_test_id("turn-status")).to_have_text(re.compile(r"^Your turn"))
    return page.url


def test_the_create_form_offers_a_time_to_move_and_no_limit_only_in_private(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**PHONE)
    page.goto(server.url)
    move_time = page.get_by_label("Time to move")
    expect(page.get_by_label("Clock")).to_be_visible()
    expect(move_time).to_be_hidden()
    page.get_by_label("How it is played").select_option("turn")
    expect(page.get_by_label("Clock")).to_be_hidden()
    expect(move_time).to_have_value("86400")
    offered = move_time.locator("option")
    expect(offered).to_have_text(
        ["1 hour", "8 hours", "1 day", "3 days", "No time limit (private tables)"]
    )
    move_time.select_option("none")
    expect(page.locator("#move-time-hint")).to_contain_text("nobody plays for them")
    page.get_by_label("Who can join").select_option("public")
    expect(offered).to_have_text(["1 hour", "8 hours", "1 day", "3 days"])
    expect(move_time).to_have_value("86400")
    expect(page.locator("#move-time-hint")).to_contain_text("the AI makes that one move")

    # The waiting room and the invitation say what the table is; a guest who joins sees it
    # among their games, waiting for the start.
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Room name").fill("Open slow table")
    page.get_by_role("button", name="Create room").click()
    expect(page).to_have_url(TABLE)
    expect(page.locator(".room-options")).to_contain_text("turn-based, 1 day to move")
    expect(page.locator(".turn-told")).to_contain_text("Each player has 1 day for each move")
    invite = page.get_by_label("Invite link").input_value()
    bea = open_page(**PHONE)
    bea.goto(server.url)
    listed = bea.locator(".room-card", has=bea.get_by_role("link", name="Open slow table"))
    expect(listed).to_contain_text("Turn-based · 1 day to move")
    bea.goto(invite)
    expect(bea.get_by_text("Turn-based · 1 day to move")).to_be_visible()
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_role("button", name="Join the room").click()
    expect(bea).to_have_url(TABLE)
    bea.goto(server.url)
    entry = bea.get_by_test_id("your-game")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text("Open slow table")
    expect(entry).to_contain_text("Waiting for the start · with Ann")


def test_your_games_lists_turn_based_tables_the_one_waiting_for_you_first(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**LAPTOP)
    daily = turn_based_table(page, server, room_name="Daily table", move_time="86400")
    expect(page.get_by_test_id("turn-note")).to_have_text("Turn-based · 1 day to move")
    expect(page.get_by_role("timer", name="Time left")).to_have_text(A_DAY_LEFT)
    settle(page)
    screenshot(page, "turn-table-laptop", as_seen=True)

    turn_based_table(page, server, room_name="Friends, no hurry", move_time="none")
    expect(page.get_by_test_id("turn-note")).to_have_text("Turn-based · no time limit")
    told = (
        "No time limit: the game waits for each player as long as they take, and nobody plays"
        " for them."
    )
    expect(page.locator("#turn-told")).to_have_text(told)
    expect(page.get_by_test_id("turn-note")).to_have_accessible_description(told)
    expect(page.locator(".clock")).to_be_empty()  # no deadline, no clock

    # Play now's turn-based table, AI in the other seat at once.
    page.goto(server.url)
    page.get_by_label("Name", exact=True).fill("Ann")
    page.get_by_label("Table").select_option("2")
    page.get_by_label("Live or turn-based").select_option("turn")
    page.get_by_role("button", name="Play now").click()
    page.get_by_role("button", name="Fill with AI now").click()
    expect(page).to_have_url(TABLE)
    expect(page.get_by_test_id("turn-note")).to_have_text("Turn-based · 1 day to move")
    play_now = page.url

    page.goto(server.url)
    games = page.get_by_role("region", name="Your games")
    expect(games).to_be_visible()
    entries = games.get_by_test_id("your-game")
    expect(entries).to_have_count(3)
    daily_entry = entries.filter(has=page.get_by_role("link", name="Daily table"))
    expect(daily_entry).to_contain_text(re.compile(r"Your move · (1 d|23 h) left · with Easy"))
    calm = entries.filter(has=page.get_by_role("link", name="Friends, no hurry"))
    expect(calm).to_contain_text("Your move · with Easy")
    # Waiting for you comes first: both tables Ann made wait for her move.
    yours = games.locator(".your-game.yours")
    expect(entries.first).to_have_class(re.compile(r"\byours\b"))
    assert yours.count() >= 2
    expect(games.get_by_text(re.compile(r"^\d games? waits? for your move\.$"))).to_be_visible()
    expect(page.get_by_role("heading", name="Recent games")).to_be_hidden()
    screenshot(page, "lobby-your-games-laptop")
    page.set_viewport_size(PHONE)
    games.scroll_into_view_if_needed()
    screenshot(page, "lobby-your-games-phone", as_seen=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the lobby scrolls sideways by {overflow} px"
    problems = violations(page, "lobby with your games")
    assert problems == [], "\n".join(problems)

    daily_entry.get_by_role("link").click()
    expect(page).to_have_url(daily)
    expect(page.get_by_test_id("turn-note")).to_be_visible()
    assert play_now != daily


def test_a_turn_based_table_fits_a_phone_with_its_time_to_move(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(**PHONE, touch=True)
    watch_layout(page, whole_table_in_view=True)
    turn_based_table(page, server, room_name="An hour each", move_time="3600")
    expect(page.get_by_test_id("turn-note")).to_have_text("Turn-based · 1 hour to move")
    an_hour_left = re.compile(r"^(1 h|59 min) left$")
    expect(page.get_by_role("timer", name="Time left")).to_have_text(an_hour_left)
    settle(page)
    screenshot(page, "turn-table-phone", as_seen=True)
    assert layout_checks(page) > 0
    assert layout_problems(page) == []
    problems = violations(page, "turn-based table")
    assert problems == [], "\n".join(problems)


def test_a_new_players_lobby_has_no_your_games(open_page: OpenPage, server: Server) -> None:
    page = open_page(**PHONE)
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Public rooms")).to_be_visible()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("heading", name="Your games")).to_be_hidden()

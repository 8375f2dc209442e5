"""The table at a laptop's and a phone's size: a whole game against three AI players fits the
screen at every state, the game over panel comes into view by itself, and a whole game can be
played with the keyboard alone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import (
    MOST_TURNS,
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    layout_problems,
    play_until_over,
    screenshot,
    table_version,
    wait_for_next_state,
    watch_layout,
)

SIZES = {"laptop": (1280, 800), "phone": (360, 740)}
MID_GAME_MOVE = 6
"""The move before which the mid-game screenshot is taken."""
MOST_TABS = 40
"""More Tab presses than it takes to go from a hand card to the moves."""


def start_against_three_ai(page: Page, server: Server) -> None:
    create_room(page, server, name="Ann", seats=4)
    add_ai_players(page, 3)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".hand-card").first).to_be_visible()


@pytest.mark.parametrize("size", SIZES)
def test_a_whole_game_against_three_ai_fits_the_screen(
    open_page: OpenPage, server: Server, size: str
) -> None:
    width, height = SIZES[size]
    page = open_page(width=width, height=height)
    watch_layout(page, whole_table_in_view=size == "laptop")
    start_against_three_ai(page, server)
    turns = 0

    def on_turn(page: Page) -> None:
        nonlocal turns
        turns += 1
        if turns == MID_GAME_MOVE:
            expect(page.locator("[data-motion]")).to_have_count(0)  # no card in flight
            screenshot(page, f"table-{size}", full_page=size == "phone")

    assert play_until_over(page, on_turn=on_turn) >= MID_GAME_MOVE
    winner = page.get_by_test_id("winner")
    expect(winner).to_contain_text(re.compile(r"wins?!|share the win!"))
    expect(page.get_by_role("heading", name="Game over")).to_be_in_viewport()
    expect(winner).to_be_in_viewport()
    expect(page.locator(".game-over svg.chart polyline")).to_have_count(4)
    cues = page.evaluate("async () => (await import('/static/js/sound.js')).playedCues()")
    assert "turn" in cues and cues[-1] == "gameover", cues
    expect(page.locator("[data-motion]")).to_have_count(0)
    screenshot(page, f"game-over-{size}", as_seen=True)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems)


def focused(page: Page) -> str:
    """The focused element: its tag, classes and text, for the assertion messages."""
    description: str = page.evaluate(
        "() => { const el = document.activeElement;"
        " const text = el.textContent.trim().slice(0, 60);"
        " return `${el.tagName.toLowerCase()}.${el.className} ${text}`; }"
    )
    return description


def select_a_card_and_tab_to_its_moves(page: Page) -> None:
    """From the first move: back to the hand with Shift+Tab, select a card with Space, look
    at the next card with the arrow key and come back, then Tab to the moves that use it."""
    for _ in range(MOST_TABS):
        page.keyboard.press("Shift+Tab")
        if "hand-card" in focused(page):
            break
    else:
        raise AssertionError("Shift+Tab never reached the hand")
    page.keyboard.press("Space")
    card = page.locator(".hand-card:focus")
    expect(card).to_have_attribute("aria-pressed", "true")
    expect(card).to_have_css("outline-style", "solid")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".hand-card:focus")).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".hand-card:focus")).to_have_attribute("aria-pressed", "true")
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        if re.match(r"button\.option", focused(page)):
            return
    raise AssertionError("Tab never reached a move")


def test_a_whole_game_is_played_with_the_keyboard_alone(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(width=1280, height=800)
    start_against_three_ai(page, server)
    over = page.get_by_role("heading", name="Game over")
    my_move = page.locator(".turn-status", has_text=re.compile(r"^Your"))
    for moves in range(MOST_TURNS):
        expect(over.or_(my_move)).to_be_visible()
        if over.is_visible():
            break
        # Focus is already on the first move, or on Answer/Concede in a challenge against us.
        expect(page.locator("button.option").first).to_be_focused()
        if moves == 0:
            select_a_card_and_tab_to_its_moves(page)
        version = table_version(page)
        page.keyboard.press("Enter")
        wait_for_next_state(page, version)
    else:
        raise AssertionError(f"the game did not end within {MOST_TURNS} moves")
    assert moves > 0
    expect(over).to_be_focused()
    expect(page.get_by_test_id("winner")).to_contain_text(re.compile(r"wins?!|share the win!"))

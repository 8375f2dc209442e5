"""The game review and hints in real Chromium (issue 24, "In the browser").

The games played here are played to be reviewed: their pages ask for reduced motion (no card
flies), which the review and the replay never use."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.harness import (
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    play_until_over,
    screenshot,
)
from tests.browser.test_browser_a11y import violations

REVIEW_WAIT_MS = 120_000
"""How long a short game's review may take at the test app's small search budget."""


def _play_a_short_game(page: Page, server: Server) -> None:
    create_room(page, server, name="Ann", seats=2)
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".hand-card").first).to_be_visible()
    # Hints are off unless the host turns them on.
    expect(page.get_by_role("button", name="Hint")).to_have_count(0)
    assert play_until_over(page) > 0


def test_a_finished_game_is_reviewed_on_its_replay_page(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(width=1280, height=800, motion=False)
    _play_a_short_game(page, server)

    page.get_by_role("link", name="Review this game").click()
    expect(page).to_have_url(re.compile(r"/games/[^/?]+\?review$"))
    review = page.locator("#review")
    expect(review.locator("progress").or_(review.locator(".decisions"))).to_be_visible()
    moments = page.get_by_role("list", name="Key moments")
    expect(moments).to_be_visible(timeout=REVIEW_WAIT_MS)
    review.evaluate("panel => panel.scrollIntoView({ block: 'start' })")
    screenshot(page, "review", as_seen=True)

    # Every decision is listed, each with a verdict in words.
    page.get_by_text(re.compile(r"^Every move \(\d+\)$")).click()
    every = page.get_by_role("list", name="Every move")
    expect(every.locator("button.decision").first).to_be_visible()
    verdicts = every.locator(".verdict").all_inner_texts()
    assert verdicts and set(verdicts) <= {
        "Forced",
        "Best",
        "Good",
        "Inaccuracy",
        "Mistake",
        "Blunder",
    }
    # The chart draws one win-chance line per seat.
    chart = review.locator("svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline")).to_have_count(2)
    assert violations(page, "the review") == []

    # A key moment jumps the replay to its step, and the step shows its verdict.
    moment = moments.locator("button.decision").first
    step = moment.get_attribute("data-step")
    moment.click()
    expect(page.get_by_test_id("step-counter")).to_have_text(re.compile(rf"^Step {step} of"))
    expect(page.get_by_test_id("step-review").locator(".verdict")).to_be_visible()
    expect(page.get_by_test_id("replay-action")).to_be_focused()


def test_the_review_fits_a_phone(open_page: OpenPage, server: Server) -> None:
    page = open_page(width=360, height=740, motion=False)
    _play_a_short_game(page, server)
    page.get_by_role("link", name="Review this game").click()
    review = page.locator("#review")
    expect(page.get_by_role("list", name="Key moments")).to_be_visible(timeout=REVIEW_WAIT_MS)
    review.evaluate("panel => panel.scrollIntoView({ block: 'start' })")
    screenshot(page, "review-phone", as_seen=True)
    page.get_by_text(re.compile(r"^Every move \(\d+\)$")).click()
    sideways = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert sideways <= 0, f"the review page scrolls sideways by {sideways} px"


def test_a_hint_is_asked_for_and_its_move_highlighted(open_page: OpenPage, server: Server) -> None:
    page = open_page(width=1280, height=800)
    create_room(page, server, name="Ann", seats=2)
    page.get_by_label(re.compile("^Allow hints")).check()
    expect(page.locator(".room-options")).to_contain_text("hints on")
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".turn-status", has_text=re.compile(r"^Your"))).to_be_visible()

    page.get_by_role("button", name="Hint").click()
    suggested = page.locator("button.option.suggested")
    expect(suggested).to_have_count(1)
    expect(suggested).to_contain_text("Suggested")
    expect(suggested).to_be_focused()
    expect(page.get_by_test_id("hint")).to_contain_text("Suggested: ")
    screenshot(page, "hint", as_seen=True)
    assert violations(page, "the table with a hint") == []
    page.set_viewport_size({"width": 1280, "height": 800})

    # Playing it brings the next state, and the hint is gone with the state it was for.
    version = page.locator(".felt").get_attribute("data-version")
    suggested.click()
    expect(page.locator(f'.felt:not([data-version="{version}"])')).to_be_visible()
    expect(page.locator("button.option.suggested")).to_have_count(0)
    expect(page.get_by_test_id("hint")).to_have_count(0)

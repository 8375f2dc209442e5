"""The pages around the table: help, leaderboard, and an invite link to no room."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.harness import OpenPage, Server

HELP_TOPICS = [
    "The three rule sets",
    "Draft piles",
    "Protected and exposed sets",
    "Why a challenge is unavailable",
    "Playing online",
    "How the Hard AI plays fairly",
]


def test_help_explains_the_rules_online_play_and_the_fair_ai(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(width=360, height=780)
    page.goto(server.url)
    page.get_by_role("link", name="How to play").click()
    for topic in HELP_TOPICS:
        expect(page.get_by_role("heading", name=topic)).to_be_visible()
    expect(page.locator("#fair-ai")).to_contain_text("invariance")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, "the help page does not fit a 360 px wide screen"


def test_leaderboard_page_shows_the_ranking(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.goto(server.url)
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Leaderboard").click()
    expect(page).to_have_url(f"{server.url}/leaderboard")
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    expect(page.get_by_role("table").or_(page.get_by_text("No rated games yet."))).to_be_visible()


def test_an_invite_link_to_no_room_says_so(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.goto(f"{server.url}/r/ZZZZZZZZ")
    expect(page.get_by_role("heading", name="Room not found")).to_be_visible()
    expect(page.get_by_role("alert")).not_to_be_empty()

"""axe-core on every page, at phone and laptop size: no serious or critical violation.

axe-core runs inside the page from the copy that the axe-playwright-python package ships
(nothing is fetched at test time). Each test walks its pages, checks each at both sizes and
reports every problem found at once, rule and element, so one run tells the whole story.
"""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.browser.harness import OpenPage, Server, add_ai_players, play_until_over
from tests.browser.test_browser_play import start_duel

SIZES = {"phone": {"width": 360, "height": 740}, "laptop": {"width": 1280, "height": 800}}
BLOCKING = {"serious", "critical"}
AXE = Axe()


def violations(page: Page, where: str) -> list[str]:
    """The serious and critical axe-core violations of the page as it is now, at both sizes."""
    found = []
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        # The table fits itself to the new size on the next frame (js/room.js, refit).
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        results = AXE.run(page)
        for violation in results.response["violations"]:
            if violation["impact"] not in BLOCKING:
                continue
            elements = "; ".join(" ".join(node["target"]) for node in violation["nodes"])
            found.append(
                f"{where} ({size}): {violation['id']} [{violation['impact']}] "
                f"{violation['help']}: {elements}"
            )
    return found


def test_the_axe_check_finds_a_violation_when_there_is_one(
    open_page: OpenPage, server: Server
) -> None:
    """The check is live: an image button with no name is reported as critical."""
    page = open_page()
    page.goto(server.url)
    expect(page.get_by_role("heading", name="Create a room")).to_be_visible()
    page.evaluate("document.querySelector('main').append(document.createElement('button'))")
    assert any("button-name" in problem for problem in violations(page, "lobby"))


def test_the_pages_around_the_table_pass_axe(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    problems: list[str] = []

    page.goto(server.url)
    expect(page.get_by_role("heading", name="Public rooms")).to_be_visible()
    problems += violations(page, "lobby")

    page.get_by_label("Your name").fill(" ")
    page.get_by_role("button", name="Create room").click()
    expect(page.get_by_role("alert")).to_be_visible()
    problems += violations(page, "lobby with a refused name")

    page.goto(f"{server.url}/leaderboard")
    expect(page.get_by_role("heading", name="Leaderboard")).to_be_visible()
    expect(page.get_by_text("Loading…")).to_have_count(0)
    problems += violations(page, "leaderboard")

    page.goto(f"{server.url}/account")
    expect(page.get_by_role("heading", name="Make an account")).to_be_visible()
    problems += violations(page, "account, signed out")

    page.goto(f"{server.url}/help")
    expect(page.get_by_role("heading", name="How to play Cash Stash")).to_be_visible()
    problems += violations(page, "help")

    page.goto(f"{server.url}/no/such/page")
    expect(page.get_by_role("heading", name="This card is not in the deck")).to_be_visible()
    problems += violations(page, "not found")

    page.goto(f"{server.url}/r/ZZZZZZZZ")
    expect(page.get_by_role("heading", name="Room not found")).to_be_visible()
    problems += violations(page, "invite to no room")

    assert problems == [], "\n".join(problems)


def test_the_room_from_invite_to_replay_passes_axe(open_page: OpenPage, server: Server) -> None:
    """Invite, waiting room, the table mid-game, the game over panel and the replay."""
    ann = open_page()
    problems: list[str] = []
    ann.goto(server.url)
    ann.get_by_label("Your name").fill("Ann")
    ann.get_by_label("Rule set").select_option("simple")
    ann.get_by_label("Seats").fill("2")
    ann.get_by_role("button", name="Create room").click()
    invite = ann.get_by_label("Invite link")
    expect(invite).to_have_value(re.compile(r"/r/[0-9A-Z]+$"))
    problems += violations(ann, "waiting room")

    bea = open_page()
    bea.goto(invite.input_value())
    expect(bea.get_by_role("button", name="Join the room")).to_be_visible()
    problems += violations(bea, "invite")

    add_ai_players(ann, 1)
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.locator(".hand button.hand-card").first).to_be_visible()
    ann.locator(".hand button.hand-card").first.click()
    problems += violations(ann, "table mid-game, a card selected")

    play_until_over(ann, prefer="Form")
    expect(ann.get_by_role("heading", name="Game over")).to_be_visible()
    expect(ann.locator(".game-over svg.chart")).to_be_visible()
    problems += violations(ann, "game over")

    ann.get_by_role("link", name="Watch the replay").click()
    expect(ann.get_by_test_id("standing").first).to_be_visible()
    ann.get_by_role("button", name="Next").click()
    problems += violations(ann, "replay")

    assert problems == [], "\n".join(problems)


def test_the_duel_passes_axe_for_both_sides(open_page: OpenPage, server: Server) -> None:
    ann = open_page()
    bea = open_page()
    start_duel(ann, bea, server)
    ann.locator('.hand .hand-card[data-kind="guitar"]').click()
    problems = violations(ann, "a card selected, its places lit")
    ann.get_by_role("button", name="Bea's top set: Vintage Guitar, $16,000, exposed").click()
    expect(bea.locator("#duel")).to_contain_text("Your answer: one matching card")
    expect(ann.locator("#duel")).to_be_visible()
    problems += violations(bea, "duel, defender to answer") + violations(ann, "duel, challenger")
    bea.get_by_test_id("all-moves").click()
    expect(bea.locator(".move-menu")).to_be_visible()
    problems += violations(bea, "the move menu open")
    assert problems == [], "\n".join(problems)


def scroll_violations(page: Page) -> list[str]:
    """The bar's lines axe finds scrolling with no keyboard access, at the window's size now."""
    found = AXE.run(page).response["violations"]
    rule = [v for v in found if v["id"] == "scrollable-region-focusable"]
    return [" ".join(node["target"]) for violation in rule for node in violation["nodes"]]


def test_a_bar_line_longer_than_its_room_is_reached_with_the_keyboard(
    open_page: OpenPage, server: Server
) -> None:
    """A note longer than the bar's line for it (a long hint on a laptop) scrolls inside: it
    becomes a tab stop, which axe requires, and stops being one once it fits again."""
    page = open_page(**SIZES["laptop"])
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Seats").fill("2")
    page.get_by_role("button", name="Create room").click()
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    # Once it is Ann's move nothing redraws the bar (a redraw would put back the note the test
    # writes below): the AI waits for her.
    expect(page.get_by_test_id("turn-status")).to_contain_text("Your turn")
    note = page.locator(".action-bar .bar-note")
    expect(note).to_be_visible()
    fit = "async () => (await import('/static/js/actionbar.js')).reachScrolledLines(document)"

    # The deal's own note may have been long already, and so a tab stop: start from a note
    # that is not one.
    note.evaluate(
        "(el, text) => { el.removeAttribute('tabindex'); el.textContent = text; }",
        "Suggested: a long move. " * 20,
    )
    assert any("bar-note" in target for target in scroll_violations(page))  # the check is live
    page.evaluate(fit)
    expect(note).to_have_attribute("tabindex", "0")
    assert scroll_violations(page) == []

    note.evaluate("el => { el.textContent = 'Short.'; }")
    page.evaluate(fit)
    expect(note).not_to_have_attribute("tabindex", re.compile(r".*"))
    expect(page.locator(".action-bar .turn-status")).to_have_attribute("tabindex", "-1")

"""Practice tables, the replay at 1280 and the key moment jump on a phone (issue 43).

One short game is played against the AI and reviewed; then: "Try again" opens a practice table
that is played to its end and shows its stash chart, with no link to a record that will never
exist and no failed request; the replay at 1280 lays every set's cards in one row; on a phone
a key moment's first line is not left under the sticky step controls. The pages ask for reduced
motion (no card flies): what is checked is the end of the game and the pages after it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Response, expect

from tests.browser.harness import (
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    play_until_over,
    screenshot,
    settle,
)
from tests.browser.test_browser_review import REVIEW_WAIT_MS


@pytest.fixture(scope="module")
def reviewed() -> dict[str, str]:
    """Filled by the first test that needs it: the reviewed game's address and its player."""
    return {}


def _open_review(page: Page, server: Server, reviewed: dict[str, str]) -> None:
    """The review of a game Ann played against Easy AI, as Ann sees it."""
    if not reviewed:
        size = page.viewport_size
        page.set_viewport_size({"width": 1280, "height": 800})
        create_room(page, server, name="Ann", seats=2)
        add_ai_players(page, 1)
        page.get_by_role("button", name="Start the game").click()
        assert play_until_over(page) > 0
        page.get_by_role("link", name="Review this game").click()
        expect(page).to_have_url(re.compile(r"/games/[^/?]+\?review$"))
        identity = page.evaluate("localStorage.getItem('cash-stash:player-id')")
        reviewed.update(url=page.url, identity=identity)
        if size:
            page.set_viewport_size(size)
    else:
        page.goto(server.url)
        page.evaluate(
            "id => localStorage.setItem('cash-stash:player-id', id)", reviewed["identity"]
        )
        page.goto(reviewed["url"])
    moments = page.get_by_role("list", name="Key moments")
    expect(moments.locator("button.decision").first).to_be_visible(timeout=REVIEW_WAIT_MS)


@pytest.mark.timeout(480)  # two whole games and a review, on a shared machine
def test_a_practice_game_ends_with_its_chart_and_no_dead_link(
    open_page: OpenPage, server: Server, reviewed: dict[str, str]
) -> None:
    page = open_page(width=1280, height=800, motion=False)
    _open_review(page, server, reviewed)
    failed: list[str] = []
    console: list[str] = []

    def note_response(response: Response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    page.on("response", note_response)
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)

    moments = page.get_by_role("list", name="Key moments").locator(":scope > li")
    moments.first.get_by_role("button", name=re.compile(r"^Try again")).click()
    expect(page).to_have_url(re.compile(r"/room/[0-9A-Z]+$"))
    play_until_over(page)

    over = page.locator(".game-over")
    chart = over.locator("svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline")).to_have_count(2)
    points = chart.locator("polyline").first.get_attribute("points") or ""
    assert len(points.split()) >= 2, "the chart has a point for every move seen"
    expect(over.get_by_test_id("practice-note")).to_contain_text("not recorded")
    expect(over.get_by_text("Loading the chart")).to_have_count(0)
    expect(over.get_by_role("link", name="Watch the replay")).to_have_count(0)
    expect(over.get_by_role("link", name="Review this game")).to_have_count(0)
    expect(over.get_by_role("link", name="Lobby")).to_be_visible()
    settle(page)
    screenshot(page, "practice-over", as_seen=True)

    # A reload keeps the chart (here on a phone): it is kept in the tab, not asked of a record.
    page.set_viewport_size({"width": 360, "height": 740})
    page.reload()
    expect(page.locator(".game-over svg.chart polyline")).to_have_count(2)
    expect(page.get_by_role("link", name="Watch the replay")).to_have_count(0)
    settle(page)
    screenshot(page, "practice-over-phone", as_seen=True)
    assert failed == [], f"failed requests: {failed}"
    assert console == [], f"console errors: {console}"


ROWS = """
(step) => [...step.querySelectorAll(".set-cards")].flatMap((set) => {
  const faces = [...set.querySelectorAll(":scope > .cardface, :scope > * > .cardface")];
  const tops = new Set(faces.map((face) => Math.round(face.getBoundingClientRect().top)));
  const label = set.closest("[aria-label]")?.getAttribute("aria-label") ?? "a set";
  const narrow = faces.filter((face) => face.getBoundingClientRect().width < 20);
  // A card beside another (not under it) shows its value: nothing covers it.
  const blank = faces.filter((face) => {
    const value = face.querySelector(".cf-value");
    if (face.matches(".group-action")) return false;
    return !value || getComputedStyle(value).visibility === "hidden";
  });
  const problems = [];
  if (tops.size > 1) problems.push(`${label}: ${faces.length} cards on ${tops.size} rows`);
  if (narrow.length) problems.push(`${label}: ${narrow.length} cards squeezed`);
  if (blank.length) problems.push(`${label}: ${blank.length} cards without their picture`);
  return problems;
})
"""


def test_the_replay_at_1280_lays_every_set_in_one_row(
    open_page: OpenPage, server: Server, reviewed: dict[str, str]
) -> None:
    page = open_page(width=1280, height=800, motion=False)
    _open_review(page, server, reviewed)
    last = int(page.locator("#step").get_attribute("max") or 0)
    sets = 0
    for step in range(1, last + 1):
        page.locator("#step").fill(str(step))
        expect(page.get_by_test_id("step-counter")).to_have_text(re.compile(rf"^Step {step} of"))
        box = page.locator(".step")
        problems = page.evaluate(ROWS, box.element_handle())
        assert problems == [], f"step {step}: {problems}"
        sets += box.locator(".set-cards").count()
    assert sets > 0, "the game's stacks held sets"
    page.locator("#step").fill(str(last))
    page.locator(".step").evaluate("box => box.scrollIntoView({ block: 'start' })")
    screenshot(page, "replay", as_seen=True)


def test_a_key_moment_on_a_phone_lands_below_the_step_controls(
    open_page: OpenPage, server: Server, reviewed: dict[str, str]
) -> None:
    page = open_page(width=360, height=740, motion=False)
    _open_review(page, server, reviewed)
    moments = page.get_by_role("list", name="Key moments").locator("button.decision")
    for index in range(moments.count()):
        moment = moments.nth(index)
        step = moment.get_attribute("data-step")
        moment.click()
        expect(page.get_by_test_id("step-counter")).to_have_text(re.compile(rf"^Step {step} of"))
        action = page.get_by_test_id("replay-action")
        expect(action).to_be_focused()
        controls = page.locator(".replay-controls").bounding_box()
        line = action.bounding_box()
        assert controls is not None and line is not None
        hidden = controls["y"] + controls["height"] - line["y"]
        assert hidden <= 0, f"step {step}: its first line is {hidden:.0f} px under the controls"
        assert line["y"] + line["height"] <= 740, f"step {step}: its first line is below the window"
        if index == 0:
            screenshot(page, "replay-moment-phone", as_seen=True)
        page.locator("#review").evaluate("panel => panel.scrollIntoView({ block: 'start' })")

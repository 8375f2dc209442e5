"""The review teaches, and the replay and review fit a laptop and a phone (issues 32 and 28).

One short game is played against the AI; its review is then read at 1280 by 800 and at 360 by 740
by the same person (the same guest id): each player's accuracy, the reasons in words, the
viewer's own key moments first and the others' marked, no "Better" under a move rated Best,
no sideways scroll and no clipped stack; then "Try again" opens a practice table at one of
the viewer's moments, says it is unrated, and is played to the next decision. The page asks for
reduced motion (no card flies): the review and the replay never use it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import (
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    play_until_over,
    screenshot,
    table_version,
    take_listed_move,
    wait_for_next_state,
)
from tests.browser.test_browser_review import REVIEW_WAIT_MS

SIZES = {"laptop": (1280, 800), "phone": (360, 740)}

CLIPPED = """
(root) => {
  const problems = [];
  const named = (el) => `${el.className || el.tagName}: "${el.textContent.trim().slice(0, 20)}"`;
  const clips = (el) => {
    const style = getComputedStyle(el);
    return [style.overflowX, style.overflowY].some((v) => v !== "visible");
  };
  for (const el of root.querySelectorAll("*")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || el.closest(".visually-hidden")) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left < -1 || r.right > innerWidth + 1) {
      problems.push(`${named(el)} off screen`);
      continue;
    }
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (!clips(up)) continue;
      const c = up.getBoundingClientRect();
      const out = r.left < c.left - 1 || r.right > c.right + 1;
      if (out || r.top < c.top - 1 || r.bottom > c.bottom + 1) {
        problems.push(`${named(el)} clipped by ${up.className || up.tagName}`);
        break;
      }
    }
  }
  return problems;
}
"""


@pytest.fixture(scope="module")
def browser_game() -> dict[str, str]:
    """Filled by the first test: the game's address and the player's stored identity."""
    return {}


def _play_and_open_review(page: Page, server: Server) -> tuple[str, str]:
    create_room(page, server, name="Ann", seats=2)
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    assert play_until_over(page) > 0
    page.get_by_role("link", name="Review this game").click()
    expect(page).to_have_url(re.compile(r"/games/[^/?]+\?review$"))
    identity = page.evaluate("localStorage.getItem('cash-stash:player-id')")
    return page.url, identity


def _sideways(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - innerWidth"))


WIDEST = """
() => [...document.querySelectorAll("body *")]
  .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5)
  .slice(-4)
  .map((el) => `${el.tagName}.${el.className} right ${el.getBoundingClientRect().right}`)
"""


def _check_review(page: Page) -> None:
    review = page.locator("#review")
    accuracy = page.get_by_test_id("accuracy")
    expect(accuracy.first).to_be_visible(timeout=REVIEW_WAIT_MS)
    expect(accuracy).to_have_count(2)
    # The viewer's own accuracy comes first, marked as theirs, a figure out of 100.
    expect(accuracy.first).to_contain_text("Ann (you)")
    figure = accuracy.first.locator(".accuracy-value").inner_text()
    assert 0 <= float(figure) <= 100
    expect(accuracy.first).to_contain_text(re.compile(r"\d+ inaccurac(y|ies) · \d+ mistakes? · "))

    # Key moments: Ann's own first; any other seat's after them, marked as theirs.
    moments = page.get_by_role("list", name="Key moments").locator(":scope > li")
    expect(moments.first).to_be_visible()
    seats = [
        int(seat or -1) for seat in moments.evaluate_all("els => els.map(e => e.dataset.seat)")
    ]
    own = [index for index, seat in enumerate(seats) if seat == 0]
    assert own and own == list(range(len(own))), f"Ann's moments do not lead: {seats}"
    for index, seat in enumerate(seats):
        mark = moments.nth(index).locator(".whose")
        expect(mark).to_have_count(0 if seat == 0 else 1)

    # Every inaccuracy, mistake and blunder says why; no move rated Best names a better one.
    page.get_by_text(re.compile(r"^Every move \(\d+\)$")).click()
    every = page.get_by_role("list", name="Every move")
    for verdict in ("inaccuracy", "mistake", "blunder"):
        flagged = every.locator(f'li:has([data-verdict="{verdict}"])')
        expect(flagged.locator("[data-testid=reason]")).to_have_count(flagged.count())
    best = every.locator('li:has([data-verdict="best"])')
    assert best.count() > 0
    expect(best.locator("[data-testid=better-move]")).to_have_count(0)
    expect(best.locator("[data-testid=reason]")).to_have_count(0)
    reasons = review.locator("[data-testid=reason]")
    assert reasons.count() > 0, "a game against Easy AI has at least one flagged move"
    wide = _sideways(page)
    assert wide <= 0, f"the review scrolls sideways by {wide} px: {page.evaluate(WIDEST)}"
    problems = page.evaluate(CLIPPED, review.element_handle())
    assert problems == [], problems


COVERED = """
(root) => {
  const covered = [];
  for (const face of root.querySelectorAll(".set-cards .cardface")) {
    face.scrollIntoView({ block: "center" });
    const r = face.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!face.contains(hit)) covered.push(face.textContent.trim().slice(0, 20));
  }
  return covered;
}
"""


def _check_replay_steps(page: Page) -> None:
    """Every few steps of the replay: nothing wider than the window, no stack's text clipped."""
    last = int(page.locator("#step").get_attribute("max") or 0)
    for step in sorted({1, last // 3, 2 * last // 3, last}):
        page.locator("#step").fill(str(step))
        expect(page.get_by_test_id("step-counter")).to_have_text(re.compile(rf"^Step {step} of"))
        wide = _sideways(page)
        assert wide <= 0, f"step {step}: scrolls sideways by {wide} px: {page.evaluate(WIDEST)}"
        problems = page.evaluate(CLIPPED, page.locator(".step").element_handle())
        assert problems == [], f"step {step}: {problems}"
        covered = page.evaluate(COVERED, page.locator(".step").element_handle())
        assert covered == [], f"step {step}: cards in a set hidden by others: {covered}"


@pytest.mark.parametrize("size", list(SIZES))
def test_the_review_teaches_and_fits(
    open_page: OpenPage, server: Server, size: str, browser_game: dict[str, str]
) -> None:
    width, height = SIZES[size]
    page = open_page(width=width, height=height, motion=False)
    if not browser_game:
        page.set_viewport_size({"width": 1280, "height": 800})
        url, identity = _play_and_open_review(page, server)
        browser_game.update(url=url, identity=identity)
        page.set_viewport_size({"width": width, "height": height})
    else:
        page.goto(server.url)
        page.evaluate(
            "id => localStorage.setItem('cash-stash:player-id', id)", browser_game["identity"]
        )
        page.goto(browser_game["url"])
    _check_review(page)
    if size == "laptop":
        # The player's own game list shows their accuracy in the reviewed game.
        own = page.get_by_test_id("accuracy").first.locator(".accuracy-value").inner_text()
        page.goto(server.url)
        expect(page.get_by_test_id("game-accuracy").first).to_have_text(f"accuracy {own}")
        page.go_back()
        expect(page.get_by_test_id("accuracy").first).to_be_visible(timeout=REVIEW_WAIT_MS)
    page.locator("#review").evaluate("panel => panel.scrollIntoView({ block: 'start' })")
    screenshot(page, "review" if size == "laptop" else "review-phone", as_seen=True)
    _check_replay_steps(page)
    page.locator(".step").evaluate("box => box.scrollIntoView({ block: 'start' })")
    screenshot(page, f"replay-{size}", as_seen=True)

    # Try again from Ann's first moment: a practice table at that decision, unrated.
    page.locator("#review").evaluate("panel => panel.scrollIntoView({ block: 'start' })")
    first = page.get_by_role("list", name="Key moments").locator(":scope > li").first
    first.get_by_role("button", name=re.compile(r"^Try again")).click()
    expect(page).to_have_url(re.compile(r"/room/[0-9A-Z]+$"))
    expect(page.get_by_text("unrated").first).to_be_visible()
    my_move = page.locator(".turn-status", has_text=re.compile(r"^Your"))
    expect(my_move).to_be_visible()
    screenshot(page, f"practice-{size}", as_seen=True)
    version = table_version(page)
    take_listed_move(page)
    wait_for_next_state(page, version)
    # Played on to the next decision: Ann's next move, or the end of the game.
    expect(my_move.or_(page.get_by_role("heading", name="Game over"))).to_be_visible()

"""The table read as a newcomer reads it, at a laptop's and a phone's size: six seats of
30-letter names and six-digit stashes read whole, a rival's top set says its value and whether
it is exposed, the list of the sets below the top says whose and which and closes as a popover
closes, the keyboard lands on an answer (never on Concede) and reaches End turn with one key,
the action bar keeps one height over a whole game, and the words are right ("1 card", "your")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import (
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
from tests.browser.server import DUEL_ROOM, RICH_ROOM, STEAL_ROOM, TALL_STACK_SIX_ROOM

SIZES = {"laptop": (1280, 800), "phone": (360, 740)}
NAMES = [
    "Wilhelmina Josephine Abernathy",
    "Maximiliana Fitzgerald-Ashby X",
    "Bartholomew Quincy Underwood J",
    "Konstantinos Papadopoulos Jnr.",
    "Alessandra Montgomery-Ruiz Lee",
    "Christabel Featherstonehaugh A",
]
"""Six names of 30 letters, the longest the lobby takes, each with a long word."""
RIVAL_STASHES = [189_000, 132_000, 174_000, 165_000, 223_000]
"""What the rich table's rivals start with (tests/browser/server.py, RICH_ROOM)."""

READ_WHOLE_JS = (Path(__file__).parent / "read_whole.js").read_text()
FAN_CHECK_JS = (Path(__file__).parent / "fan_check.js").read_text()


def short_money(value: int) -> str:
    return f"${round(value / 1000)}k"


def sit_at_the_rich_table(page: Page, server: Server, room_name: str = RICH_ROOM) -> None:
    """Six people of 30-letter names at the rich table (the five rivals joined by the API and
    never connected); the page sits in the first seat, whose move it is."""
    created = httpx.post(
        f"{server.url}/api/rooms", json={"name": NAMES[0], "room_name": room_name, "seats": 6}
    ).json()
    code = created["code"]
    for name in NAMES[1:]:
        joined = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"name": name})
        assert joined.status_code == 200, joined.text
    host = {"Authorization": f"Bearer {created['token']}"}
    started = httpx.post(f"{server.url}/api/rooms/{code}/start", headers=host)
    assert started.status_code == 200, started.text
    page.goto(f"{server.url}/help")
    seat = {"seat": created["seat"], "token": created["token"], "name": NAMES[0]}
    page.evaluate(
        "seats => localStorage.setItem('cash-stash:seats', JSON.stringify(seats))", {code: seat}
    )
    page.goto(f"{server.url}/room/{code}")
    expect(page.get_by_test_id("turn-status")).to_contain_text("Your turn")
    expect(page.locator("[data-motion]")).to_have_count(0)


def boxes_meet(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    assert a and b
    return (
        a["x"] < b["x"] + b["width"] - 0.5
        and b["x"] < a["x"] + a["width"] - 0.5
        and a["y"] < b["y"] + b["height"] - 0.5
        and b["y"] < a["y"] + a["height"] - 0.5
    )


@pytest.mark.parametrize("height", [740, 640])
def test_a_tall_stack_at_a_six_seat_table_leaves_the_piles_in_sight_on_a_phone(
    open_page: OpenPage, server: Server, height: int
) -> None:
    """Two rows of rivals with 30-letter names and your eight sets leave a phone's centre less
    than a pile's whole height: the piles' names and counts stand beside them and their cards
    are drawn smaller to fit, and no pile's name or count lies under your stack (before, the
    centre's row shrank and your stack covered them). On a short phone (640 px) your sets under
    the top one are "+7" beside it, not a line of their own (before, the centre got 3 px)."""
    page = open_page(width=360, height=height, touch=True)
    watch_layout(page, whole_table_in_view=True)
    sit_at_the_rich_table(page, server, room_name=TALL_STACK_SIX_ROOM)
    expect(page.locator(".player.you .strip-toggle")).to_have_text("+7 sets")
    short = "" if height == 740 else "-short"
    screenshot(page, f"table-six-tall-stack{short}-phone", as_seen=True)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:20])
    deck = page.locator(".felt [data-zone='deck'] .cardback").first.bounding_box()
    assert deck is not None and deck["width"] < 56, deck  # smaller than a set's card


@pytest.mark.parametrize("size", SIZES)
def test_six_long_names_and_six_digit_stashes_read_whole(
    open_page: OpenPage, server: Server, size: str
) -> None:
    width, height = SIZES[size]
    page = open_page(width=width, height=height, touch=size == "phone")
    watch_layout(page, whole_table_in_view=True)
    sit_at_the_rich_table(page, server)
    rivals = page.locator(".rivals .player")
    expect(rivals).to_have_count(5)
    read: dict[str, Any] = page.evaluate(f"({READ_WHOLE_JS})()")
    assert not read["problems"], "\n".join(read["problems"])
    money = short_money if size == "phone" else (lambda value: f"${value:,}")
    assert read["shown"] == [
        {"name": name, "stash": money(stash)}
        for name, stash in zip(NAMES[1:], RIVAL_STASHES, strict=True)
    ]
    # Each rival's top set says its value and whether it is exposed, without a card selected.
    for index in range(5):
        top = rivals.nth(index).locator("[data-zone='stack'] [data-depth='0']")
        expect(top.locator(".badge")).to_be_visible()
        expect(top.locator(".badge")).to_have_text(re.compile(r"^(exposed|protected)$"))
        expect(top.locator(".set-value")).to_be_visible()
        expect(top.locator(".set-value")).to_have_text(re.compile(r"^\$\d"))
    # One card on the discard pile: "1 card".
    discard = page.locator('.felt [data-place="discard"]')
    expect(discard).to_have_attribute("aria-label", re.compile(r"on top, 1 card$"))
    expect(page.locator("[data-motion]")).to_have_count(0)
    screenshot(page, f"table-six-long-names-{size}", as_seen=True)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:40])


def open_the_list(page: Page, *, touch: bool) -> Any:
    toggle = page.locator(".rivals .player").first.locator(".strip-toggle")
    toggle.tap() if touch else toggle.click()
    listed = page.locator(".stack-list:popover-open")
    expect(listed).to_be_visible()
    return listed


@pytest.mark.parametrize("size", SIZES)
def test_the_list_of_sets_says_whose_and_closes_like_a_popover(
    open_page: OpenPage, server: Server, size: str
) -> None:
    width, height = SIZES[size]
    touch = size == "phone"
    page = open_page(width=width, height=height, touch=touch)
    watch_layout(page, whole_table_in_view=True)
    sit_at_the_rich_table(page, server)
    # The discard pile is lit for a selected card while the list is open: never covered.
    card = page.locator(".hand .hand-card").first
    card.tap() if touch else card.click()
    expect(page.locator('.felt [data-place="discard"].lit')).to_have_count(1)
    listed = open_the_list(page, touch=touch)
    expect(listed).to_contain_text(f"{NAMES[1]}'s 3 sets below the top")
    for words in ("Mansion", "$65,000", "Coin Collection", "$14,000", "Jewelry", "$20,000"):
        expect(listed).to_contain_text(words)
    expect(listed.locator("li")).to_have_count(3)
    for zone in ("deck", "discard", "out"):
        covered = page.locator(f".felt [data-zone='{zone}']")
        assert not boxes_meet(listed.bounding_box(), covered.bounding_box()), f"it covers {zone}"
    for kept in (".player.you [data-zone='hand']", ".action-bar"):
        assert not boxes_meet(listed.bounding_box(), page.locator(kept).bounding_box()), kept
    expect(page.locator('.felt [data-place="discard"].lit')).to_have_count(1)
    screenshot(page, f"table-sets-list-{size}", as_seen=True)

    page.keyboard.press("Escape")
    expect(page.locator(".stack-list:popover-open")).to_have_count(0)
    toggle = page.locator(".rivals .player").first.locator(".strip-toggle")
    expect(toggle).to_have_attribute("aria-expanded", "false")

    # A press anywhere else closes it, and goes on to what it pressed: the card is unselected.
    open_the_list(page, touch=touch)
    card.tap() if touch else card.click()
    expect(page.locator(".stack-list:popover-open")).to_have_count(0)
    expect(card).to_have_attribute("aria-pressed", "false")

    # Its Close button closes it, and the strip's button opens it again (and on a laptop,
    # where the list leaves it in view, closes it).
    open_the_list(page, touch=touch)
    close = page.locator(".stack-list").get_by_role("button", name="Close")
    close.tap() if touch else close.click()
    expect(page.locator(".stack-list:popover-open")).to_have_count(0)
    if not touch:
        open_the_list(page, touch=touch)
        toggle.click()
        expect(page.locator(".stack-list:popover-open")).to_have_count(0)

    if touch:
        # The Log drawer opened over the table: the list is never drawn over it.
        open_the_list(page, touch=touch)
        page.get_by_role("tab", name="Log").tap()
        expect(page.locator(".side:not(.closed)")).to_be_visible()
        expect(page.locator(".stack-list:popover-open")).to_have_count(0)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:40])


def seat_ann_and_bea(ann: Page, bea: Page, server: Server, room_name: str) -> None:
    invite = create_room(ann, server, name="Ann", seats=2, room_name=room_name)
    bea.goto(invite)
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_role("button", name="Join the room").click()
    expect(ann.locator(".seat-row", has_text="Bea")).to_be_visible()
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn")


def challenge_beas_guitar(ann: Page) -> None:
    ann.locator('.hand .hand-card[data-kind="guitar"]').click()
    version = table_version(ann)
    ann.locator('.felt [data-place="set:1:0"]').click()
    wait_for_next_state(ann, version)


@pytest.mark.parametrize("size", SIZES)
def test_a_challenge_puts_the_focus_on_the_first_answer_and_says_your(
    open_page: OpenPage, server: Server, size: str
) -> None:
    ann = open_page(width=1280, height=800)
    bea = open_page(*SIZES[size])
    seat_ann_and_bea(ann, bea, server, DUEL_ROOM)
    challenge_beas_guitar(ann)
    expect(bea.locator(".duel.yours")).to_be_visible()
    # The answers come before Concede, and the first of them has the focus.
    answer = bea.locator(".bar-buttons > button.answer").first
    expect(answer).to_be_focused()
    moves = bea.locator(".bar-buttons > button.option").evaluate_all(
        "buttons => buttons.map((b) => b.dataset.move)"
    )
    assert moves.index("answer") < moves.index("concede"), moves
    # The last move speaks to Bea as the duel does.
    expect(bea.get_by_test_id("last-move")).to_contain_text(
        "Ann challenges your top Vintage Guitar set with"
    )
    expect(ann.get_by_test_id("last-move")).to_contain_text("Ann challenges Bea's top")
    # Enter out of habit answers; it never gives the set away.
    version = table_version(bea)
    bea.keyboard.press("Enter")
    wait_for_next_state(bea, version)
    expect(ann.locator("#duel")).to_contain_text("Bea played")

    # Ann has nothing left to answer with: she concedes, and her second action may end the
    # turn: E takes the focus to End turn, Enter ends it.
    version = table_version(ann)
    ann.locator(".bar-buttons > button.concede").click()
    wait_for_next_state(ann, version)
    end_turn = ann.locator(".bar-buttons > button.end-turn")
    expect(end_turn).to_have_attribute("aria-keyshortcuts", "E")
    expect(ann.get_by_role("region", name="Your move")).to_be_visible()
    ann.keyboard.press("e")
    expect(end_turn).to_be_focused()
    version = table_version(ann)
    ann.keyboard.press("Enter")
    wait_for_next_state(ann, version)
    expect(ann.locator(".log")).to_contain_text("Ann ends the turn.")


def test_with_no_answer_the_focus_is_on_the_prompt_never_on_concede(
    open_page: OpenPage, server: Server
) -> None:
    """Bea holds no guitar and no wild: Concede is her only move, and still not the default."""
    ann = open_page(width=1280, height=800)
    bea = open_page(width=1280, height=800)
    seat_ann_and_bea(ann, bea, server, STEAL_ROOM)
    challenge_beas_guitar(ann)
    expect(bea.locator(".duel.yours")).to_be_visible()
    expect(bea.locator(".bar-buttons > button.answer")).to_have_count(0)
    expect(bea.get_by_test_id("turn-status")).to_be_focused()
    expect(bea.locator(".bar-buttons > button.concede")).not_to_be_focused()


BAR_WATCH_JS = """
(() => {
  window.barHeights = new Set();
  window.barStates = 0;
  let seen = null;
  new MutationObserver(() => {
    const bar = document.querySelector('.action-bar');
    const felt = document.querySelector('.felt');
    if (!bar || !felt) return;
    window.barHeights.add(Math.round(bar.getBoundingClientRect().height * 10) / 10);
    if (felt.dataset.version !== seen) { seen = felt.dataset.version; window.barStates += 1; }
  }).observe(document, { childList: true, subtree: true, characterData: true });
})();
"""


@pytest.mark.parametrize("size", SIZES)
def test_the_action_bar_keeps_one_height_over_a_whole_game(
    open_page: OpenPage, server: Server, size: str
) -> None:
    """Every state of a four-player game, and a card aimed at each turn (the bar's note, the
    lit places, a Swap's targets): the bar never changes height, so the hand never moves."""
    width, height = SIZES[size]
    page = open_page(width=width, height=height, motion=False)
    page.add_init_script(BAR_WATCH_JS)
    create_room(page, server, name="Ann", seats=4)
    add_ai_players(page, 3)
    page.get_by_role("button", name="Start the game").click()
    hand = page.locator(".player.you [data-zone='hand']")

    def aim(page: Page) -> None:
        cards = page.locator(".hand .hand-card")
        if not cards.count():
            return
        before = hand.bounding_box()
        cards.first.click(position={"x": 8, "y": 40})
        expect(cards.first).to_have_attribute("aria-pressed", "true")
        assert hand.bounding_box() == before, "the hand moved as a card was aimed"
        cards.first.click(position={"x": 8, "y": 40})
        expect(cards.first).to_have_attribute("aria-pressed", "false")

    moves = play_until_over(page, on_turn=aim)
    heights = page.evaluate("[...window.barHeights]")
    states = page.evaluate("window.barStates")
    assert moves > 0 and states > moves
    assert len(heights) == 1, f"the bar took {len(heights)} heights over {states} states: {heights}"


RIVAL_DRAW_JS = """
async () => {
  const { createMotion } = await import("/static/js/motion.js");
  const make = (tag, attrs, children = [], styles = {}) => {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
    Object.assign(el.style, styles);
    el.append(...children);
    return el;
  };
  // A phone's rival as the table draws it (css/style.css): the hand is its count in words,
  // its backs hidden.
  const table = (count) => [
    make("div", { "data-zone": "deck" }, ["Deck"], { width: "60px", height: "80px" }),
    make("div", { class: "rivals compact" }, [
      make("section", { "data-seat": "1" }, [
        make("div", { "data-zone": "hand", class: "rival-hand" }, [
          make("span", { class: "cardback" }),
          make("span", { class: "hand-count" }, [`${count} cards`]),
        ]),
        make("div", { "data-zone": "stack" }),
      ]),
    ]),
  ];
  const root = make("div", { id: "table" }, table(4));
  document.body.append(root);
  const motion = createMotion();
  const before = motion.capture(root);
  root.replaceChildren(...table(6));
  const draw = { round: 0, event: "draw", seat: 1, text: "Bea draws 2 cards.", count: 2 };
  motion.update(root, before, [draw]);
  // A batch starts flying on the next frame.
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return [...document.querySelectorAll("[data-motion='draw']")].map((ghost) => ghost.textContent);
}
"""


def test_a_rivals_draw_flies_cards_not_the_words_of_its_count(
    open_page: OpenPage, server: Server
) -> None:
    """On a phone a rival's hand is its count in words ("6 cards"): a draw flies card shapes
    from the deck to it, never those words across the deck."""
    page = open_page(width=360, height=740)
    page.goto(f"{server.url}/help")
    ghosts: list[str] = page.evaluate(RIVAL_DRAW_JS)
    assert len(ghosts) == 2, ghosts
    assert all(not text.strip() for text in ghosts), ghosts


@pytest.mark.parametrize("size", SIZES)
def test_the_lobbys_fan_cuts_no_name_and_covers_no_word(
    open_page: OpenPage, server: Server, size: str
) -> None:
    page = open_page(*SIZES[size])
    page.goto(server.url)
    expect(page.locator(".hero-card")).to_have_count(3)
    problems: list[str] = page.evaluate(f"({FAN_CHECK_JS})()")
    assert not problems, problems
    if size == "phone":
        screenshot(page, "lobby-phone", full_page=False)


NAME_SIZES_JS = """() => [...document.querySelectorAll('.rivals .player-name')].map(name => ({
  px: parseFloat(getComputedStyle(name).fontSize),
  over: name.scrollWidth > name.clientWidth + 0.5,
}))"""
TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def name_sizes_at(page: Page, width: int) -> list[dict[str, Any]]:
    """The rivals' names' sizes once the window is ``width`` wide and the table has fitted
    itself (a resize is handled at the next frame)."""
    page.set_viewport_size({"width": width, "height": 740})
    page.evaluate(TWO_FRAMES_JS)
    sizes: list[dict[str, Any]] = page.evaluate(NAME_SIZES_JS)
    return sizes


def test_a_resized_window_sets_the_rivals_names_again(open_page: OpenPage, server: Server) -> None:
    """The rivals' names are fitted at every redraw and on a resize: a narrower window sets a
    long word smaller at once (no name spills over its box until the next move), and a wider
    one gives the names back the size a redraw at that width gives them."""
    page = open_page(width=360, height=740, touch=True)
    sit_at_the_rich_table(page, server)
    drawn: list[dict[str, Any]] = page.evaluate(NAME_SIZES_JS)
    assert len(drawn) == 5 and not any(name["over"] for name in drawn), drawn
    narrow = name_sizes_at(page, 300)
    assert not any(name["over"] for name in narrow), narrow
    assert any(a["px"] < b["px"] for a, b in zip(narrow, drawn, strict=True)), (narrow, drawn)
    assert name_sizes_at(page, 360) == drawn

"""Motion (static/js/motion.js) in the real browser: log entries in, ghost flights out.

The unit-level tests build a small table that follows the client's DOM contract (data-zone,
data-seat, data-set/data-depth, data-card), render one state, capture, render the next, and
hand motion.js the log entries the engine wrote for that change (shapes copied from engine
output). They read the flights back from the Web Animations API.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import OpenPage, Server, screenshot
from tests.browser.server import STEAL_ROOM

# A tiny table renderer after the DOM contract, installed on the page as window.table.
# state = {hands: {seat: [[id, kind]…]}, backs: {seat: count}, stacks: {seat: [[id…]…] bottom
# → top}, discard: [id…], duel: [id…] | null, deck: count, piles: [top id | null…]}
TABLE_JS = """
async () => {
  const motionModule = await import("/static/js/motion.js");
  const make = (tag, attrs = {}, styles = {}, children = []) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    Object.assign(el.style, styles);
    el.append(...children);
    return el;
  };
  const cardStyle = {display: "inline-block", width: "40px", height: "56px", margin: "2px",
                     background: "#fff", border: "1px solid #333", verticalAlign: "top"};
  const card = (id) => make("span", {"data-card": String(id), "data-kind": "guitar"}, cardStyle,
                            [String(id)]);
  const back = () => make("span", {}, {...cardStyle, background: "#0b5e3c"});
  const root = make("div", {id: "table"}, {position: "absolute", left: "0", top: "0",
                    width: "900px", background: "#eee", zIndex: "1"});
  document.body.append(root);
  const render = (state) => {
    const seats = Object.keys({...state.hands, ...state.backs, ...state.stacks}).sort();
    const areas = seats.map((seat) => {
      const hand = (state.hands?.[seat] ?? []).map(([id]) => card(id));
      for (let i = 0; i < (state.backs?.[seat] ?? 0); i += 1) hand.push(back());
      const sets = [...(state.stacks?.[seat] ?? [])].reverse().map((ids, depth) =>
        make("li", {"data-set": String(ids[0]), "data-depth": String(depth)},
             {padding: "4px", listStyle: "none", minHeight: "60px"}, ids.map(card)));
      return make("section", {"data-seat": seat}, {height: "260px", marginBottom: "8px"}, [
        make("div", {"data-zone": "hand"}, {minHeight: "60px"}, hand),
        make("ol", {"data-zone": "stack"}, {margin: "0", padding: "0"}, sets),
      ]);
    });
    const centre = make("div", {}, {display: "flex", gap: "20px", height: "70px"}, [
      make("div", {"data-zone": "deck"}, {width: "60px"}, state.deck ? [back()] : []),
      make("div", {"data-zone": "discard"}, {width: "60px"},
           (state.discard ?? []).slice(-1).map(card)),
      make("div", {"data-zone": "out"}, {width: "60px", height: "60px"}, []),
      ...(state.piles ?? []).map((top, pile) =>
        make("div", {"data-zone": "pile", "data-pile": String(pile)}, {width: "60px"},
             top === null ? [] : [card(top)])),
      ...(state.duel
        ? [make("div", {"data-zone": "duel"}, {width: "200px"}, state.duel.map(card))]
        : []),
    ]);
    root.replaceChildren(centre, ...areas);
  };
  const rectOf = (selector) => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return {left: r.left, top: r.top, width: r.width, height: r.height};
  };
  // Every ghost that enters or leaves motion's layer, in order, with its kind.
  const events = [];
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.dataset?.motion) events.push(["add", node.dataset.motion]);
      }
      for (const node of record.removedNodes) {
        if (node.dataset?.motion) events.push(["remove", node.dataset.motion]);
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
  const flights = () => document.getAnimations()
    .filter((a) => a.effect?.target?.dataset?.motion)
    .map((a) => {
      const ghost = a.effect.target;
      return {kind: ghost.dataset.motion, from: a.effect.getKeyframes()[0].transform,
              left: parseFloat(ghost.style.left), top: parseFloat(ghost.style.top),
              width: parseFloat(ghost.style.width), height: parseFloat(ghost.style.height),
              ariaHidden: ghost.getAttribute("aria-hidden"),
              pointer: getComputedStyle(ghost).pointerEvents,
              position: getComputedStyle(ghost).position};
    });
  const motion = motionModule.createMotion();
  // The flights as launched: read in the same task, so a slow page cannot see them land first.
  const step = (state, entries) => {
    const before = motion.capture(root);
    render(state);
    motion.update(root, before, entries);
    return flights();
  };
  window.table = {render, rectOf, events, flights, motion, step, root};
}
"""

SEATS_BEFORE_STEAL: dict[str, Any] = {
    "hands": {"0": [], "1": []},
    "backs": {"0": 4, "1": 5},
    "stacks": {"0": [[70, 71]], "1": [[10, 11], [20, 21]]},
    "discard": [30],
    "deck": 40,
    "duel": [22],
}
SEATS_AFTER_STEAL: dict[str, Any] = {
    **SEATS_BEFORE_STEAL,
    "stacks": {"0": [[70, 71], [20, 21, 22]], "1": [[10, 11]]},
    "duel": None,
}
# As the engine logs it (engine/turns.py settle_challenge), for a challenger who won.
STEAL = {
    "round": 0,
    "event": "challenge_won",
    "seat": 0,
    "text": "Ann wins the challenge and takes the Vintage Guitar set ($24,000).",
    "challenger": 0,
    "defender": 1,
    "cards": [20, 21, 22],
}
CHALLENGE = {
    "round": 0,
    "event": "challenge",
    "seat": 0,
    "text": "Ann challenges Bea's top Vintage Guitar set with Vintage Guitar.",
    "target": 1,
    "depth": 0,
    "cards": [22],
}
CONCEDE = {"round": 0, "event": "concede", "seat": 1, "text": "Bea concedes."}
TURN = {"round": 0, "event": "turn", "seat": 1, "text": "Bea's turn."}


def discard_entry(seat: int, card: int) -> dict[str, Any]:
    return {
        "round": 0,
        "event": "discard",
        "seat": seat,
        "text": f"Seat {seat} discards a Vintage Guitar.",
        "card": card,
    }


def form_set_entry(seat: int, cards: list[int]) -> dict[str, Any]:
    return {
        "round": 0,
        "event": "form_set",
        "seat": seat,
        "text": f"Seat {seat} forms a set: Vintage Guitar and Vintage Guitar.",
        "cards": cards,
    }


TRANSLATE = re.compile(r"translate\(([-\d.e]+)px, ([-\d.e]+)px\)")


def offset(transform: str) -> tuple[float, float]:
    match = TRANSLATE.search(transform)
    assert match, transform
    return float(match.group(1)), float(match.group(2))


def table_page(open_page: OpenPage, server: Server) -> Page:
    page = open_page()
    page.goto(f"{server.url}/help")
    page.evaluate(TABLE_JS)
    return page


def played(page: Page) -> int:
    return int(page.evaluate("document.documentElement.dataset.motionPlayed || '0'"))


def test_a_steal_flies_the_set_from_the_losers_stack_to_the_winners(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    page.evaluate("s => table.render(s)", SEATS_BEFORE_STEAL)
    source = page.evaluate('table.rectOf(\'[data-seat="1"] [data-set][data-depth="0"]\')')
    flights = page.evaluate(
        "([s, e]) => table.step(s, e)", [SEATS_AFTER_STEAL, [CONCEDE, STEAL, TURN]]
    )
    destination = page.evaluate('table.rectOf(\'[data-seat="0"] [data-set][data-depth="0"]\')')
    sets = [f for f in flights if f["kind"] == "steal" and f["width"] == destination["width"]]
    assert sets, flights
    ghost = sets[0]
    assert (ghost["left"], ghost["top"]) == (destination["left"], destination["top"])
    dx, dy = offset(ghost["from"])
    assert dx == pytest.approx(source["left"] - destination["left"], abs=0.5)
    assert dy == pytest.approx(source["top"] - destination["top"], abs=0.5)
    assert ghost["position"] == "fixed"
    assert ghost["ariaHidden"] == "true"
    assert ghost["pointer"] == "none"
    # A ghost is only a picture: nothing that finds the table's elements finds it too.
    hooks = "[...document.querySelectorAll('[data-card], [data-set], [data-zone], [data-seat]')]"
    assert page.evaluate(f"{hooks}.every((el) => table.root.contains(el))")
    assert page.evaluate("document.documentElement.dataset.motionLast") == "steal"
    assert played(page) == 1

    landed = '[data-seat="0"] [data-set][data-depth="0"]'
    assert "motion-fresh" in (page.get_attribute(landed, "class") or "")
    # A re-render with no new entries keeps the still fresh highlight on the new DOM.
    page.evaluate("s => table.step(s, [])", SEATS_AFTER_STEAL)
    assert "motion-fresh" in (page.get_attribute(landed, "class") or "")
    expect(page.locator("[data-motion]")).to_have_count(0)
    expect(page.locator(".motion-fresh")).to_have_count(0)
    assert played(page) == 1


def test_batches_play_in_order_one_after_the_other(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    first = {"hands": {"0": [[5, "guitar"], [6, "guitar"], [7, "guitar"]]}, "discard": [30]}
    second = {**first, "hands": {"0": [[6, "guitar"], [7, "guitar"]]}, "discard": [30, 5]}
    third = {**second, "hands": {"0": []}, "stacks": {"0": [[6, 7]]}}
    page.evaluate("s => table.render(s)", first)
    page.evaluate(
        "([a, b, ea, eb]) => { table.step(a, ea); table.step(b, eb); }",
        [second, third, [discard_entry(0, 5)], [form_set_entry(0, [6, 7])]],
    )
    page.wait_for_function("() => table.events.filter(e => e[0] === 'remove').length === 3")
    events = page.evaluate("table.events")
    assert events == [
        ["add", "discard"],
        ["remove", "discard"],
        ["add", "form_set"],
        ["add", "form_set"],
        ["remove", "form_set"],
        ["remove", "form_set"],
    ]
    assert played(page) == 2
    assert page.evaluate("document.documentElement.dataset.motionLast") == "form_set"


def test_a_backlog_drops_to_the_newest_batch(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    hand = [[card, "guitar"] for card in range(1, 6)]
    states = []
    for count in range(5):
        states.append({"hands": {"0": hand[count:]}, "discard": [card for card, _ in hand[:count]]})
    page.evaluate("s => table.render(s)", states[0])
    page.evaluate(
        "([states, entries]) => states.forEach((s, i) => table.step(s, entries[i]))",
        [states[1:], [[discard_entry(0, card)] for card in range(1, 5)]],
    )
    newest = page.locator('[data-zone="discard"] [data-card="4"]')
    expect(newest).to_have_class(re.compile(r"\bmotion-fresh\b"))
    expect(page.locator("[data-motion]")).to_have_count(0)
    # The first batch started at once; the fourth arrived with three waiting: only the newest
    # of them played.
    assert played(page) == 2
    adds = [kind for what, kind in page.evaluate("table.events") if what == "add"]
    assert adds == ["discard", "discard"]


HIDE_TAB_JS = """() => {
  Object.defineProperty(document, "hidden", {value: true, configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_hidden_tab_plays_nothing_but_still_marks_what_changed(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    page.evaluate("s => table.render(s)", SEATS_BEFORE_STEAL)
    page.evaluate(HIDE_TAB_JS)
    launched = page.evaluate(
        "([s, e]) => table.step(s, e)", [SEATS_AFTER_STEAL, [CONCEDE, STEAL, TURN]]
    )
    assert launched == []
    assert page.evaluate("table.events") == []
    assert played(page) == 0
    assert "motion-fresh" in (
        page.get_attribute('[data-seat="0"] [data-set][data-depth="0"]', "class") or ""
    )


def test_hiding_the_tab_stops_what_is_flying(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    page.evaluate("s => table.render(s)", SEATS_BEFORE_STEAL)
    launched = page.evaluate("([s, e]) => table.step(s, e)", [SEATS_AFTER_STEAL, [STEAL]])
    assert launched != []
    page.evaluate(HIDE_TAB_JS)
    assert page.evaluate("table.flights()") == []
    assert page.locator("[data-motion]").count() == 0


def test_leaving_the_page_takes_every_ghost_and_highlight_away(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    page.evaluate("s => table.render(s)", SEATS_BEFORE_STEAL)
    page.evaluate("([s, e]) => table.step(s, e)", [SEATS_AFTER_STEAL, [STEAL]])
    assert page.locator(".motion-fresh").count() == 1
    page.evaluate("table.motion.clear()")
    assert page.evaluate("table.flights()") == []
    assert page.locator("[data-motion], .motion-layer, .motion-fresh, .motion-landing").count() == 0


def test_reduced_motion_plays_nothing_and_stops_what_is_flying(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    page.evaluate("s => table.render(s)", SEATS_BEFORE_STEAL)
    launched = page.evaluate("([s, e]) => table.step(s, e)", [SEATS_AFTER_STEAL, [STEAL]])
    assert launched != []
    page.emulate_media(reduced_motion="reduce")
    expect(page.locator("[data-motion]")).to_have_count(0)
    launched = page.evaluate("([s, e]) => table.step(s, e)", [SEATS_BEFORE_STEAL, [STEAL]])
    assert launched == []
    assert played(page) == 1


def test_unknown_and_malformed_entries_animate_nothing(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    before = {"backs": {"1": 3}, "discard": [30]}
    after = {"backs": {"1": 2}, "discard": [30, 31]}
    page.evaluate("s => table.render(s)", before)
    entries = [
        {"round": 0, "event": "timeout", "seat": 1, "text": "Time ran out: the AI played for Bea."},
        {"round": 0, "event": "away", "seat": 1, "text": "Bea is away: the AI plays for them."},
        {"event": "discard", "seat": 1, "card": "not a card"},
        {"event": "form_set", "seat": 1, "cards": "1,2"},
        {"event": "__proto__", "seat": 1},
        "not an entry",
        None,
        discard_entry(1, 31),
        TURN,
    ]
    launched = page.evaluate("([s, e]) => table.step(s, e)", [after, entries])
    assert [f["kind"] for f in launched] == ["discard"]
    assert played(page) == 1


def test_a_swap_flies_each_top_set_to_the_other_stack(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    before = {
        "hands": {"0": [[106, "swap"]]},
        "backs": {"1": 3},
        "stacks": {"0": [[1, 2]], "1": [[3, 4], [5, 6]]},
    }
    after = {**before, "hands": {"0": []}, "stacks": {"0": [[5, 6]], "1": [[3, 4], [1, 2]]}}
    page.evaluate("s => table.render(s)", before)
    mine = page.evaluate("table.rectOf('[data-set=\"1\"]')")
    theirs = page.evaluate("table.rectOf('[data-set=\"5\"]')")
    swap = {
        "round": 0,
        "event": "swap",
        "seat": 0,
        "text": "Ann plays a Swap: their top set trades places with Bea's.",
        "card": 106,
        "target": 1,
    }
    flights = page.evaluate("([s, e]) => table.step(s, e)", [after, [swap]])
    lands = {(f["left"], f["top"]): offset(f["from"]) for f in flights}
    now_mine = page.evaluate("table.rectOf('[data-set=\"5\"]')")
    now_theirs = page.evaluate("table.rectOf('[data-set=\"1\"]')")
    dx, dy = lands[(now_theirs["left"], now_theirs["top"])]
    assert (dx, dy) == pytest.approx(
        (mine["left"] - now_theirs["left"], mine["top"] - now_theirs["top"])
    )
    dx, dy = lands[(now_mine["left"], now_mine["top"])]
    assert (dx, dy) == pytest.approx(
        (theirs["left"] - now_mine["left"], theirs["top"] - now_mine["top"])
    )
    assert {f["kind"] for f in flights} == {"swap"}
    assert len(flights) == 3  # both sets, and the Swap card out of the game


def test_drawn_cards_leave_the_deck_for_the_new_cards_in_the_hand(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    before = {"hands": {"0": [[1, "guitar"]]}, "deck": 10}
    after = {"hands": {"0": [[1, "guitar"], [2, "coins"], [3, "yacht"]]}, "deck": 8}
    page.evaluate("s => table.render(s)", before)
    deck = page.evaluate("table.rectOf('[data-zone=\"deck\"]')")
    draw = {"round": 0, "event": "draw", "seat": 0, "text": "Ann draws 2 cards.", "count": 2}
    flights = page.evaluate("([s, e]) => table.step(s, e)", [after, [draw]])
    new_cards = [page.evaluate(f"table.rectOf('[data-card=\"{card}\"]')") for card in (2, 3)]
    assert sorted((f["left"], f["top"]) for f in flights) == sorted(
        (rect["left"], rect["top"]) for rect in new_cards
    )
    for flight in flights:  # from a card-sized spot in the middle of the deck
        dx, dy = offset(flight["from"])
        assert flight["left"] + dx + flight["width"] / 2 == pytest.approx(deck["left"] + 30)
        assert flight["top"] + dy + flight["height"] / 2 == pytest.approx(deck["top"] + 35)
    assert page.evaluate("document.documentElement.dataset.motionLast") == "draw"


def test_a_busy_state_flies_at_most_twelve_ghosts_the_rest_land_without_flying(
    open_page: OpenPage, server: Server
) -> None:
    """Five seats drawing three cards each in one state would be fifteen flights: the first
    twelve fly (the first four draws), the rest just land, and every draw still shows."""
    page = table_page(open_page, server)
    seats = [str(seat) for seat in range(5)]
    before = {"backs": dict.fromkeys(seats, 0), "deck": 30}
    after = {"backs": dict.fromkeys(seats, 3), "deck": 15}
    draws = [
        {"round": 0, "event": "draw", "seat": seat, "text": "draws 3 cards.", "count": 3}
        for seat in range(5)
    ]
    page.evaluate("s => table.render(s)", before)
    launched = page.evaluate("([s, e]) => table.step(s, e)", [after, draws])
    assert len(launched) == 12
    assert played(page) == 4
    expect(page.locator("[data-motion]")).to_have_count(0)
    assert page.locator('[data-seat="4"] [data-zone="hand"] > *').count() == 3


def test_a_move_sends_the_top_set_to_the_bottom(open_page: OpenPage, server: Server) -> None:
    page = table_page(open_page, server)
    before = {"hands": {"0": [[108, "move"]]}, "stacks": {"1": [[1, 2], [3, 4], [5, 6]]}}
    after = {"hands": {"0": []}, "stacks": {"1": [[5, 6], [1, 2], [3, 4]]}}
    page.evaluate("s => table.render(s)", before)
    top = page.evaluate("table.rectOf('[data-set=\"5\"]')")
    move = {
        "round": 0,
        "event": "move",
        "seat": 0,
        "text": "Ann plays a Move on Bea's stack: its top set to the bottom.",
        "card": 108,
        "target": 1,
        "direction": "top_to_bottom",
    }
    flights = page.evaluate("([s, e]) => table.step(s, e)", [after, [move]])
    bottom = page.evaluate("table.rectOf('[data-set=\"5\"]')")
    assert len(flights) == 4  # three sets change places; the Move card leaves the game
    moved = next(f for f in flights if (f["left"], f["top"]) == (bottom["left"], bottom["top"]))
    assert offset(moved["from"]) == pytest.approx(
        (top["left"] - bottom["left"], top["top"] - bottom["top"])
    )
    assert "motion-fresh" in (page.get_attribute('[data-set="5"]', "class") or "")


def landing_offsets(page: Page) -> dict[str, tuple[float, float]]:
    """Each flying ghost's card id (or set) → how far from its destination it starts."""
    flights: list[dict[str, Any]] = page.evaluate(
        """() => document.getAnimations()
          .filter((a) => a.effect?.target?.dataset?.motion)
          .map((a) => ({card: a.effect.target.dataset.motionCard ?? "set",
                        from: a.effect.getKeyframes()[0].transform}))"""
    )
    return {flight["card"]: offset(flight["from"]) for flight in flights}


def moved_by(page: Page, before: dict[str, Any], selector: str) -> tuple[float, float]:
    now = page.evaluate("s => table.rectOf(s)", selector)
    return (before["left"] - now["left"], before["top"] - now["top"])


def test_a_draft_claim_flies_to_the_duel_and_then_onto_the_winners_stack(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    start = {"hands": {"0": [[1, "guitar"]]}, "backs": {"1": 6}, "piles": [50, 60, 70]}
    claimed = {**start, "hands": {"0": []}, "piles": [None, 60, 70], "duel": [1, 50]}
    stacked = {**claimed, "stacks": {"0": [[1, 50]]}, "piles": [51, 60, 70], "duel": None}
    page.evaluate("s => table.render(s)", start)
    in_hand = page.evaluate("table.rectOf('[data-card=\"1\"]')")
    on_pile = page.evaluate("table.rectOf('[data-card=\"50\"]')")
    draft = {
        "round": 0,
        "event": "draft",
        "seat": 0,
        "text": "Ann drafts Vintage Guitar and Vintage Guitar; Bea may contest the claim.",
        "cards": [1, 50],
        "piles": [0],
        "contester": 1,
    }
    page.evaluate("([s, e]) => table.step(s, e)", [claimed, [draft]])
    offsets = landing_offsets(page)
    assert offsets["1"] == pytest.approx(moved_by(page, in_hand, '[data-card="1"]'))
    assert offsets["50"] == pytest.approx(moved_by(page, on_pile, '[data-card="50"]'))
    expect(page.locator("[data-motion]")).to_have_count(0)

    in_duel = page.evaluate('table.rectOf(\'[data-zone="duel"] [data-card="50"]\')')
    claim_won = {
        "round": 0,
        "event": "claim_won",
        "seat": 0,
        "text": "Ann stacks the claim of Vintage Guitar ($16,000).",
        "cards": [1, 50],
    }
    concede = {"round": 0, "event": "concede", "seat": 1, "text": "Bea concedes."}
    page.evaluate("([s, e]) => table.step(s, e)", [stacked, [concede, claim_won]])
    assert landing_offsets(page)["50"] == pytest.approx(moved_by(page, in_duel, '[data-card="50"]'))
    assert page.evaluate("document.documentElement.dataset.motionLast") == "claim"
    assert "motion-fresh" in (page.get_attribute('[data-seat="0"] [data-set]', "class") or "")


def test_a_defended_set_takes_the_duels_cards_where_it_stands(
    open_page: OpenPage, server: Server
) -> None:
    page = table_page(open_page, server)
    before = {"backs": {"0": 5, "1": 5}, "stacks": {"1": [[10, 11], [20, 21]]}, "duel": [22, 23]}
    after = {**before, "stacks": {"1": [[10, 11], [20, 21, 22, 23]]}, "duel": None}
    page.evaluate("s => table.render(s)", before)
    played = {card: page.evaluate(f"table.rectOf('[data-card=\"{card}\"]')") for card in (22, 23)}
    defended = {
        "round": 0,
        "event": "challenge_won",
        "seat": 1,
        "text": "Bea defends the Vintage Guitar set ($32,000).",
        "challenger": 0,
        "defender": 1,
        "cards": [20, 21, 22, 23],
    }
    page.evaluate("([s, e]) => table.step(s, e)", [after, [defended]])
    offsets = landing_offsets(page)
    assert set(offsets) == {"22", "23"}  # the set itself stays where it is
    for card, rect in played.items():
        assert offsets[str(card)] == pytest.approx(moved_by(page, rect, f'[data-card="{card}"]'))
    assert page.evaluate("document.documentElement.dataset.motionLast") == "defend"
    top = '[data-seat="1"] [data-set][data-depth="0"]'
    assert "motion-fresh" in (page.get_attribute(top, "class") or "")


# --- end to end: a real game through the table ------------------------------------------------

# Pauses each steal ghost about half way along its path (its easing is fast at first) as soon
# as it flies, so a screenshot can show it.
PAUSE_STEALS_JS = """
() => {
  window.pausedSteals = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.dataset?.motion !== "steal") continue;
        for (const animation of node.getAnimations()) {
          animation.pause();
          animation.currentTime = animation.effect.getTiming().duration * 0.15;
        }
        window.pausedSteals += 1;
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
}
"""
RESUME_JS = "() => document.getAnimations().forEach((animation) => animation.play())"


def seat_at_new_table(page: Page, server: Server, *, room_name: str, seats: int) -> str:
    """Ann creates a room, fills it with easy AI players and starts it; the page sits in her
    seat at the table. Returns her seat token."""
    created = httpx.post(
        f"{server.url}/api/rooms", json={"name": "Ann", "room_name": room_name, "seats": seats}
    ).json()
    host = {"Authorization": f"Bearer {created['token']}"}
    code = created["code"]
    for _ in range(seats - 1):
        bot = httpx.post(
            f"{server.url}/api/rooms/{code}/bots", json={"level": "easy"}, headers=host
        )
        assert bot.status_code == 201, bot.text
    started = httpx.post(f"{server.url}/api/rooms/{code}/start", headers=host)
    assert started.status_code == 200, started.text
    page.goto(f"{server.url}/help")
    seat = {"seat": created["seat"], "token": created["token"], "name": "Ann"}
    page.evaluate(
        "seats => localStorage.setItem('cash-stash:seats', JSON.stringify(seats))", {code: seat}
    )
    page.goto(f"{server.url}/room/{code}")
    return f"{code}:{created['token']}"


def steal_a_set(page: Page, server: Server) -> None:
    """Ann sits at the steal table against an AI and challenges its unanswerable top set."""
    seat_at_new_table(page, server, room_name=STEAL_ROOM, seats=2)
    page.evaluate(PAUSE_STEALS_JS)
    page.locator('.hand .hand-card[data-kind="guitar"]').click()
    page.get_by_role("button", name=re.compile(r"^Easy Bot's top set: Vintage Guitar")).click()


def test_a_stolen_set_flies_to_the_winner_in_a_real_game(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page()
    steal_a_set(page, server)
    page.wait_for_function("() => window.pausedSteals > 0")
    screenshot(page, "steal", full_page=False)
    page.evaluate(RESUME_JS)
    expect(page.locator("[data-motion]")).to_have_count(0)
    assert page.evaluate("document.documentElement.dataset.motionLast") == "steal"
    stolen = page.locator('[data-seat="0"] [data-zone="stack"] [data-set][data-depth="0"]').first
    expect(stolen).to_contain_text("$24,000")


def test_no_steal_animation_under_reduced_motion(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.emulate_media(reduced_motion="reduce")
    steal_a_set(page, server)
    stolen = page.locator('[data-seat="0"] [data-zone="stack"] [data-set][data-depth="0"]').first
    expect(stolen).to_contain_text("$24,000")
    assert page.evaluate("window.pausedSteals") == 0
    assert played(page) == 0


# Plays Ann's seat from the page, on a second connection of its own (the app's socket module),
# taking the first legal action of the most eventful type; records every ghost that flies.
AUTOPLAY_JS = """
async ([code, token]) => {
  const { GameSocket } = await import("/static/js/socket.js");
  const order = ["challenge", "answer", "swap", "move", "choose", "improve", "form_set",
                 "form_set_discard", "draft", "discard", "concede", "end_turn"];
  const rank = (action) => (order.indexOf(action.type) + order.length + 1) % (order.length + 1);
  window.kinds = new Set();
  window.mostGhosts = 0;
  window.mostSideways = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.dataset?.motion) window.kinds.add(node.dataset.motion);
      }
    }
    const flying = document.querySelectorAll("[data-motion]").length;
    window.mostGhosts = Math.max(window.mostGhosts, flying);
    if (flying) {
      const sideways = document.documentElement.scrollWidth - innerWidth;
      window.mostSideways = Math.max(window.mostSideways, sideways);
    }
  }).observe(document.body, {childList: true, subtree: true});
  window.mostBehind = 0;
  new MutationObserver(() => {
    const behind = Number(document.documentElement.dataset.motionBehind);
    window.mostBehind = Math.max(window.mostBehind, behind);
  }).observe(document.documentElement, {attributeFilter: ["data-motion-behind"]});
  let refs = 0;
  const socket = new GameSocket(code, token, {
    onRoom() {}, onError() {}, onChat() {}, onStatus() {},
    onState(message) {
      const view = message.view;
      if (view.over) {
        socket.close();
        return;
      }
      if (!view.to_act.includes(view.seat) || !message.legal.length) return;
      // One discard as soon as it is legal: the AI's own discards may fly in states the page
      // drops (the AI plays without a pause here), so a game without Ann's showed none.
      const discard = window.kinds.has("discard") ? undefined
        : message.legal.find((legal) => legal.type === "discard");
      const action = discard ?? [...message.legal].sort((a, b) => rank(a) - rank(b))[0];
      const { seat, ...rest } = action;
      socket.send({type: "act", ref: `autoplay-${refs++}`, version: message.version, action: rest});
    },
  });
  socket.connect();
}
"""


WHOLE_GAME_MS = 180_000


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 740)])
def test_a_whole_game_animates_in_order_and_keeps_up(
    open_page: OpenPage, server: Server, width: int, height: int
) -> None:
    page = open_page(width=width, height=height)
    code, token = seat_at_new_table(page, server, room_name="Motion table", seats=4).split(":")
    page.evaluate(AUTOPLAY_JS, [code, token])
    over = page.get_by_role("heading", name="Game over")
    expect(over).to_be_visible(timeout=WHOLE_GAME_MS)
    expect(page.locator("[data-motion]")).to_have_count(0)
    kinds = set(page.evaluate("[...window.kinds]"))
    assert {"draw", "discard", "form_set"} <= kinds, kinds
    assert played(page) >= 10  # the AI plays without a pause here: many states drop
    # However fast the AI played (here without any pause), no state ever had more than about a
    # second of animation queued before it.
    assert 0 < page.evaluate("window.mostBehind") <= 1000
    assert page.evaluate("window.mostGhosts") <= 12
    assert page.evaluate("window.mostSideways") <= 0, "a ghost made the page scroll sideways"

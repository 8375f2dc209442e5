"""Direct play: a whole game in which every form-set, discard, improve, challenge and answer is
made on the table itself, by selecting cards and pressing (or dragging them to) the place that
lights up, never from the move list; with a mouse at 1280 by 800 and with touch at 360 by 740."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocket, expect

from tests.browser.harness import (
    MOST_TURNS,
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    layout_problems,
    screenshot,
    table_version,
    wait_for_next_state,
    watch_layout,
)
from tests.browser.server import STEAL_ROOM

PLACED = ("challenge", "improve", "form_set", "form_set_discard", "discard", "draft", "answer")
"""The moves made on a place of the table, in the order this player prefers them."""
BAR = ("swap", "move", "choose", "end_turn", "concede")
"""The moves made with a button of the action bar."""
EDGE = {"x": 8, "y": 40}
"""Where to press a hand card: near its left edge, the part a fanned hand always shows."""
STATE_WAITS = 200
"""How many short looks for the state the page shows to reach the test's socket listener."""


class Seat:
    """One person's page, with every state its socket received and every act it sent."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.states: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        def received(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message["type"] == "state":
                self.states.append(message)

        def sent(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message["type"] == "act":
                self.sent.append(message)

        ws.on("framereceived", received)
        ws.on("framesent", sent)

    def shown_state(self) -> dict[str, Any]:
        """The state the table shows now (its message has reached the listener too)."""
        version = int(table_version(self.page))
        for _ in range(STATE_WAITS):
            if self.states and self.states[-1]["version"] >= version:
                return self.states[-1]
            self.page.wait_for_timeout(10)  # the frame is in; its event is being delivered
        raise AssertionError(f"the state of version {version} never reached the listener")


def place_of(action: dict[str, Any], me: int) -> str:
    """The place of the table where an action is made (as js/places.js names it)."""
    kind = action["type"]
    if kind in ("discard", "form_set_discard"):
        return "discard"
    if kind == "form_set":
        return "new-set"
    if kind == "improve":
        return f"set:{me}:0"
    if kind == "challenge":
        return f"set:{action['target']}:{action['depth']}"
    if kind == "draft":
        return f"pile:{action['piles'][0]}"
    assert kind == "answer", kind
    return "duel"


def cards_of(action: dict[str, Any]) -> list[int]:
    if "cards" in action:
        return list(action["cards"])
    return [action["card"]] if "card" in action else []


def hand_card(page: Page, card: int):
    return page.locator(f'.hand .hand-card[data-card-id="{card}"]')


def drag_to(page: Page, card: int, place: str, *, shoot: str = "") -> None:
    """Drag a hand card onto a place with the mouse (Pointer Events), a screenshot mid-way."""
    source = hand_card(page, card).bounding_box()
    target = page.locator(f'.felt [data-place="{place}"]').bounding_box()
    assert source and target
    x, y = source["x"] + EDGE["x"], source["y"] + EDGE["y"]
    to_x, to_y = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 12, y - 12, steps=3)
    page.mouse.move(to_x, to_y, steps=8)
    expect(page.locator(".drag-ghost")).to_be_visible()
    expect(page.locator(f'.felt [data-place="{place}"].drop-ok.drop-hover')).to_be_visible()
    if shoot:
        screenshot(page, shoot, as_seen=True)
    page.mouse.up()
    expect(page.locator(".drag-ghost")).to_have_count(0)


def touch_drag_to(page: Page, card: int, place: str) -> None:
    """Drag a hand card onto a place with a finger (touch events through Chromium's DevTools)."""
    source = hand_card(page, card).bounding_box()
    target = page.locator(f'.felt [data-place="{place}"]').bounding_box()
    assert source and target
    x, y = source["x"] + EDGE["x"], source["y"] + EDGE["y"]
    to_x, to_y = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 9):
        point = {"x": x + (to_x - x) * step / 8, "y": y + (to_y - y) * step / 8}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def press(locator: Any, *, touch: bool, edge: bool = False) -> None:
    """Tap or click; ``edge``: near the left edge (a fanned hand card shows its left part)."""
    position = EDGE if edge else None
    locator.tap(position=position) if touch else locator.click(position=position)


def choose_move(state: dict[str, Any]) -> dict[str, Any]:
    """The move this player makes: the first kind in PLACED that is legal, else a bar move."""
    legal = state["legal"]
    for kind in PLACED + BAR:
        found = [action for action in legal if action["type"] == kind]
        if found:
            return found[0]
    raise AssertionError(f"nothing to do: {legal}")


def play_on_the_table(seat: Seat, *, touch: bool, shoot: str = "") -> dict[str, int]:
    """Play the whole game by direct play; returns how many moves of each kind were made."""
    page = seat.page
    over = page.get_by_role("heading", name="Game over")
    made: dict[str, int] = {}
    drags = 0
    for _ in range(MOST_TURNS):
        expect(over.or_(page.locator(".action-bar.yours"))).to_be_visible()
        if over.is_visible():
            return made
        state = seat.shown_state()
        me = state["view"]["seat"]
        action = choose_move(state)
        version = table_version(page)
        if action["type"] in BAR:
            if action["type"] in ("swap", "move"):
                press(hand_card(page, action["card"]), touch=touch, edge=True)
            button = page.locator(".bar-buttons > button.option", has_text=bar_words(action))
            press(button.first, touch=touch)
        else:
            place = place_of(action, me)
            cards = cards_of(action)
            shown = page.locator(f'.felt [data-place="{place}"]').is_visible()
            dragging = shown and len(cards) == 1 and drags % 2 == 0 and action["type"] != "answer"
            if dragging:
                drags += 1
                if touch:
                    touch_drag_to(page, cards[0], place)
                else:
                    drag_to(page, cards[0], place, shoot=shoot if drags == 1 else "")
            else:
                for card in cards:
                    press(hand_card(page, card), touch=touch, edge=True)
                target = page.locator(f'[data-place="{place}"]')
                if not target.is_visible():  # a set below the top: in its stack's opened list
                    owner = page.locator(f'.felt [data-seat="{place.split(":")[1]}"]')
                    press(owner.locator(".strip-toggle"), touch=touch)
                expect(target).to_have_attribute("aria-disabled", "false")
                press(target, touch=touch)
            chooser = page.locator(".chooser:popover-open button.option")
            if page.locator(".chooser").count():
                press(chooser.first, touch=touch)
        wait_for_next_state(page, version)
        sent = seat.sent[-1]["action"]
        assert sent["type"] in PLACED + BAR
        made[sent["type"]] = made.get(sent["type"], 0) + 1
    raise AssertionError(f"the game did not end within {MOST_TURNS} moves")


def bar_words(action: dict[str, Any]) -> str:
    kind = action["type"]
    if kind == "end_turn":
        return "End your turn"
    if kind == "concede":
        return "Concede"
    if kind == "choose":
        top_down = action["direction"] == "top_to_bottom"
        return "top set to the bottom" if top_down else "bottom set to the top"
    return "Swap" if kind == "swap" else "Move"


@pytest.mark.parametrize("device", ["mouse", "touch"])
def test_a_whole_game_is_played_with_the_cards_alone(
    open_page: OpenPage, server: Server, device: str
) -> None:
    touch = device == "touch"
    page = open_page(width=360, height=740, touch=True) if touch else open_page(1280, 800)
    watch_layout(page, whole_table_in_view=True)
    seat = Seat(page)
    create_room(page, server, name="Ann", seats=2, room_name=STEAL_ROOM)
    add_ai_players(page, 1)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".hand-card").first).to_be_visible()

    # The first move: a challenge of the rival's top Vintage Guitar set. Selecting the guitar
    # lights that set (named, and said to be playable) among the places.
    guitar = page.locator('.hand .hand-card[data-kind="guitar"]')
    expect(guitar).to_have_accessible_name("Vintage Guitar, $8,000")
    press(guitar, touch=touch, edge=True)
    rival_set = page.locator('.felt [data-place="set:1:0"]')
    expect(rival_set).to_have_attribute("aria-disabled", "false")
    rival_name = "Easy Bot's top set: Vintage Guitar, $16,000, exposed"
    expect(rival_set).to_have_accessible_name(rival_name)
    expect(rival_set).to_have_accessible_description("Lit: the selected cards can be played here.")
    expect(page.locator('.felt [data-place="set:1:1"]')).to_have_attribute("aria-disabled", "true")
    if not touch:
        screenshot(page, "table-laptop-selected", as_seen=True)
    press(guitar, touch=touch, edge=True)
    expect(rival_set).to_have_attribute("aria-disabled", "true")

    made = play_on_the_table(seat, touch=touch, shoot="" if touch else "table-drag")
    assert made.get("challenge", 0) >= 1 and made.get("form_set", 0) >= 1, made
    assert made.get("discard", 0) + made.get("form_set_discard", 0) >= 1, made
    # Improve comes after a challenge in this player's order: it is made whenever it is the best.
    kinds = [{a["type"] for a in state["legal"]} for state in seat.states]
    improvable = any("improve" in legal and "challenge" not in legal for legal in kinds)
    assert made.get("improve", 0) >= 1 or not improvable, made
    expect(page.locator(".move-menu:popover-open")).to_have_count(0)
    assert all(message["action"]["type"] in PLACED + BAR for message in seat.sent)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:40])

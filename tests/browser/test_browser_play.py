"""Playing Cash Stash in real Chromium: against three AI players, and two people in a duel."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from playwright.sync_api import Page, WebSocket, WebSocketRoute, expect
from websockets.sync.client import connect

from tests.browser.harness import (
    OpenPage,
    Server,
    add_ai_players,
    create_room,
    hand_ids,
    layout_checks,
    layout_problems,
    play_until_over,
    screenshot,
    watch_layout,
)
from tests.browser.server import DUEL_ROOM

LOG_SHOWN = 60
"""The log lines the table shows (``static/js/room/side.js``)."""


def test_one_person_plays_a_whole_game_against_three_ai(
    open_page: OpenPage, server: Server
) -> None:
    listed = httpx.post(
        f"{server.url}/api/rooms",
        json={"name": "Bea", "room_name": "Friday night stash", "visibility": "public"},
    )
    assert listed.status_code == 201, listed.text
    # A room is listed only while someone is in it: Bea waits in hers.
    room = listed.json()
    with connect(f"{server.url.replace('http', 'ws', 1)}/ws/{room['code']}") as bea:
        bea.send(json.dumps({"type": "hello", "token": room["token"]}))
        page = open_page()
        states: list[dict[str, Any]] = []  # every state the server sent the page

        def watch(ws: WebSocket) -> None:
            def note(payload: str | bytes) -> None:
                message = json.loads(payload)
                if message["type"] == "state":
                    states.append(message)

            ws.on("framereceived", note)

        page.on("websocket", watch)
        page.goto(server.url)
        expect(page.get_by_role("link", name="Friday night stash")).to_be_visible()
        screenshot(page, "lobby")

    create_room(page, server, name="Ann", seats=4)
    add_ai_players(page, 3)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".hand-card").first).to_be_visible()

    moves = play_until_over(page)
    assert moves > 0
    expect(page.get_by_test_id("winner")).to_contain_text(re.compile(r"wins?!|share the win!"))
    chart = page.locator(".game-over svg.chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline")).to_have_count(4)
    screenshot(page, "game-over", full_page=False)

    # The log panel shows the game's log, newest first, though after the first state each
    # state brought only the entries new since the one before.
    replay_link = page.get_by_role("link", name="Watch the replay").get_attribute("href")
    game = httpx.get(f"{server.url}/api{replay_link}").json()
    whole_log = [entry["text"] for step in game["replay"] for entry in step["log"]]
    shown = page.locator(".log-lines li")
    expect(shown).to_have_count(min(len(whole_log), LOG_SHOWN))
    assert shown.all_inner_texts() == whole_log[::-1][:LOG_SHOWN]
    assert states[0]["log_from"] == 0
    assert all(state["log_from"] > 0 for state in states[1:]) and len(states) > 20
    assert sum(len(state["view"]["log"]) for state in states) == len(whole_log)

    page.get_by_role("link", name="Watch the replay").click()
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    expect(page.get_by_test_id("replay-action")).to_have_text("The deal.")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_test_id("step-counter")).to_contain_text("Step 1 of")
    expect(page.get_by_test_id("replay-action")).not_to_have_text("The deal.")
    page.get_by_role("button", name="Last").click()
    expect(page.locator(".replay-log")).to_contain_text(re.compile(r"wins\.|share the win\."))
    # Every hand is face up in the replay: four players, each with an open hand row.
    expect(page.locator(".replay .player .open-hand")).to_have_count(4)

    page.go_back()
    page.get_by_role("button", name="Rematch").click()
    expect(page.get_by_role("heading", name="Game over")).to_have_count(0)
    expect(page.locator(".hand-card").first).to_be_visible()


def test_three_players_with_draft_piles_play_to_the_end(
    open_page: OpenPage, server: Server
) -> None:
    # On a phone, every state checked by the layout watch: two rivals and six zones in the centre.
    page = open_page(width=360, height=740, touch=True)
    watch_layout(page, whole_table_in_view=True)
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Rule set").select_option("simple_actions")
    page.get_by_label("Seats").fill("3")
    page.get_by_label("Draft piles").check()
    page.get_by_role("button", name="Create room").click()
    add_ai_players(page, 2)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator('[data-zone="pile"]')).to_have_count(3)

    moves = play_until_over(page, prefer="Draft")
    assert moves > 0
    expect(page.locator(".log")).to_contain_text("Round 1 is over")
    expect(page.locator(".game-over svg.chart polyline")).to_have_count(3)
    problems = layout_problems(page)
    assert not problems, "\n".join(problems[:40])
    assert layout_checks(page) >= moves, "the layout watch did not check the states shown"


def start_duel(ann: Page, bea: Page, server: Server) -> None:
    """Ann creates the duel room, Bea joins by its invite link, Ann starts: Ann's turn."""
    invite = create_room(ann, server, name="Ann", seats=2, room_name=DUEL_ROOM, clock="60")
    bea.goto(invite)
    expect(bea.get_by_role("heading", name=f"Join {DUEL_ROOM}")).to_be_visible()
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_role("button", name="Join the room").click()
    expect(bea.get_by_text("Waiting for the host to start the game.")).to_be_visible()
    expect(ann.locator(".seat-row", has_text="Bea")).to_be_visible()
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn: ")
    expect(bea.get_by_test_id("turn-status")).to_have_text("Waiting for Ann.")


def discard(page: Page, kind: str) -> None:
    """Select a card of this kind and press the discard pile (its chooser: "Discard …")."""
    page.locator(f'.hand .hand-card[data-kind="{kind}"]').first.click()
    page.get_by_role("button", name=re.compile(r"^Discard pile")).click()
    chooser = page.locator(".chooser")
    if chooser.count():
        chooser.get_by_role("button", name=re.compile(r"^Discard ")).click()


def test_two_people_duel_in_a_private_room_joined_by_invite_link(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page(width=1280, height=800)
    bea = open_page(width=360, height=740)
    start_duel(ann, bea, server)
    expect(ann.locator(".clock")).to_have_text(re.compile(r"^[01]:\d\d left$"))
    bea.get_by_role("tab", name="Chat").click()
    bea.get_by_label("Chat message").fill("Good luck!")
    bea.get_by_label("Chat message").press("Enter")
    expect(ann.locator(".chat .chat-line")).to_contain_text(re.compile(r"Bea\s+Good luck!"))
    bea.get_by_role("tab", name=re.compile("^Chat")).click()  # the drawer closes again
    expect(bea.get_by_label("Chat message")).to_be_hidden()

    # The bottom set is protected: pressing it gets the server's reason, in words.
    # (An unlit place is aria-disabled, which Playwright will not press unless forced.)
    ann.get_by_role("button", name=re.compile(r"^Bea's second set: Coin Collection")).click(
        force=True
    )
    expect(ann.get_by_test_id("notice")).to_contain_text(
        "The bottom set of a stack is always protected."
    )

    # Select the guitar with the keyboard, then open the challenge on Bea's top guitar set.
    guitar = ann.locator('.hand .hand-card[data-kind="guitar"]')
    guitar.focus()
    ann.keyboard.press("Space")
    expect(guitar).to_have_attribute("aria-pressed", "true")
    ann.keyboard.press("ArrowRight")
    focused = ann.locator(".hand .hand-card:focus")
    expect(focused).not_to_have_attribute("data-kind", "guitar")
    expect(focused).to_have_css("outline-style", "solid")
    guitar.focus()
    bea_top = ann.get_by_role("button", name="Bea's top set: Vintage Guitar, $16,000, exposed")
    expect(bea_top).to_have_attribute("aria-disabled", "false")
    bea_top.click()

    duel = bea.locator("#duel")
    expect(duel).to_contain_text("Ann challenges your top Vintage Guitar set ($16,000)")
    expect(ann.locator("#duel")).to_contain_text("You challenge Bea's top Vintage Guitar set")
    expect(duel).to_contain_text("Your answer: one matching card")
    expect(bea.get_by_test_id("turn-status")).to_contain_text("Your answer")
    expect(bea.locator("[data-motion]")).to_have_count(0)
    screenshot(bea, "table-mid-challenge")
    overflow = bea.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, "the table does not fit a 360 px wide screen"

    bea.locator(".action-bar").get_by_role("button", name="Answer with Vintage Guitar").click()
    ann_duel = ann.locator("#duel")
    expect(ann_duel).to_contain_text("Bea played")
    expect(ann.locator(".bar-buttons > button.option[data-move='answer']")).to_have_count(0)
    expect(ann.locator("[data-motion]")).to_have_count(0)  # no card in flight
    screenshot(ann, "table-duel", full_page=False)
    ann.locator(".action-bar").get_by_role("button", name="Concede").click()

    expect(ann.locator("#duel")).to_have_count(0)
    expect(bea.locator(".log")).to_contain_text("Bea defends the Vintage Guitar set ($32,000).")
    bea_top_set = bea.locator('.player.you [data-zone="stack"] [data-depth="0"]')
    expect(bea_top_set).to_contain_text("$32,000")

    # Ann lost that challenge: the second action may not challenge Bea again.
    ann.get_by_role("button", name=re.compile(r"^Bea's top set: Vintage Guitar")).click(force=True)
    expect(ann.get_by_test_id("notice")).to_contain_text("challenge")

    # A reload mid-game keeps the seat and the hand.
    hand_before = hand_ids(bea)
    assert len(hand_before) == 6
    bea.reload()
    expect(bea.locator(".player.you")).to_contain_text("Bea (you)")
    expect(bea.locator(".hand .hand-card")).to_have_count(len(hand_before))
    assert hand_ids(bea) == hand_before


def test_a_dropped_connection_reconnects_by_itself_and_never_shows_an_older_state(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page()
    bea = open_page()
    connections: list[WebSocketRoute] = []
    states: list[str] = []  # every state message the server sent Bea, in order
    refusing = False

    def route(ws: WebSocketRoute) -> None:
        if refusing:
            ws.close()
            return

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message)["type"] == "state":
                states.append(message)
            ws.send(message)

        ws.connect_to_server().on_message(to_page)
        connections.append(ws)

    bea.route_web_socket(re.compile(r"/ws/"), route)
    start_duel(ann, bea, server)

    refusing = True
    connections[-1].close()
    expect(bea.get_by_test_id("reconnecting")).to_be_visible()

    discard(ann, "jewelry")
    ann.get_by_role("button", name="End your turn").click()
    expect(ann.get_by_test_id("turn-status")).to_have_text("Waiting for Bea.")
    expect(bea.get_by_test_id("turn-status")).to_have_text("Waiting for Ann.")

    refusing = False
    expect(bea.get_by_test_id("reconnecting")).to_have_count(0)
    expect(bea.get_by_test_id("turn-status")).to_contain_text("Your turn: ")
    expect(bea.locator(".log")).to_contain_text("Ann discards a Jewelry.")

    # A late copy of the first state (Ann's turn) must not bring the old position back. The
    # chat line sent after it shows that the page has handled it.
    hand = hand_ids(bea)
    connections[-1].send(states[0])
    marker = {"type": "chat", "seat": 0, "name": "Ann", "text": "after the old state", "at": 0}
    connections[-1].send(json.dumps(marker))
    expect(bea.locator(".chat")).to_contain_text("after the old state")
    expect(bea.get_by_test_id("turn-status")).to_contain_text("Your turn: ")
    assert hand_ids(bea) == hand


def test_a_state_lost_on_the_way_makes_the_page_ask_for_the_whole_log_again(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page()
    bea = open_page()
    lost: list[str] = []  # the one state kept from Bea
    asked: list[str] = []  # what Bea's page sent the server
    losing = False

    def route(ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if losing and not lost and json.loads(message)["type"] == "state":
                lost.append(str(message))
                return
            ws.send(message)

        def from_page(message: str | bytes) -> None:
            asked.append(str(message))
            to_server.send(message)

        to_server.on_message(to_page)
        ws.on_message(from_page)

    bea.route_web_socket(re.compile(r"/ws/"), route)
    start_duel(ann, bea, server)

    losing = True
    discard(ann, "jewelry")
    ann.get_by_role("button", name="End your turn").click()
    expect(bea.get_by_test_id("turn-status")).to_contain_text("Your turn: ")
    # The state after the discard never came: the next one's entries did not follow the log
    # Bea held, so the page asked for the whole state, and shows the whole log.
    assert lost and json.loads(lost[0])["log_from"] > 0
    assert [m for m in asked if json.loads(m)["type"] == "resync"] == ['{"type":"resync"}']
    expect(bea.locator(".log")).to_contain_text("Ann discards a Jewelry.")
    expect(bea.locator(".log-lines li")).to_have_text(
        ann.locator(".log-lines li").all_inner_texts()
    )


COUNT_MESSAGES = """
window.messagesHandled = 0;
window.WebSocket = class extends window.WebSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", () => (window.messagesHandled += 1));
  }
};
"""
"""Counts the messages a page's sockets get: the page's own handler is called with each, right
after this one."""


def test_a_press_that_a_new_state_comes_during_is_still_a_click(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page()
    bea = open_page()
    held: list[str | bytes] = []  # a state kept from Ann's page until her button is down
    holding = False

    def route(ws: WebSocketRoute) -> None:
        to_server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if holding and not held and json.loads(message)["type"] == "state":
                held.append(message)
                return
            ws.send(message)

        to_server.on_message(to_page)
        ws.on_message(to_server.send)
        sockets.append(ws)

    sockets: list[WebSocketRoute] = []
    ann.route_web_socket(re.compile(r"/ws/"), route)
    ann.add_init_script(COUNT_MESSAGES)  # after the route's own WebSocket, which it extends
    start_duel(ann, bea, server)
    discard(ann, "jewelry")
    ann.get_by_role("button", name="End your turn").click()
    expect(bea.get_by_test_id("turn-status")).to_contain_text("Your turn: ")

    holding = True
    discard(bea, "racehorse")
    expect(bea.locator(".log")).to_contain_text("Bea discards a Racehorse.")
    # Ann's copy of that state may reach the route after Bea's page shows it: the route's
    # handler runs only while this thread waits in a Playwright call.
    for _ in range(100):
        if held:
            break
        ann.wait_for_timeout(100)
    assert held, "the state after Bea's discard was kept from Ann's page"
    # Ann presses Show on Bea's set below the top, and while her button is down the state
    # comes: her page redraws the table only after the click, which opens the list.
    toggle = ann.get_by_role("button", name="Show the 1 set below the top")
    box = toggle.bounding_box()
    assert box is not None
    ann.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ann.mouse.down()
    handled = ann.evaluate("window.messagesHandled")
    sockets[-1].send(held[0])
    ann.wait_for_function("handled => window.messagesHandled > handled", arg=handled)
    ann.mouse.up()
    expect(ann.get_by_role("button", name="Close the 1 set below the top")).to_be_visible()
    expect(ann.locator(".log")).to_contain_text("Bea discards a Racehorse.")

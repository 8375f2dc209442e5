"""The chat panel in real Chromium: static/js/chat.js mounted on a page of the app, fed the
server's messages; lines as text with their time, the history, the unread marker, sending."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.harness import OpenPage, Server, create_room

MOUNT = """async (canChat) => {
  const { createChat } = await import("/static/js/chat.js");
  window.sent = [];
  window.unread = [];
  const chat = createChat({ send: (text) => { window.sent.push(text); return true; }, canChat });
  chat.onUnread = (n) => window.unread.push(n);
  const host = document.createElement("div");
  host.id = "chat-host";
  document.body.prepend(host);
  host.append(chat.element);
  window.chat = chat;
}"""


def mounted(open_page: OpenPage, server: Server, *, can_chat: bool = True) -> Page:
    """A page of the app with a chat panel mounted at the top of its body."""
    page = open_page()
    page.goto(server.url)
    page.evaluate(MOUNT, can_chat)
    return page


def receive(page: Page, message: dict[str, Any]) -> None:
    page.evaluate("(message) => window.chat.receive(message)", message)


def line(seat: int, name: str, text: str, at: float) -> dict[str, Any]:
    return {"seat": seat, "name": name, "text": text, "at": at}


def local_clock(page: Page, at: float) -> str:
    clock: str = page.evaluate(
        """(at) => {
          const when = new Date(at * 1000);
          const pad = (n) => String(n).padStart(2, "0");
          return `${pad(when.getHours())}:${pad(when.getMinutes())}`;
        }""",
        at,
    )
    return clock


def test_lines_show_time_name_and_text_as_text_in_a_labelled_live_log(
    open_page: OpenPage, server: Server
) -> None:
    page = mounted(open_page, server)
    log = page.get_by_role("log", name="Chat")
    expect(log).to_have_attribute("aria-live", "polite")
    expect(page.locator(".chat-empty")).to_be_visible()
    at = 1_767_000_000.0
    receive(page, {"type": "chat", **line(1, "<b>Bob</b>", "<img src=x onerror=alert(1)>", at)})
    item = log.locator("li.chat-line")
    expect(item).to_have_count(1)
    expect(item.locator(".chat-name")).to_have_text("<b>Bob</b>")
    expect(item.locator(".chat-text")).to_have_text("<img src=x onerror=alert(1)>")
    expect(item.locator("time")).to_have_text(local_clock(page, at))
    assert item.locator("img, b").count() == 0
    expect(page.locator(".chat-empty")).to_be_hidden()


def test_the_history_replaces_what_is_shown_and_a_line_is_kept_once(
    open_page: OpenPage, server: Server
) -> None:
    page = mounted(open_page, server)
    receive(page, {"type": "chat", **line(0, "Ann", "stale", 10.0)})
    receive(page, {"type": "chat", **line(0, "Ann", "hello", 20.0)})
    history = [line(0, "Ann", "hello", 20.0), line(1, "Bob", "hi Ann", 30.0)]
    receive(page, {"type": "chat_history", "lines": history})
    texts = page.locator(".chat-line .chat-text")
    expect(texts).to_have_text(["hello", "hi Ann"])
    receive(page, {"type": "chat", **line(1, "Bob", "hi Ann", 30.0)})  # came live as well
    receive(page, {"type": "chat", **line(1, "Bob", "ready?", 40.0)})
    expect(texts).to_have_text(["hello", "hi Ann", "ready?"])
    scrolled = page.locator(".chat-lines").evaluate(
        "lines => lines.scrollTop + lines.clientHeight >= lines.scrollHeight - 1"
    )
    assert scrolled, "the list shows its newest line"


def test_lines_that_come_while_hidden_are_marked_unread_until_shown(
    open_page: OpenPage, server: Server
) -> None:
    page = mounted(open_page, server)
    receive(page, {"type": "chat_history", "lines": [line(0, "Ann", "earlier", 5.0)]})
    page.evaluate("window.chat.setVisible(false)")
    receive(page, {"type": "chat", **line(1, "Bob", "one", 6.0)})
    receive(page, {"type": "chat", **line(1, "Bob", "two", 7.0)})
    panel = page.locator(".chat-panel")
    expect(panel).to_have_attribute("data-unread", "2")
    expect(page.locator(".chat-badge")).to_have_text("2 new")
    expect(page.locator(".chat-line.unread .chat-text")).to_have_text(["one", "two"])
    expect(page.locator(".chat-unread-divider")).to_have_count(1)
    assert page.evaluate("window.unread") == [1, 2]

    page.evaluate("window.chat.setVisible(true)")
    expect(panel).to_have_attribute("data-unread", "0")
    expect(page.locator(".chat-badge")).to_be_hidden()
    assert page.evaluate("window.unread") == [1, 2, 0]
    receive(page, {"type": "chat", **line(1, "Bob", "three", 8.0)})
    expect(panel).to_have_attribute("data-unread", "0")
    assert page.evaluate("window.unread") == [1, 2, 0], "a line seen as it comes is not unread"


def test_enter_sends_and_a_refusal_is_shown_in_words_with_the_text_given_back(
    open_page: OpenPage, server: Server
) -> None:
    page = mounted(open_page, server)
    field = page.get_by_label("Chat message")
    field.fill("  good luck  ")
    field.press("Enter")
    assert page.evaluate("window.sent") == ["good luck"]
    expect(field).to_have_value("")
    expect(field).to_be_focused()
    receive(
        page,
        {"type": "error", "ref": None, "code": "chat_too_fast", "message": "Wait a moment."},
    )
    expect(page.get_by_role("alert")).to_have_text("Wait a moment.")
    expect(field).to_have_value("good luck")

    page.get_by_role("button", name="Send").click()
    assert page.evaluate("window.sent") == ["good luck", "good luck"]
    receive(page, {"type": "chat", **line(0, "Ann", "good luck", 9.0)})
    expect(page.get_by_role("alert")).to_be_hidden()
    # A refusal of another kind of message is none of the chat's business, nor is one any
    # message may get (a move sent too fast) once the line sent has had its answer.
    receive(page, {"type": "error", "ref": 3, "code": "not_your_turn", "message": "Not yet."})
    receive(page, {"type": "error", "ref": None, "code": "rate_limited", "message": "Slow."})
    expect(page.locator(".chat-problem")).to_be_hidden()
    field.fill("once more")
    field.press("Enter")
    receive(page, {"type": "error", "ref": None, "code": "rate_limited", "message": "Slow."})
    expect(page.get_by_role("alert")).to_have_text("Slow.")
    expect(field).to_have_value("once more")


def test_a_spectator_reads_but_has_no_input(open_page: OpenPage, server: Server) -> None:
    page = mounted(open_page, server, can_chat=False)
    receive(page, {"type": "chat_history", "lines": [line(0, "Ann", "welcome", 5.0)]})
    expect(page.locator(".chat-line .chat-text")).to_have_text(["welcome"])
    expect(page.get_by_label("Chat message")).to_be_hidden()
    expect(page.locator(".chat-read-only")).to_have_text(re.compile("Spectators can read"))


def join(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join the room").click()
    expect(page.get_by_text("Waiting for the host to start the game.")).to_be_visible()


def say(page: Page, text: str) -> None:
    field = page.get_by_label("Chat message")
    field.fill(text)
    field.press("Enter")


def test_chat_in_the_waiting_room_reaches_a_late_joiner_and_a_reload(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page()
    invite = create_room(ann, server, name="Ann", seats=3, room_name="Chatty table")
    say(ann, "Welcome, everyone!")
    lines = ann.locator(".chat-panel .chat-line")
    expect(lines).to_have_count(1)
    expect(lines).to_contain_text(["Ann Welcome, everyone!"])

    bea = open_page(width=360, height=740)
    join(bea, invite, "Bea")
    # On a phone the chat is a drawer under the room, opened by its tab.
    bea.get_by_role("tab", name=re.compile("^Chat")).click()
    history = bea.locator(".chat-panel .chat-line")
    expect(history).to_be_visible()
    expect(history).to_contain_text(["Ann Welcome, everyone!"])
    say(bea, "Hi Ann")
    expect(lines).to_contain_text(["Ann Welcome, everyone!", "Bea Hi Ann"])
    expect(lines.last.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d$"))

    ann.reload()
    reloaded = ann.locator(".chat-panel .chat-line")
    expect(reloaded.first).to_be_visible()
    expect(reloaded).to_contain_text(["Ann Welcome, everyone!", "Bea Hi Ann"])
    overflow = bea.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, "the waiting room with its chat does not fit a 360 px wide screen"


def test_the_chat_tab_counts_lines_said_while_the_log_is_shown(
    open_page: OpenPage, server: Server
) -> None:
    ann = open_page()
    invite = create_room(ann, server, name="Ann", seats=2, room_name="Quiet table")
    bea = open_page()
    join(bea, invite, "Bea")
    ann.get_by_role("button", name="Start the game").click()
    # At the table the side column shows the log; the chat is a tab behind it.
    for page in (ann, bea):
        expect(page.get_by_role("tab", name="Log")).to_have_attribute("aria-selected", "true")
    chat_tab = ann.get_by_role("tab", name=re.compile("^Chat"))

    bea.get_by_role("tab", name=re.compile("^Chat")).click()
    say(bea, "Good luck!")
    say(bea, "You will need it.")
    expect(chat_tab).to_have_attribute("aria-label", "Chat, 2 unread")
    expect(ann.locator(".chat-panel")).to_have_attribute("data-unread", "2")

    chat_tab.click()
    expect(ann.locator(".chat-panel .chat-line.unread")).to_have_count(0)
    expect(ann.locator(".chat-panel .chat-line")).to_contain_text(
        ["Bea Good luck!", "Bea You will need it."]
    )
    expect(chat_tab).to_have_attribute("aria-label", "Chat")
    expect(ann.locator(".chat-unread-divider")).to_be_visible()

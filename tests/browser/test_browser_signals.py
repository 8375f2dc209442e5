"""Card art, sound cues and the hidden-tab signals, tried in a real page of the app.

The modules are imported into the page (``import('/static/js/…')``): the page shares their
instances, so a test drives them as the table does and reads what they did.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import ARTIFACTS, OpenPage, Server

SPRITE_BUDGET = 60_000
"""Bytes of the served sprite: the first page load, every card included, stays under 300 KB."""

GALLERY = """async (size) => {
  const { cardFace, cardBack } = await import("/static/js/cardface.js");
  const { KINDS } = await import("/static/js/cards.js");
  const gallery = document.createElement("section");
  gallery.id = "card-gallery";
  gallery.setAttribute("aria-label", "Every card");
  gallery.style.cssText = "display:flex;flex-wrap:wrap;gap:10px;padding:14px;background:#f7f5ef";
  Object.keys(KINDS).forEach((kind, id) => gallery.append(cardFace({ id, kind }, { size })));
  gallery.append(cardBack({ size }), cardBack({ count: 42, size }), cardBack({ count: 0, size }));
  document.body.prepend(gallery);
  return Object.keys(KINDS);
}"""

SIMULATED_VISIBILITY = """() => {
  window.simulatedVisibility = "visible";
  Object.defineProperty(document, "visibilityState", {
    configurable: true, get: () => window.simulatedVisibility,
  });
  Object.defineProperty(document, "hidden", {
    configurable: true, get: () => window.simulatedVisibility === "hidden",
  });
}"""

FAKE_NOTIFICATIONS = """
window.permissionRequests = 0;
window.notificationsShown = [];
window.notificationsClosed = 0;
window.Notification = class {
  static permission = "default";
  static requestPermission() {
    window.permissionRequests += 1;
    window.Notification.permission = "granted";
    return Promise.resolve("granted");
  }
  constructor(title, options) { window.notificationsShown.push([title, options.body]); }
  addEventListener() {}
  close() { window.notificationsClosed += 1; }
};
"""


def _set_visibility(page: Page, state: str) -> None:
    page.evaluate(
        """(state) => {
          window.simulatedVisibility = state;
          document.dispatchEvent(new Event("visibilitychange"));
        }""",
        state,
    )


def _your_move(page: Page, yours: bool, what: str = "Your turn") -> None:
    page.evaluate(
        """async ([yours, what]) => {
          (await import("/static/js/attention.js")).setYourMove(yours, what);
        }""",
        [yours, what],
    )


def _icon(page: Page) -> Any:
    return page.evaluate("document.querySelector('link[rel~=icon]').getAttribute('href')")


def _play(page: Page, cue: str) -> Any:
    return page.evaluate(
        """async (cue) => {
          const sound = await import("/static/js/sound.js");
          return { played: sound.play(cue), cues: sound.playedCues() };
        }""",
        cue,
    )


def _add_sound_button(page: Page) -> None:
    page.evaluate(
        """async () => {
          const sound = await import("/static/js/sound.js");
          document.querySelector("main").prepend(sound.muteButton());
        }"""
    )


def test_every_card_kind_has_its_art_and_a_readable_face(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page(width=360, height=740)
    page.goto(server.url)
    kinds = page.evaluate(GALLERY, "hand")
    symbols = page.evaluate(
        """async () => {
          const text = await (await fetch("/static/img/cards.svg")).text();
          const sprite = new DOMParser().parseFromString(text, "image/svg+xml");
          return {
            ids: [...sprite.querySelectorAll("symbol")].map((symbol) => symbol.id),
            bytes: new Blob([text]).size,
          };
        }"""
    )
    assert sorted(symbols["ids"]) == sorted([f"art-{kind}" for kind in kinds] + ["card-back"])
    assert symbols["bytes"] < SPRITE_BUDGET
    faces = page.locator("#card-gallery .cardface")
    expect(faces).to_have_count(len(kinds))
    for index, kind in enumerate(kinds):
        face = faces.nth(index)
        expect(face).to_have_attribute("data-kind", kind)
        expect(face).to_have_attribute("data-card", str(index))
        expect(face.locator("use")).to_have_attribute("href", f"/static/img/cards.svg#art-{kind}")
        name, value, label = page.evaluate(
            """async (kind) => {
              const { KINDS } = await import("/static/js/cards.js");
              const info = KINDS[kind];
              const money = "$" + info.value.toLocaleString("en-US");
              return [info.name, info.value ? "$" + info.value / 1000 + "k" : "Action",
                      info.group === "action" ? info.name + ", action card" : money];
            }""",
            kind,
        )
        # The printed name may break inside a word at its soft hyphens, and only there.
        printed = face.locator(".cf-name").text_content() or ""
        assert printed.replace("\u00ad", "") == name, printed
        expect(face.locator(".cf-value")).to_have_text(value)
        expect(face.locator(".cf-label")).to_contain_text(label)
    widths = page.eval_on_selector_all(
        "#card-gallery .cardface", "faces => faces.map(f => f.getBoundingClientRect().width)"
    )
    assert all(56 <= width <= 64 for width in widths), widths
    names_fit = page.eval_on_selector_all(
        "#card-gallery .cf-name", "names => names.every(n => n.scrollWidth <= n.clientWidth)"
    )
    assert names_fit, "a card's name is cut off at phone size"
    backs = page.locator("#card-gallery .cardback")
    expect(backs.nth(1)).to_have_attribute("aria-label", "42 cards, face down")
    expect(backs.nth(1).locator(".cb-count")).to_have_text("42")


def test_a_face_in_a_button_is_named_once_by_its_label(open_page: OpenPage, server: Server) -> None:
    """The table wraps hand cards in toggle buttons: each reads as its label, the printed name
    and value adding nothing twice; a back reads as its count."""
    page = open_page()
    page.goto(f"{server.url}/help")
    page.evaluate(
        """async () => {
          const { cardFace, cardBack } = await import("/static/js/cardface.js");
          const hand = document.createElement("div");
          const cards = [[7, "gold_bar"], [8, "penny_jar"], [9, "swap"], [10, "yacht"]];
          for (const [id, kind] of cards) {
            const button = document.createElement("button");
            button.setAttribute("aria-pressed", "false");
            button.append(cardFace({ id, kind }));
            hand.append(button);
          }
          hand.append(cardBack({ count: 1 }), cardBack({ count: 5, label: "Deck: 5 cards" }));
          document.querySelector("main").prepend(hand);
        }"""
    )
    for name in [
        "Gold Bar, wild, $50,000",
        "Penny Jar, wild, counts as two in a challenge, $5,000",
        "Swap, action card",
        "Yacht, $20,000",
    ]:
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(1)
    expect(page.get_by_role("img", name="1 card, face down", exact=True)).to_have_count(1)
    expect(page.get_by_role("img", name="Deck: 5 cards", exact=True)).to_have_count(1)


@pytest.mark.parametrize("width", [1280, 360])
def test_every_face_draws_its_art_at_every_size(
    open_page: OpenPage, server: Server, width: int
) -> None:
    """Every face at every size, and the backs, drawn from the sprite (an art symbol that does
    not load draws nothing, and the wait fails), then saved for a person to judge."""
    page = open_page(width=width, height=800)
    page.goto(server.url)
    for size in ["mini", "set", "hand"]:
        page.evaluate(GALLERY, size)
    galleries = page.locator("#card-gallery")
    expect(galleries).to_have_count(3)
    page.wait_for_function(
        """() => [...document.querySelectorAll('#card-gallery use')].every(
             (use) => use.getBoundingClientRect().width > 0)"""
    )
    ARTIFACTS.mkdir(exist_ok=True)
    for index, size in enumerate(["hand", "set", "mini"]):
        galleries.nth(index).screenshot(path=ARTIFACTS / f"cards-{size}-{width}.png")


def test_no_cue_before_the_first_interaction_then_cues_play(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page()
    page.goto(f"{server.url}/help")
    assert _play(page, "turn") == {"played": False, "cues": []}
    page.keyboard.press("Shift")
    assert _play(page, "turn") == {"played": True, "cues": ["turn"]}
    assert _play(page, "won") == {"played": True, "cues": ["turn", "won"]}


def test_every_cue_is_short_and_quiet(open_page: OpenPage, server: Server) -> None:
    """Each cue rendered offline: audible, never loud, and below -80 dBFS again within 0.6 s."""
    page = open_page()
    page.goto(f"{server.url}/help")
    measured = page.evaluate(
        """async () => {
          const sound = await import("/static/js/sound.js");
          const result = {};
          for (const name of sound.CUE_NAMES) {
            const { sampleRate, samples } = await sound.renderCue(name);
            let peak = 0;
            let last = 0;
            samples.forEach((sample, index) => {
              peak = Math.max(peak, Math.abs(sample));
              if (Math.abs(sample) > 0.0001) last = index;
            });
            result[name] = { peak, seconds: last / sampleRate };
          }
          return result;
        }"""
    )
    assert set(measured) == {"turn", "challenge", "won", "lost", "gameover"}
    for name, cue in measured.items():
        assert 0.02 < cue["peak"] < 0.25, f"{name} is too quiet or too loud: {cue}"
        assert 0.1 < cue["seconds"] < 0.6, f"{name} lasts {cue['seconds']:.2f} s"


def test_mute_is_remembered_across_a_reload(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.goto(f"{server.url}/help")
    _add_sound_button(page)
    on = page.get_by_role("button", name="Sound: on")
    expect(on).to_have_attribute("aria-pressed", "true")
    on.click()
    expect(page.get_by_role("button", name="Sound: off")).to_have_attribute("aria-pressed", "false")
    assert _play(page, "turn") == {"played": False, "cues": []}

    page.reload()
    _add_sound_button(page)
    off = page.get_by_role("button", name="Sound: off")
    expect(off).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("Shift")
    assert _play(page, "challenge") == {"played": False, "cues": []}
    off.click()
    expect(page.get_by_role("button", name="Sound: on")).to_have_attribute("aria-pressed", "true")
    assert _play(page, "challenge") == {"played": True, "cues": ["challenge"]}


def test_hidden_tab_title_and_favicon_say_it_is_your_move(
    open_page: OpenPage, server: Server
) -> None:
    page = open_page()
    page.goto(f"{server.url}/help")
    page.evaluate(SIMULATED_VISIBILITY)
    title, icon = page.title(), _icon(page)

    _your_move(page, True)
    assert (page.title(), _icon(page)) == (title, icon), "a visible tab needs no signal"
    _your_move(page, False)
    _set_visibility(page, "hidden")
    assert (page.title(), _icon(page)) == (title, icon), "not your move: no signal"

    _your_move(page, True, "Answer the challenge")
    assert page.title() == f"● Answer the challenge — {title}"
    assert _icon(page) == "/static/favicon-alert.svg"
    _set_visibility(page, "visible")
    assert (page.title(), _icon(page)) == (title, icon), "the signal stays after coming back"

    _set_visibility(page, "hidden")
    assert page.title() == f"● Answer the challenge — {title}"
    _your_move(page, False)
    assert (page.title(), _icon(page)) == (title, icon), "the signal stays after the move"


def test_notifications_are_asked_for_only_by_a_press(open_page: OpenPage, server: Server) -> None:
    page = open_page()
    page.add_init_script(FAKE_NOTIFICATIONS)
    page.goto(f"{server.url}/help")
    page.evaluate(SIMULATED_VISIBILITY)
    page.evaluate(
        """async () => {
          const attention = await import("/static/js/attention.js");
          document.querySelector("main").prepend(attention.notifyButton());
        }"""
    )
    _set_visibility(page, "hidden")
    _your_move(page, True)
    _your_move(page, False)
    assert page.evaluate("[window.permissionRequests, window.notificationsShown]") == [0, []]

    _set_visibility(page, "visible")
    page.get_by_role("button", name="Notifications: off").click()
    expect(page.get_by_role("button", name="Notifications: on")).to_have_attribute(
        "aria-pressed", "true"
    )
    assert page.evaluate("window.permissionRequests") == 1

    _your_move(page, True)
    _your_move(page, False)
    _set_visibility(page, "hidden")
    _your_move(page, True, "Choose a direction")
    shown = page.evaluate("window.notificationsShown")
    assert shown == [["Cash Stash", "Choose a direction"]]
    _set_visibility(page, "visible")
    assert page.evaluate("window.notificationsClosed") == 1, "back at the table: it goes away"

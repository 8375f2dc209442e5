"""The help page's pictures of the real table, taken here in real states and shipped as
``static/img/help/*.webp``: a Penny Jar selected with its places lit (laptop), the answer to it
on a phone, the table after that challenge with the log beside it and End your turn in the bar
(laptop), and the log opened on a phone.

The test writes them under ``test-artifacts/help/``, cropped to the part the page explains, at
1x, as WebP made by Chromium; to remake the shipped ones, run this test and copy those files to
``static/img/help/``. The help page must show each of them at its own size."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from playwright.sync_api import Browser, FloatRect, Locator, Page, expect

from tests.browser.harness import (
    ARTIFACTS,
    ROOT,
    OpenPage,
    Server,
    create_room,
    table_version,
    wait_for_next_state,
)
from tests.browser.server import HELP_ROOM

PICTURES = ARTIFACTS / "help"
SHIPPED = ROOT / "static" / "img" / "help"
QUALITY = 0.82
"""WebP quality: the cards' words stay sharp at about a tenth of the PNG's bytes."""
MOST_BYTES = 72 * 1024
"""No picture of the help page weighs more."""
EDGE = {"x": 8, "y": 40}
"""Where to press a hand card: near its left edge, the part a fanned hand always shows."""
NAMES = ("select-places", "duel-phone", "table-laptop", "drawer-phone")


def as_webp(converter: Page, png: bytes) -> bytes:
    """The picture as WebP, encoded by Chromium's own canvas."""
    data: str = converter.evaluate(
        """async ([png, quality]) => {
            const image = new Image();
            image.src = `data:image/png;base64,${png}`;
            await image.decode();
            const canvas = document.createElement("canvas");
            canvas.width = image.naturalWidth;
            canvas.height = image.naturalHeight;
            canvas.getContext("2d").drawImage(image, 0, 0);
            return canvas.toDataURL("image/webp", quality);
        }""",
        [base64.b64encode(png).decode(), QUALITY],
    )
    assert data.startswith("data:image/webp;base64,"), "Chromium made no WebP"
    return base64.b64decode(data.split(",", 1)[1])


def take(converter: Page, page: Page, name: str, clip: FloatRect | None = None) -> None:
    """The window as the player sees it now (or the part in ``clip``), once nothing flies and
    nothing is highlighted as just changed, so the pictures come out the same every time."""
    expect(page.locator("[data-motion]")).to_have_count(0)
    expect(page.locator(".motion-fresh")).to_have_count(0)
    png = page.screenshot(clip=clip, animations="disabled", caret="hide")
    PICTURES.mkdir(parents=True, exist_ok=True)
    (PICTURES / f"{name}.webp").write_bytes(as_webp(converter, png))


def around(*parts: Locator, margin: int = 6) -> FloatRect:
    """The box holding every part, with a margin, inside the window."""
    boxes = [box for part in parts if (box := part.bounding_box()) is not None]
    assert len(boxes) == len(parts), "a part of the picture is not shown"
    left = max(0, min(box["x"] for box in boxes) - margin)
    top = max(0, min(box["y"] for box in boxes) - margin)
    right = max(box["x"] + box["width"] for box in boxes) + margin
    bottom = max(box["y"] + box["height"] for box in boxes) + margin
    size = parts[0].page.viewport_size
    assert size is not None
    right, bottom = min(right, size["width"]), min(bottom, size["height"])
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


def select(page: Page, kind: str, *, touch: bool = False) -> None:
    of_kind = page.locator(f'.hand .hand-card[data-kind="{kind}"]')
    card = of_kind.and_(page.locator('[aria-pressed="false"]')).first
    card.tap(position=EDGE) if touch else card.click(position=EDGE)
    expect(of_kind.and_(page.locator('[aria-pressed="true"]'))).to_have_count(1)


def press(page: Page, target: Locator, *, touch: bool = False) -> None:
    version = table_version(page)
    target.tap() if touch else target.click()
    wait_for_next_state(page, version)


def test_the_help_pages_pictures_are_taken_at_the_real_table(
    open_page: OpenPage, browser: Browser, server: Server
) -> None:
    converter = browser.new_page()
    ann = open_page(width=1280, height=800)
    bea = open_page(width=360, height=740, touch=True)
    invite = create_room(ann, server, name="Ann", seats=2, room_name=HELP_ROOM)
    bea.goto(invite)
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_role("button", name="Join the room").click()
    expect(ann.locator(".seat-row", has_text="Bea")).to_be_visible()
    ann.get_by_role("button", name="Start the game").click()
    expect(ann.get_by_test_id("turn-status")).to_contain_text("Your turn")

    # Ann selects her Penny Jar: Bea's top Racehorse set and the discard pile light up.
    select(ann, "penny_jar")
    bea_top = ann.locator('.felt [data-place="set:1:0"]')
    expect(bea_top).to_have_class(re.compile(r"\blit\b"))
    take(converter, ann, "select-places", around(ann.locator(".table-page")))

    # She challenges it; on her phone Bea selects the two cards a Penny Jar asks for.
    press(ann, bea_top)
    expect(bea.locator(".duel.yours")).to_be_visible()
    select(bea, "racehorse", touch=True)
    select(bea, "silver_bar", touch=True)
    expect(bea.locator('.felt [data-place="duel"]')).to_have_class(re.compile(r"\blit\b"))
    take(converter, bea, "duel-phone")
    press(bea, bea.locator('.felt [data-place="duel"]'), touch=True)

    # Ann holds no Racehorse and no wild: she concedes from the bar, then may end her turn.
    concede = ann.locator(".bar-buttons > button.option[data-move='concede']")
    expect(concede).to_be_visible()
    press(ann, concede)
    expect(ann.get_by_role("button", name="End your turn")).to_be_visible()
    expect(ann.locator(".log")).to_contain_text("Ann concedes")
    take(converter, ann, "table-laptop", around(ann.locator(".action-bar"), ann.locator(".side")))

    # On the phone, the Log tab opens the log over the upper part of the table.
    bea.get_by_role("tab", name="Log").tap()
    expect(bea.locator("#panel-log")).to_be_visible()
    expect(bea.locator("#panel-log")).to_contain_text("Bea answers")
    take(converter, bea, "drawer-phone")
    converter.close()

    for name in NAMES:
        made = PICTURES / f"{name}.webp"
        assert made.stat().st_size <= MOST_BYTES, f"{name}: {made.stat().st_size} bytes"


def shipped_pictures(page: Page) -> dict[str, dict[str, int]]:
    """Every picture of the help page: its address, its width and height attributes and the
    size of the picture itself."""
    found: dict[str, dict[str, int]] = page.locator("main img").evaluate_all(
        """images => Object.fromEntries(images.map((image) => [image.getAttribute("src"), {
            width: image.width, height: image.height,
            naturalWidth: image.naturalWidth, naturalHeight: image.naturalHeight,
            alt: image.alt.length,
        }]))"""
    )
    return found


def test_the_help_page_shows_each_picture_whole_at_its_own_size(
    open_page: OpenPage, server: Server
) -> None:
    for width, height in ((1280, 800), (360, 740)):
        page = open_page(width=width, height=height)
        page.goto(f"{server.url}/help")
        images = page.locator("main img")
        expect(images).to_have_count(len(NAMES))
        for index in range(len(NAMES)):
            images.nth(index).scroll_into_view_if_needed()
            expect(images.nth(index)).to_have_js_property("complete", True)
        pictures = shipped_pictures(page)
        assert set(pictures) == {f"/static/img/help/{name}.webp" for name in NAMES}
        for src, picture in pictures.items():
            path = SHIPPED / Path(src).name
            assert path.stat().st_size <= MOST_BYTES, f"{src} weighs {path.stat().st_size} bytes"
            assert picture["naturalWidth"] > 0, f"{src} did not load"
            assert picture["alt"] > 40, f"{src} needs words that say what it shows"
            attributes = page.locator(f'main img[src="{src}"]')
            declared = attributes.evaluate(
                "img => [+img.getAttribute('width'), +img.getAttribute('height')]"
            )
            assert declared == [picture["naturalWidth"], picture["naturalHeight"]], src
            assert picture["width"] <= width, f"{src} is wider than the window"
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the help page scrolls sideways at {width} px"

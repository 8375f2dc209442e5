"""Accounts in Chromium with a virtual authenticator (CDP's WebAuthn domain): a guest plays a
game, makes an account with a passkey, and signs in with that passkey in a fresh browser
context, which then shows the same name, games and rating; the phone keeps its own guest id,
which plays for the account from then on, and takes a new one on signing out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page, expect

from tests.browser.harness import WAIT_MS, Server, add_ai_players, play_until_over

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


def with_authenticator(browser: Browser, errors: list[str]) -> tuple[Page, CDPSession, str]:
    """A page in a context of its own, with a platform authenticator that verifies its user."""
    context: BrowserContext = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added: dict[str, Any] = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return page, cdp, str(added["authenticatorId"])


@pytest.mark.timeout(480)  # a whole game first, on a shared machine
def test_a_guest_makes_an_account_and_signs_in_again_on_a_fresh_context(
    browser: Browser, server: Server
) -> None:
    # WebAuthn takes a domain, never an address, as its relying party: the site as localhost.
    site = server.url.replace("127.0.0.1", "localhost")
    errors: list[str] = []
    laptop, laptop_cdp, laptop_authenticator = with_authenticator(browser, errors)
    phone, phone_cdp, phone_authenticator = with_authenticator(browser, errors)
    try:
        laptop.goto(site)
        laptop.get_by_label("Your name").fill("Dora")
        laptop.get_by_label("Rule set").select_option("simple")
        laptop.get_by_label("Seats").fill("2")
        laptop.get_by_role("button", name="Create room").click()
        add_ai_players(laptop, 1)
        laptop.get_by_role("button", name="Start the game").click()
        play_until_over(laptop, prefer="Form")
        guest = laptop.evaluate("JSON.parse(localStorage.getItem('cash-stash:player-id'))")

        laptop.goto(site)
        laptop.get_by_role("link", name="Sign in / Make an account").click()
        expect(laptop).to_have_url(re.compile(r"/account$"))
        laptop.get_by_label("Your name").fill("Dora")
        laptop.get_by_role("button", name="Make an account").click()
        expect(laptop.get_by_role("heading", name="Dora", exact=True)).to_be_visible()
        summary = laptop.get_by_test_id("account-summary")
        expect(summary).to_contain_text("1 game")
        expect(laptop.locator(".history .game-card")).to_have_count(1)
        seen_on_laptop = summary.inner_text()
        game_link = laptop.locator(".history .game-card a").first.get_attribute("href")

        made = laptop_cdp.send("WebAuthn.getCredentials", {"authenticatorId": laptop_authenticator})
        credentials = made["credentials"]
        assert len(credentials) == 1 and credentials[0]["isResidentCredential"]
        # The same passkey on the phone (as a passkey synced between one's devices would be).
        phone_cdp.send(
            "WebAuthn.addCredential",
            {"authenticatorId": phone_authenticator, "credential": credentials[0]},
        )

        phone.goto(f"{site}/account")
        phone.get_by_role("button", name="Sign in with a passkey").click()
        expect(phone.get_by_role("heading", name="Dora", exact=True)).to_be_visible()
        expect(phone.get_by_test_id("account-summary")).to_have_text(seen_on_laptop)
        expect(phone.locator(".history .game-card a").first).to_have_attribute(
            "href", game_link or ""
        )
        # The account's guest id is never sent: the phone plays under its own, joined.
        phone_guest = phone.evaluate("JSON.parse(localStorage.getItem('cash-stash:player-id'))")
        assert phone_guest and phone_guest != guest
        marked = phone.evaluate("JSON.parse(localStorage.getItem('cash-stash:account-player-id'))")
        assert marked == phone_guest

        phone.get_by_role("button", name="Sign out", exact=True).click()
        expect(phone.get_by_role("button", name="Sign in with a passkey")).to_be_visible()
        after = phone.evaluate("JSON.parse(localStorage.getItem('cash-stash:player-id'))")
        assert after not in (guest, phone_guest)
    finally:
        laptop.context.close()
        phone.context.close()
    assert not errors, f"script errors: {errors}"


def test_a_live_table_begun_on_the_laptop_is_opened_from_the_phones_lobby(
    browser: Browser, server: Server
) -> None:
    """Edna, signed in, starts a live table against an AI on her laptop; on her phone, signed
    in with the same passkey, the lobby's "Your games" lists it as live, and its link opens her
    seat there (a token of the phone's own, through the account). Her own name: accounts'
    names are unique on the server every test of this folder shares."""
    site = server.url.replace("127.0.0.1", "localhost")
    errors: list[str] = []
    laptop, laptop_cdp, laptop_authenticator = with_authenticator(browser, errors)
    phone, phone_cdp, phone_authenticator = with_authenticator(browser, errors)
    try:
        laptop.goto(f"{site}/account")
        laptop.get_by_label("Your name").fill("Edna")
        laptop.get_by_role("button", name="Make an account").click()
        expect(laptop.get_by_role("heading", name="Edna", exact=True)).to_be_visible()
        laptop.goto(site)
        laptop.get_by_label("Your name").fill("Edna")
        laptop.get_by_label("Seats").fill("2")
        laptop.get_by_role("button", name="Create room").click()
        add_ai_players(laptop, 1)
        laptop.get_by_role("button", name="Start the game").click()
        expect(laptop.locator(".hand-card").first).to_be_visible()
        table = laptop.url.replace("localhost", "127.0.0.1")

        made = laptop_cdp.send("WebAuthn.getCredentials", {"authenticatorId": laptop_authenticator})
        phone_cdp.send(
            "WebAuthn.addCredential",
            {"authenticatorId": phone_authenticator, "credential": made["credentials"][0]},
        )
        phone.goto(f"{site}/account")
        phone.get_by_role("button", name="Sign in with a passkey").click()
        expect(phone.get_by_role("heading", name="Edna", exact=True)).to_be_visible()
        phone.goto(site)
        games = phone.get_by_role("region", name="Your games")
        expect(games.locator("p.hint")).to_have_text("A live game is going on: open it to play.")
        entry = games.get_by_test_id("your-game")
        expect(entry).to_have_count(1)
        expect(entry).to_contain_text("Live now")
        entry.get_by_role("link").click()
        expect(phone).to_have_url(re.compile(re.escape(table.rsplit("/", 1)[1]) + "$"))
        expect(phone.locator(".player.you .player-name")).to_contain_text("Edna")
        expect(phone.locator(".hand-card").first).to_be_visible()
    finally:
        laptop.context.close()
        phone.context.close()
    assert not errors, f"script errors: {errors}"

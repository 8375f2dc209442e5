"""Who is signed in (``app.accounts.sessions``): a session cookie names its account until it
is closed; a call that changes something on a cookie's authority must come from the site."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI, WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from app.accounts.sessions import (
    SESSION_COOKIE,
    MaybeSignedIn,
    SignedInDep,
    open_session,
    session_digest,
)
from tests.app.accounts.helpers import AccountsApi, make_account, same_site
from tests.app.conftest import MakeSettings
from tests.app.live import live_server


def add_probe_routes(app: FastAPI) -> None:
    """A route that says who is signed in, one that needs someone, to change something, and a
    WebSocket that says who opened it."""

    @app.websocket("/api/probe/socket")
    async def socket(websocket: WebSocket, signed: MaybeSignedIn) -> None:
        await websocket.accept()
        await websocket.send_json({"account": None if signed is None else signed.account_id})
        await websocket.close()

    @app.get("/api/probe/who")
    async def who(signed: MaybeSignedIn) -> dict[str, str | None]:
        return {"account": None if signed is None else signed.account_id}

    @app.post("/api/probe/act")
    async def act(signed: SignedInDep) -> dict[str, str]:
        return {"account": signed.account_id}


@pytest.fixture
def api(accounts_api: AccountsApi) -> AccountsApi:
    add_probe_routes(accounts_api.app)
    return accounts_api


async def test_a_session_cookie_signs_its_account_in(api: AccountsApi) -> None:
    ann = await make_account(api.sessions, api.store, name="Ann")
    async with api.device(cookies=ann.cookies) as browser:
        answer = await browser.get("/api/probe/who")
    assert answer.json() == {"account": ann.account_id}
    assert (await api.client.get("/api/probe/who")).json() == {"account": None}


async def test_an_unknown_or_overlong_cookie_signs_nobody_in(api: AccountsApi) -> None:
    for token in ("not-a-session", "x" * 5000):
        async with api.device(cookies={SESSION_COOKIE: token}) as browser:
            answer = await browser.get("/api/probe/who")
        assert answer.json() == {"account": None}


async def test_a_closed_session_signs_nobody_in(api: AccountsApi) -> None:
    ann = await make_account(api.sessions, api.store, name="Ann")
    await api.store.close_session(session_digest(ann.token))
    async with api.device(cookies=ann.cookies) as browser:
        answer = await browser.post("/api/probe/act", headers=same_site())
    assert answer.status_code == 401
    assert answer.json()["code"] == "not_signed_in"


async def test_a_change_from_the_site_itself_is_made(api: AccountsApi) -> None:
    ann = await make_account(api.sessions, api.store, name="Ann")
    async with api.device(cookies=ann.cookies) as browser:
        answer = await browser.post("/api/probe/act", headers=same_site())
    assert answer.status_code == 200
    assert answer.json() == {"account": ann.account_id}


@pytest.mark.parametrize(
    "origin",
    [None, "null", "https://evil.example", "http://test.evil.example", "http://tes"],
)
async def test_a_change_from_another_site_is_refused(api: AccountsApi, origin: str | None) -> None:
    ann = await make_account(api.sessions, api.store, name="Ann")
    headers = {} if origin is None else {"origin": origin}
    async with api.device(cookies=ann.cookies) as browser:
        answer = await browser.post("/api/probe/act", headers=headers)
    assert answer.status_code == 403
    assert answer.json()["code"] == "cross_site_request"


async def test_reading_needs_no_origin(api: AccountsApi) -> None:
    ann = await make_account(api.sessions, api.store, name="Ann")
    async with api.device(cookies=ann.cookies) as browser:
        answer = await browser.get("/api/probe/who", headers={"origin": "https://evil.example"})
    assert answer.json() == {"account": ann.account_id}


async def test_a_websocket_from_the_site_is_signed_in_and_one_from_elsewhere_refused(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live:
        add_probe_routes(live.app)
        token = await open_session(live.app.state.accounts, account_id="ann", seconds=60)
        url = f"ws://127.0.0.1:{live.port}/api/probe/socket"
        cookie = {"cookie": f"{SESSION_COOKIE}={token}"}
        async with connect(url, origin=Origin(live.base_url), additional_headers=cookie) as ws:
            assert json.loads(await ws.recv()) == {"account": "ann"}
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                url, origin=Origin("https://evil.example"), additional_headers=cookie
            ):
                pass
        assert refused.value.response.status_code == 403

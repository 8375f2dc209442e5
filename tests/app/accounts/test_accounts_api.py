"""``/api/accounts`` with a software authenticator: a guest makes an account with a passkey and
keeps their games and rating, signs in again from another device, adds and removes passkeys,
links a device by code, signs out here and everywhere. Every refusal says why and nothing
more: a stranger never learns whether an account or a passkey exists."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from app.accounts.sessions import SESSION_COOKIE
from app.db.recorder import DatabaseRecorder
from app.db.repository import public_player_id
from tests.app.accounts.authenticator import SoftAuthenticator
from tests.app.accounts.helpers import BASE_URL, AccountsApi, make_account, same_site
from tests.app.db.finished_games import bot, person, played_game

SITE = same_site(BASE_URL)


async def post(client: httpx.AsyncClient, path: str, body: Any = None) -> httpx.Response:
    return await client.post(path, json={} if body is None else body, headers=SITE)


async def register(
    client: httpx.AsyncClient,
    authenticator: SoftAuthenticator,
    *,
    name: str = "Ann",
    guest_id: str | None = None,
) -> httpx.Response:
    started = await post(
        client,
        "/api/accounts/register/options",
        {"name": name, "guest_id": guest_id or str(uuid.uuid4())},
    )
    assert started.status_code == 200, started.text
    answer = authenticator.create(started.json()["options"])
    return await post(
        client,
        "/api/accounts/register",
        {"ceremony": started.json()["ceremony"], "credential": answer},
    )


async def sign_in(
    client: httpx.AsyncClient,
    authenticator: SoftAuthenticator,
    *,
    guest_id: str | None = None,
    **get: Any,
) -> httpx.Response:
    started = await post(client, "/api/accounts/sign-in/options")
    assert started.status_code == 200, started.text
    answer = authenticator.get(started.json()["options"], **get)
    body = {"ceremony": started.json()["ceremony"], "credential": answer}
    if guest_id is not None:
        body["guest_id"] = guest_id
    return await post(client, "/api/accounts/sign-in", body)


def refusal(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text


async def test_a_guest_makes_an_account_with_a_passkey_and_keeps_their_games(
    accounts_api: AccountsApi,
) -> None:
    guest = str(uuid.uuid4())
    game = played_game([person(0, "Ann", guest), bot(1, "easy")], seed=3)
    await DatabaseRecorder(accounts_api.sessions).record(game)

    made = await register(accounts_api.client, SoftAuthenticator(), name="Ann", guest_id=guest)
    assert made.status_code == 201, made.text
    account = made.json()
    assert account["name"] == "Ann"
    assert account["player_id"] == public_player_id(guest)
    assert guest not in made.text
    assert account["games"] == 1
    assert account["rating"] is not None
    assert [key["label"] for key in account["passkeys"]] != []

    cookie = made.headers["set-cookie"]
    assert f"{SESSION_COOKIE}=" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    assert f"Max-Age={accounts_api.settings.session_days * 86400}" in cookie

    me = await accounts_api.client.get("/api/accounts/me")
    assert me.json() == account
    games = await accounts_api.client.get(f"/api/players/{account['player_id']}/games")
    assert [played["id"] for played in games.json()["games"]] == [game.game_id]


async def test_the_cookie_is_secure_behind_https(accounts_api: AccountsApi) -> None:
    async with accounts_api.device("https://test") as client:
        started = await client.post(
            "/api/accounts/register/options",
            json={"name": "Ann", "guest_id": str(uuid.uuid4())},
            headers={"origin": "https://test"},
        )
        answer = SoftAuthenticator("https://test").create(started.json()["options"])
        made = await client.post(
            "/api/accounts/register",
            json={"ceremony": started.json()["ceremony"], "credential": answer},
            headers={"origin": "https://test"},
        )
    assert made.status_code == 201, made.text
    assert "Secure" in made.headers["set-cookie"]


async def test_another_device_signs_in_brings_its_games_once_and_plays_for_the_account(
    accounts_api: AccountsApi,
) -> None:
    authenticator = SoftAuthenticator()
    recorder = DatabaseRecorder(accounts_api.sessions)
    laptop, phone_guest = str(uuid.uuid4()), str(uuid.uuid4())
    await recorder.record(played_game([person(0, "Ann", laptop), bot(1, "easy")], seed=1))
    made = (await register(accounts_api.client, authenticator, guest_id=laptop)).json()
    assert made["games"] == 1
    # The phone played as a guest of its own before signing in.
    await recorder.record(played_game([person(0, "Ann", phone_guest), bot(1, "easy")], seed=2))
    async with accounts_api.device() as phone:
        assert (await phone.get("/api/accounts/me")).status_code == 401
        for _ in range(2):
            # Signing in again from the phone brings nothing twice.
            signed = await sign_in(phone, authenticator, guest_id=phone_guest)
            assert signed.status_code == 200, signed.text
            assert signed.json()["games"] == 2
            assert signed.json()["player_id"] == made["player_id"]
            assert laptop not in signed.text and phone_guest not in signed.text
        assert (await phone.get("/api/accounts/me")).json()["name"] == "Ann"
        # What the phone plays under its own guest id from now on is the account's.
        played = played_game([person(0, "Ann", phone_guest), bot(1, "easy")], seed=3)
        await recorder.record(played)
        assert (await accounts_api.client.get("/api/accounts/me")).json()["games"] == 3
        history = await phone.get(f"/api/players/{phone_guest}/games")
        assert history.json()["player"]["id"] == made["player_id"]
        assert history.json()["total"] == 3


async def test_a_sign_in_is_refused_alike_for_an_unknown_passkey_and_a_forged_one(
    accounts_api: AccountsApi,
) -> None:
    authenticator = SoftAuthenticator()
    await register(accounts_api.client, authenticator)
    async with accounts_api.device() as stranger:
        unknown = await sign_in(stranger, SoftAuthenticator())
        forged = await sign_in(stranger, authenticator, key=ec.generate_private_key(ec.SECP256R1()))
        elsewhere = await sign_in(stranger, authenticator, origin="https://evil.example")
        for refused in (unknown, forged, elsewhere):
            refusal(refused, 401, "passkey_refused")
        assert unknown.json() == forged.json() == elsewhere.json()
        assert SESSION_COOKIE not in stranger.cookies
        assert (await stranger.get("/api/accounts/me")).status_code == 401


async def test_a_ceremony_is_answered_once(accounts_api: AccountsApi) -> None:
    authenticator = SoftAuthenticator()
    await register(accounts_api.client, authenticator)
    started = (await post(accounts_api.client, "/api/accounts/sign-in/options")).json()
    body = {"ceremony": started["ceremony"], "credential": authenticator.get(started["options"])}
    assert (await post(accounts_api.client, "/api/accounts/sign-in", body)).status_code == 200
    refusal(await post(accounts_api.client, "/api/accounts/sign-in", body), 400, "ceremony_expired")
    body["ceremony"] = "never-begun"
    refusal(await post(accounts_api.client, "/api/accounts/sign-in", body), 400, "ceremony_expired")


async def test_a_sign_in_answer_cannot_finish_a_registration(accounts_api: AccountsApi) -> None:
    started = (await post(accounts_api.client, "/api/accounts/sign-in/options")).json()
    body = {
        "ceremony": started["ceremony"],
        "credential": SoftAuthenticator().get(started["options"]),
    }
    refusal(
        await post(accounts_api.client, "/api/accounts/register", body), 400, "ceremony_expired"
    )


@pytest.mark.parametrize(
    "credential",
    [{}, {"id": 5}, {"id": "x" * 2000}, {"id": "AAAA", "response": "no"}, {"rawId": "!!"}],
)
async def test_a_malformed_sign_in_answer_is_refused(
    accounts_api: AccountsApi, credential: dict[str, Any]
) -> None:
    started = (await post(accounts_api.client, "/api/accounts/sign-in/options")).json()
    body = {"ceremony": started["ceremony"], "credential": credential}
    refusal(await post(accounts_api.client, "/api/accounts/sign-in", body), 401, "passkey_refused")


async def test_a_registration_with_a_bad_answer_makes_nothing(accounts_api: AccountsApi) -> None:
    started = await post(
        accounts_api.client,
        "/api/accounts/register/options",
        {"name": "Ann", "guest_id": str(uuid.uuid4())},
    )
    answer = SoftAuthenticator().create(started.json()["options"], origin="https://evil.example")
    body = {"ceremony": started.json()["ceremony"], "credential": answer}
    refusal(
        await post(accounts_api.client, "/api/accounts/register", body), 400, "passkey_not_made"
    )
    # The name is still free.
    assert (await register(accounts_api.client, SoftAuthenticator())).status_code == 201


async def test_a_taken_name_and_a_guest_with_an_account_are_refused(
    accounts_api: AccountsApi,
) -> None:
    guest = str(uuid.uuid4())
    await make_account(accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest)
    for name, guest_id, code in (
        ("ANN", str(uuid.uuid4()), "name_taken"),
        ("\uff21nn", str(uuid.uuid4()), "name_taken"),
        ("Bob", guest, "guest_has_account"),
    ):
        started = await post(
            accounts_api.client,
            "/api/accounts/register/options",
            {"name": name, "guest_id": guest_id},
        )
        refusal(started, 409, code)


@pytest.mark.parametrize(
    "body",
    [
        {"name": "", "guest_id": "00000000-0000-4000-8000-000000000000"},
        {"name": "\u202eAnn", "guest_id": "00000000-0000-4000-8000-000000000000"},
        {"name": "Ann", "guest_id": "not-a-uuid"},
        {"name": "Ann"},
        {"name": 5, "guest_id": "00000000-0000-4000-8000-000000000000"},
    ],
)
async def test_a_bad_registration_request_is_refused_clearly(
    accounts_api: AccountsApi, body: dict[str, Any]
) -> None:
    answer = await post(accounts_api.client, "/api/accounts/register/options", body)
    assert answer.status_code == 422
    assert answer.json()["detail"]


@pytest.mark.parametrize("path", ["/api/accounts/sign-in", "/api/accounts/link"])
@pytest.mark.parametrize("guest_id", ["not-a-uuid", 5, ""])
async def test_a_sign_in_with_a_bad_guest_id_is_refused_clearly(
    accounts_api: AccountsApi, path: str, guest_id: object
) -> None:
    body: dict[str, object] = {"ceremony": "x", "credential": {}, "guest_id": guest_id}
    if path.endswith("/link"):
        body = {"code": "ABCD-EFGH", "guest_id": guest_id}
    answer = await post(accounts_api.client, path, body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"]


async def test_passkeys_are_added_and_removed_but_never_the_last(
    accounts_api: AccountsApi,
) -> None:
    laptop, key = SoftAuthenticator(), SoftAuthenticator()
    client = accounts_api.client
    await register(client, laptop)
    started = (await post(client, "/api/accounts/me/passkeys/options")).json()
    assert [item["id"] for item in started["options"]["excludeCredentials"]] == [laptop.id]
    added = await post(
        client,
        "/api/accounts/me/passkeys",
        {
            "ceremony": started["ceremony"],
            "credential": key.create(started["options"]),
            "label": "Key",
        },
    )
    assert added.status_code == 201, added.text
    assert added.json()["label"] == "Key"

    async with accounts_api.device() as other:
        assert (await sign_in(other, key)).status_code == 200

    removed = await client.delete(f"/api/accounts/me/passkeys/{laptop.id}", headers=SITE)
    assert removed.status_code == 204
    async with accounts_api.device() as other:
        refusal(await sign_in(other, laptop), 401, "passkey_refused")
    refusal(
        await client.delete(f"/api/accounts/me/passkeys/{key.id}", headers=SITE),
        409,
        "last_passkey",
    )
    me = (await client.get("/api/accounts/me")).json()
    assert [item["id"] for item in me["passkeys"]] == [key.id]


async def test_another_account_s_passkey_cannot_be_removed(accounts_api: AccountsApi) -> None:
    ann, bob = SoftAuthenticator(), SoftAuthenticator()
    await register(accounts_api.client, ann, name="Ann")
    async with accounts_api.device() as other:
        await register(other, bob, name="Bob")
        refusal(
            await other.delete(f"/api/accounts/me/passkeys/{ann.id}", headers=SITE),
            404,
            "passkey_not_found",
        )


async def test_a_signed_in_device_links_another_by_a_one_time_code(
    accounts_api: AccountsApi,
) -> None:
    client = accounts_api.client
    made = (await register(client, SoftAuthenticator())).json()
    phone_guest = str(uuid.uuid4())
    await DatabaseRecorder(accounts_api.sessions).record(
        played_game([person(0, "Ann", phone_guest), bot(1, "easy")])
    )
    offered = await post(client, "/api/accounts/me/link-code")
    assert offered.status_code == 201, offered.text
    code = offered.json()["code"]
    assert offered.json()["link"] == f"{BASE_URL}/link#{code}"
    assert offered.json()["qr_svg"].startswith("<svg")
    async with accounts_api.device() as phone:
        linked = await post(
            phone,
            "/api/accounts/link",
            {"code": code.lower().replace("-", " "), "guest_id": phone_guest},
        )
        assert linked.status_code == 200, linked.text
        # The linked device's guest, and its game, are the account's now.
        assert linked.json()["player_id"] == made["player_id"]
        assert linked.json()["games"] == 1
        assert (await phone.get("/api/accounts/me")).status_code == 200
    async with accounts_api.device() as thief:
        refusal(await post(thief, "/api/accounts/link", {"code": code}), 400, "link_code_refused")
        refusal(
            await post(thief, "/api/accounts/link", {"code": "ABCD-EFGH"}), 400, "link_code_refused"
        )
        refusal(await post(thief, "/api/accounts/link", {"code": "?"}), 400, "link_code_refused")


async def test_signing_out_here_ends_this_session_only(accounts_api: AccountsApi) -> None:
    authenticator = SoftAuthenticator()
    await register(accounts_api.client, authenticator)
    async with accounts_api.device() as phone:
        await sign_in(phone, authenticator)
        token = accounts_api.client.cookies[SESSION_COOKIE]
        out = await post(accounts_api.client, "/api/accounts/sign-out")
        assert out.status_code == 204
        assert f'{SESSION_COOKIE}=""' in out.headers["set-cookie"]
        async with accounts_api.device(cookies={SESSION_COOKIE: token}) as kept_cookie:
            assert (await kept_cookie.get("/api/accounts/me")).status_code == 401
        assert (await phone.get("/api/accounts/me")).status_code == 200


async def test_signing_out_everywhere_ends_every_session(accounts_api: AccountsApi) -> None:
    authenticator = SoftAuthenticator()
    await register(accounts_api.client, authenticator)
    async with accounts_api.device() as phone:
        await sign_in(phone, authenticator)
        out = await post(phone, "/api/accounts/sign-out-everywhere")
        assert out.json() == {"sessions": 2}
        assert (await phone.get("/api/accounts/me")).status_code == 401
    assert (await accounts_api.client.get("/api/accounts/me")).status_code == 401


async def test_a_rename_follows_the_look_alike_rules(accounts_api: AccountsApi) -> None:
    await make_account(accounts_api.sessions, accounts_api.store, name="Bob")
    client = accounts_api.client
    await register(client, SoftAuthenticator(), name="Ann")
    refusal(
        await client.patch("/api/accounts/me", json={"name": "BOB"}, headers=SITE),
        409,
        "name_taken",
    )
    renamed = await client.patch("/api/accounts/me", json={"name": "Annie"}, headers=SITE)
    assert renamed.json()["name"] == "Annie"
    assert (await client.patch("/api/accounts/me", json={"name": "ANNIE"}, headers=SITE)).json()[
        "name"
    ] == "ANNIE"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/accounts/me/link-code"),
        ("POST", "/api/accounts/me/passkeys/options"),
        ("PATCH", "/api/accounts/me"),
        ("POST", "/api/accounts/sign-out-everywhere"),
        ("DELETE", "/api/accounts/me/passkeys/x"),
    ],
)
async def test_a_cookie_sent_from_another_site_changes_nothing(
    accounts_api: AccountsApi, method: str, path: str
) -> None:
    ann = await make_account(accounts_api.sessions, accounts_api.store, name="Ann")
    async with accounts_api.device(cookies=ann.cookies) as browser:
        answer = await browser.request(
            method, path, json={"name": "Mallory"}, headers={"origin": "https://evil.example"}
        )
    refusal(answer, 403, "cross_site_request")
    async with accounts_api.device(cookies=ann.cookies) as browser:
        assert (await browser.get("/api/accounts/me")).json()["name"] == "Ann"


@pytest.mark.parametrize(
    "path",
    ["/api/accounts/sign-in/options", "/api/accounts/register/options", "/api/accounts/link"],
)
async def test_no_other_site_may_begin_a_sign_in_or_an_account(
    accounts_api: AccountsApi, path: str
) -> None:
    body = {"name": "Ann", "guest_id": str(uuid.uuid4()), "code": "ABCD-EFGH"}
    for headers in ({}, {"origin": "https://evil.example"}):
        answer = await accounts_api.client.post(path, json=body, headers=headers)
        refusal(answer, 403, "cross_site_request")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/accounts/me"),
        ("POST", "/api/accounts/me/link-code"),
        ("POST", "/api/accounts/me/passkeys/options"),
        ("POST", "/api/accounts/sign-out-everywhere"),
    ],
)
async def test_the_owner_s_routes_need_a_session(
    accounts_api: AccountsApi, method: str, path: str
) -> None:
    refusal(await accounts_api.client.request(method, path, headers=SITE), 401, "not_signed_in")


async def test_sign_in_attempts_are_limited_per_address(accounts_api: AccountsApi) -> None:
    accounts_api.settings.sign_ins_per_address = 2
    for _ in range(2):
        refusal(await sign_in(accounts_api.client, SoftAuthenticator()), 401, "passkey_refused")
    refusal(await sign_in(accounts_api.client, SoftAuthenticator()), 429, "too_many_sign_ins")


async def test_sign_in_attempts_are_limited_per_account(accounts_api: AccountsApi) -> None:
    authenticator = SoftAuthenticator()
    await register(accounts_api.client, authenticator)
    accounts_api.settings.sign_ins_per_account = 2
    forger = ec.generate_private_key(ec.SECP256R1())
    for _ in range(2):
        refusal(
            await sign_in(accounts_api.client, authenticator, key=forger), 401, "passkey_refused"
        )
    refusal(await sign_in(accounts_api.client, authenticator), 429, "too_many_sign_ins")


async def test_registrations_and_ceremonies_are_limited_per_address(
    accounts_api: AccountsApi,
) -> None:
    accounts_api.settings.registrations_per_address = 1
    assert (await register(accounts_api.client, SoftAuthenticator(), name="Ann")).status_code == 201
    refusal(
        await register(accounts_api.client, SoftAuthenticator(), name="Bob"),
        429,
        "too_many_accounts",
    )
    accounts_api.settings.ceremonies_per_address = 1
    refusal(
        await post(accounts_api.client, "/api/accounts/sign-in/options"),
        429,
        "too_many_passkey_requests",
    )


async def test_link_codes_are_limited_per_address_and_per_account(
    accounts_api: AccountsApi,
) -> None:
    ann = await make_account(accounts_api.sessions, accounts_api.store, name="Ann")
    accounts_api.settings.link_codes_per_account = 1
    accounts_api.settings.link_lookups_per_address = 1
    async with accounts_api.device() as owner:
        owner.cookies.update(ann.cookies)
        assert (await post(owner, "/api/accounts/me/link-code")).status_code == 201
        refusal(await post(owner, "/api/accounts/me/link-code"), 429, "too_many_link_codes")
    refusal(
        await post(accounts_api.client, "/api/accounts/link", {"code": "ABCD-EFGH"}),
        400,
        "link_code_refused",
    )
    refusal(
        await post(accounts_api.client, "/api/accounts/link", {"code": "ABCD-EFGH"}),
        429,
        "too_many_link_attempts",
    )


async def test_no_answer_carries_another_player_s_secrets(accounts_api: AccountsApi) -> None:
    bob = await make_account(accounts_api.sessions, accounts_api.store, name="Bob")
    authenticator = SoftAuthenticator()
    client = accounts_api.client
    answers = [
        await register(client, authenticator, name="Ann"),
        await sign_in(client, authenticator),
        await client.get("/api/accounts/me"),
        await post(client, "/api/accounts/me/link-code"),
        await post(
            client, "/api/accounts/register/options", {"name": "Bob", "guest_id": str(uuid.uuid4())}
        ),
    ]
    for answer in answers:
        assert bob.guest_id not in answer.text
        assert bob.token not in answer.text
        assert bob.account_id not in answer.text


async def test_account_changes_are_limited_per_account(accounts_api: AccountsApi) -> None:
    ann = await make_account(accounts_api.sessions, accounts_api.store, name="Ann")
    accounts_api.settings.account_changes_per_account = 2
    async with accounts_api.device(cookies=ann.cookies) as owner:
        for name in ("Annie", "Anne"):
            renamed = await owner.patch("/api/accounts/me", json={"name": name}, headers=SITE)
            assert renamed.status_code == 200, renamed.text
        refusal(
            await owner.patch("/api/accounts/me", json={"name": "Ana"}, headers=SITE),
            429,
            "too_many_account_changes",
        )

"""A seat opened on another device of its person: ``POST /api/rooms/{code}/device``, for a
device signed in to the account the seat's guest plays for (a table begun on a computer, its
push notification opened on a phone)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from app.accounts.repository import join_guest
from app.db.models import Account
from app.db.repository import public_player_id
from app.rooms.credentials import hash_token
from app.rooms.errors import RoomError
from app.rooms.model import MAX_DEVICES, Room
from app.rooms.service import RoomService
from app.ws.snapshot import Snapshot
from tests.app.accounts.helpers import AccountsApi, make_account, same_site


async def a_game_of(client: httpx.AsyncClient, guest: str, *, mode: str = "live") -> dict[str, Any]:
    """A two-seat room made by ``guest`` (Ann), started: its code and Ann's seat token. A live
    table's other seat is an AI; a turn-based table's is a person, Bea (an AI's moves would be
    written to the database in the background, and one cut short when the app stops leaves
    the shared SQLite file locked for the next test)."""
    made = await client.post(
        "/api/rooms", json={"name": "Ann", "player_id": guest, "seats": 2, "mode": mode}
    )
    assert made.status_code == 201, made.text
    created: dict[str, Any] = made.json()
    code, host = created["code"], {"Authorization": f"Bearer {created['token']}"}
    if mode == "turn":
        other = await client.post(f"/api/rooms/{code}/join", json={"name": "Bea"})
        assert other.status_code == 200, other.text
    else:
        other = await client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=host)
        assert other.status_code == 201, other.text
    started = await client.post(f"/api/rooms/{code}/start", headers=host)
    assert started.status_code == 200, started.text
    return created


async def room_of(api: AccountsApi, code: str) -> Room:
    service: RoomService = api.app.state.runtime.service
    room = await service.load(code)
    assert room is not None
    return room


async def test_another_device_of_the_account_gets_a_token_of_its_own_for_the_seat(
    accounts_api: AccountsApi,
) -> None:
    guest = str(uuid.uuid4())
    account = await make_account(
        accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest
    )
    created = await a_game_of(accounts_api.client, guest)
    code = created["code"]
    async with accounts_api.device(cookies=account.cookies) as phone:
        opened = await phone.post(f"/api/rooms/{code}/device", headers=same_site())
    assert opened.status_code == 200, opened.text
    granted = opened.json()
    assert granted["seat"] == created["seat"] == 0
    assert granted["token"] != created["token"]
    room = await room_of(accounts_api, code)
    # Both the computer's token and the phone's open the seat, for a move and for the views.
    for token in (created["token"], granted["token"]):
        assert room.seat_of(hash_token(token)) == 0
        assert Snapshot(room).seat_of(hash_token(token)) == 0
    assert room.seats[1] is not None and room.seats[1].devices == []
    # A move sent with the phone's token is the seat's: played when the seat is to act,
    # refused as out of turn when not; a token of no seat is refused as not seated.
    service: RoomService = accounts_api.app.state.runtime.service
    view = Snapshot(room).state_message(0)
    assert view is not None
    action = view["legal"][0] if view["legal"] else {"type": "end_turn"}

    async def act(token: str) -> str:
        try:
            acted = await service.act(
                code, token_hash=hash_token(token), ref=1, version=room.version, action=action
            )
        except RoomError as error:
            return error.code
        assert acted.seat == 0
        return "played"

    assert await act("not-a-seat-token") == "not_seated"
    assert await act(granted["token"]) == ("played" if view["legal"] else "not_your_turn")


async def test_a_device_of_a_guest_that_joined_the_account_later_gets_the_seat_too(
    accounts_api: AccountsApi,
) -> None:
    """The seat was taken by a browser that signed in to the account after making its guest:
    that guest plays for the account, so its seat is the account's."""
    account = await make_account(accounts_api.sessions, accounts_api.store, name="Ann")
    laptop_guest = str(uuid.uuid4())
    async with accounts_api.sessions() as session:
        owner = await session.get(Account, account.account_id)
        assert owner is not None
        assert await join_guest(session, account=owner, player_id=public_player_id(laptop_guest))
        await session.commit()
    created = await a_game_of(accounts_api.client, laptop_guest, mode="turn")
    async with accounts_api.device(cookies=account.cookies) as phone:
        opened = await phone.post(f"/api/rooms/{created['code']}/device", headers=same_site())
        assert opened.status_code == 200, opened.text
        # The phone's token lists the game among its turn-based games.
        asked = await phone.post(
            "/api/your-games",
            json={"seats": [{"code": created["code"], "token": opened.json()["token"]}]},
            headers=same_site(),
        )
    assert asked.status_code == 200, asked.text
    assert [game["seat"] for game in asked.json()["games"]] == [0]


async def test_a_seat_keeps_its_newest_devices_tokens(accounts_api: AccountsApi) -> None:
    guest = str(uuid.uuid4())
    account = await make_account(
        accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest
    )
    created = await a_game_of(accounts_api.client, guest)
    tokens = []
    async with accounts_api.device(cookies=account.cookies) as phone:
        for _ in range(MAX_DEVICES + 1):
            opened = await phone.post(f"/api/rooms/{created['code']}/device", headers=same_site())
            assert opened.status_code == 200, opened.text
            tokens.append(opened.json()["token"])
    room = await room_of(accounts_api, created["code"])
    seat = room.seats[0]
    assert seat is not None and len(seat.devices) == MAX_DEVICES
    assert room.seat_of(hash_token(tokens[0])) is None  # given longest ago: dropped
    assert all(room.seat_of(hash_token(token)) == 0 for token in [created["token"], *tokens[1:]])


async def test_no_seat_is_opened_for_someone_else_or_without_a_session(
    accounts_api: AccountsApi,
) -> None:
    guest = str(uuid.uuid4())
    await make_account(accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest)
    stranger = await make_account(accounts_api.sessions, accounts_api.store, name="Bea")
    created = await a_game_of(accounts_api.client, guest)
    path = f"/api/rooms/{created['code']}/device"
    async with accounts_api.device(cookies=stranger.cookies) as other:
        theirs = await other.post(path, headers=same_site())
        cross_site = await other.post(path, headers={"origin": "https://elsewhere.example"})
        nowhere = await other.post("/api/rooms/ZZZZZZ/device", headers=same_site())
    signed_out = await accounts_api.client.post(path, headers=same_site())
    assert (theirs.status_code, theirs.json()["code"]) == (404, "no_seat_here")
    assert (cross_site.status_code, cross_site.json()["code"]) == (403, "cross_site_request")
    assert nowhere.status_code == 404
    assert (signed_out.status_code, signed_out.json()["code"]) == (401, "not_signed_in")
    for answer in (theirs, cross_site, nowhere, signed_out):
        assert "token" not in answer.json()
    room = await room_of(accounts_api, created["code"])
    assert all(seat is None or seat.devices == [] for seat in room.seats)


async def test_a_signed_in_browser_is_told_its_accounts_turn_based_games_from_other_devices(
    accounts_api: AccountsApi,
) -> None:
    """The lobby's "Your games" on a phone lists the turn-based game begun on the computer
    (whose seat token the phone does not hold), once, and only to the account's devices."""
    guest = str(uuid.uuid4())
    account = await make_account(
        accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest
    )
    stranger = await make_account(accounts_api.sessions, accounts_api.store, name="Bea")
    turn = await a_game_of(accounts_api.client, guest, mode="turn")
    await a_game_of(accounts_api.client, guest)  # a live table: not a turn-based game

    async def listed(client: httpx.AsyncClient, *tokens: str) -> list[tuple[str, int]]:
        """What "Your games" lists, the same as the turn-based games alone (no live game is
        among them here)."""
        seats = [{"code": turn["code"], "token": token} for token in tokens]
        answers = [
            await client.post(route, json={"seats": seats}, headers=same_site())
            for route in ("/api/your-games", "/api/turn-games")
        ]
        for answer in answers:
            assert answer.status_code == 200, answer.text
        yours, turns = ([(g["code"], g["seat"]) for g in a.json()["games"]] for a in answers)
        assert yours == turns
        return yours

    async with (
        accounts_api.device(cookies=account.cookies) as phone,
        accounts_api.device(cookies=stranger.cookies) as other,
    ):
        assert await listed(phone) == [(turn["code"], 0)]
        assert await listed(phone, turn["token"]) == [(turn["code"], 0)]  # not twice
        assert await listed(other) == []
    assert await listed(accounts_api.client) == []  # signed out: its tokens only
    assert await listed(accounts_api.client, turn["token"]) == [(turn["code"], 0)]


async def test_a_signed_in_browser_is_told_its_accounts_live_table_from_another_device(
    accounts_api: AccountsApi,
) -> None:
    """The computer plays a live table (its device connected); the phone's "Your games"
    lists it, as live, until its game ends, and then never again; the turn-based games alone
    do not list it, nor does another account's phone."""
    guest = str(uuid.uuid4())
    account = await make_account(
        accounts_api.sessions, accounts_api.store, name="Ann", guest_id=guest
    )
    stranger = await make_account(accounts_api.sessions, accounts_api.store, name="Bea")
    live = await a_game_of(accounts_api.client, guest)
    left = await a_game_of(accounts_api.client, guest)  # its device never connected
    runtime = accounts_api.app.state.runtime
    await runtime.hub.arrive(live["code"], hash_token(live["token"]))

    async def listed(client: httpx.AsyncClient, route: str) -> list[tuple[str, int, str]]:
        answer = await client.post(route, json={"seats": []}, headers=same_site())
        assert answer.status_code == 200, answer.text
        return [(g["code"], g["seat"], g.get("mode", "turn")) for g in answer.json()["games"]]

    async with (
        accounts_api.device(cookies=account.cookies) as phone,
        accounts_api.device(cookies=stranger.cookies) as other,
    ):
        assert await listed(phone, "/api/your-games") == [(live["code"], 0, "live")]
        assert await listed(phone, "/api/turn-games") == []
        assert await listed(other, "/api/your-games") == []
        assert left["code"] != live["code"]

        def finished(room: Room) -> Room:
            room = room.clone()
            room.status = "finished"
            return room

        service: RoomService = runtime.service
        await service.update(live["code"], finished)
        assert await listed(phone, "/api/your-games") == []
        assert await service.store.places(f"live-seats:{public_player_id(guest)}") == []

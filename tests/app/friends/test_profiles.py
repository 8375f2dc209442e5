"""A player's profile and games (``docs/protocol.md``, "Players and profiles"): anyone sees an
account's name, rating and its public rooms' games; its friends and itself see every game and
where it is; only its owner sees its friends. A block makes a stranger of a friend."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx

from app.db.recorder import DatabaseRecorder
from app.db.repository import public_player_id
from tests.app.db.finished_games import bot, person, played_game
from tests.app.friends.conftest import BASE_URL, FriendsApi, Player


async def games_of(api: FriendsApi, ann: Player) -> tuple[str, str]:
    """Ann plays a game at a public table and one at a private table: their ids."""
    recorder = DatabaseRecorder(api.sessions)
    public = dataclasses.replace(
        played_game([person(0, "Ann", ann.account.guest_id), bot(1, "easy")], seed=1),
        visibility="public",
    )
    private = played_game([person(0, "Ann", ann.account.guest_id), bot(1, "easy")], seed=2)
    await recorder.record(public)
    await recorder.record(private)
    return public.game_id, private.game_id


async def profile(client: httpx.AsyncClient, player_id: str) -> dict[str, Any]:
    answer = await client.get(f"/api/players/{player_id}/profile")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def test_strangers_see_the_public_games_only_friends_see_all_and_where(
    friends_api: FriendsApi,
) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    cal = await friends_api.player("Cal")
    await ann.befriend(bea)
    public, private = await games_of(friends_api, ann)
    await ann.panel()

    async with friends_api.stranger() as anyone:
        for seen in (
            await profile(anyone, ann.account.player_id),
            await profile(cal.client, ann.account.player_id),
        ):
            assert seen["name"] == "Ann" and seen["account"] is True
            assert seen["viewer"] == "other"
            assert [game["id"] for game in seen["recent"]] == [public]
            assert seen["public_only"] is True
            assert seen["where"] is None and seen["friends"] is None
        history = await anyone.get(f"/api/players/{ann.account.player_id}/games")
        assert [game["id"] for game in history.json()["games"]] == [public]
        assert history.json()["total"] == 1

    # A friend's entry in the panel names the profile.
    assert (await bea.panel())["friends"][0]["player_id"] == ann.account.player_id
    friend = await profile(bea.client, ann.account.player_id)
    assert friend["viewer"] == "friend"
    assert {game["id"] for game in friend["recent"]} == {public, private}
    assert friend["where"] == {"online": True, "at_table": False, "code": None}
    assert friend["friends"] is None

    own = await profile(ann.client, ann.account.player_id)
    assert own["viewer"] == "owner"
    assert {game["id"] for game in own["recent"]} == {public, private}
    assert own["friends"] == [{"id": bea.id, "name": "Bea"}]

    # The owner's own device names its guest id: every game, as the lobby lists them.
    async with friends_api.stranger() as device:
        history = await device.get(f"/api/players/{ann.account.guest_id}/games")
        assert history.json()["total"] == 2
        by_guest = await profile(device, ann.account.guest_id)
        assert by_guest["player_id"] == ann.account.player_id
        assert by_guest["friends"] is None and by_guest["where"] is None
        assert len(by_guest["recent"]) == 2


async def test_a_block_makes_a_stranger_of_a_friend(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    await ann.befriend(bea)
    public, _ = await games_of(friends_api, ann)
    await ann.ok("POST", "/api/friends/blocks", json={"id": bea.id})
    seen = await profile(bea.client, ann.account.player_id)
    assert seen["viewer"] == "other"
    assert [game["id"] for game in seen["recent"]] == [public]
    assert seen["where"] is None


async def test_a_guest_s_profile_and_an_unknown_id(friends_api: FriendsApi) -> None:
    guest = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
    game = played_game([person(0, "Dee", guest), bot(1, "easy")], seed=3)
    await DatabaseRecorder(friends_api.sessions).record(game)
    async with httpx.AsyncClient(transport=friends_api.transport, base_url=BASE_URL) as anyone:
        seen = await profile(anyone, public_player_id(guest))
        assert (seen["name"], seen["account"], seen["games"]) == ("Dee", False, 1)
        assert [one["id"] for one in seen["recent"]] == [game.game_id]
        assert guest not in str(seen)
        for unknown in ("0" * 32, "not-an-id"):
            missing = await anyone.get(f"/api/players/{unknown}/profile")
            assert missing.status_code == 404
            assert missing.json()["code"] == "player_not_found"
        too_long = await anyone.get(f"/api/players/{'x' * 65}/profile")
        assert too_long.status_code == 422

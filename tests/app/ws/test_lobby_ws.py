"""Lobby changes as connections see them: seats closing up at the start, a removed player."""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed

from tests.app.conftest import base_settings
from tests.app.live import bearer, connect_client, create_room, live_server


async def test_a_token_follows_its_seat_when_open_seats_close_up_at_the_start() -> None:
    async with live_server(base_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=4)
        bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        cy = (await http.post(f"/api/rooms/{code}/join", json={"name": "Cy"})).json()
        assert cy["seat"] == 2
        await http.delete(f"/api/rooms/{code}/players/{bob['seat']}", headers=bearer(host))
        client = await connect_client(live, code, cy["token"])
        waiting = await client.wait_for("room")
        assert waiting["room"]["seats"][2]["name"] == "Cy"
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        state = await client.wait_for("state")
        assert state["view"]["seat"] == 1
        assert [seat["name"] for seat in client.room["seats"]] == ["Ann", "Cy"]  # type: ignore[index]
        assert all(action["seat"] == 1 for action in state["legal"])
        await client.close()


async def test_a_removed_player_is_told_and_closed() -> None:
    async with live_server(base_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=3)
        bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        client = await connect_client(live, code, bob["token"])
        await client.wait_for("room")
        await http.delete(f"/api/rooms/{code}/players/{bob['seat']}", headers=bearer(host))
        await client.wait_for("error", lambda m: m["code"] == "removed")
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await client.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403

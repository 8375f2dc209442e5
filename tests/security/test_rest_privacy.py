"""Issue 22, probe 1: a private room's code never leaves by a public route, and the code alone
lets nobody watch unless the host allows spectators."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from app.db.migrate import upgrade
from tests.app.live import WAIT, Client, Endpoint, bearer, connect_client, play_out
from tests.security.conftest import Serve

CLOSE_NO_SPECTATORS = 4406


async def finished_game(
    http: httpx.AsyncClient, endpoint: Endpoint, **options: Any
) -> dict[str, Any]:
    """Two guests play a whole rated game in a new room; returns the room's code, the host's
    token and the guests' ids once the game is recorded."""
    guests = [str(uuid.uuid4()), str(uuid.uuid4())]
    created = await http.post(
        "/api/rooms",
        json={"name": "Ann", "seats": 2, "rules": "simple", "player_id": guests[0], **options},
    )
    assert created.status_code == 201, created.text
    code, host = created.json()["code"], created.json()["token"]
    joined = await http.post(
        f"/api/rooms/{code}/join", json={"name": "Bob", "player_id": guests[1]}
    )
    players = [
        await connect_client(endpoint, code, token) for token in (host, joined.json()["token"])
    ]
    assert (await http.post(f"/api/rooms/{code}/start", headers=bearer(host))).status_code == 200
    for player in players:
        await player.wait_for("state")
    await asyncio.gather(
        *(play_out(player, seat, random.Random(seat)) for seat, player in enumerate(players))
    )
    for player in players:
        await player.close()
    deadline = time.monotonic() + WAIT
    while (await http.get(f"/api/players/{guests[0]}/games")).json()["total"] == 0:
        assert time.monotonic() < deadline, "the finished game was never recorded"
        await asyncio.sleep(0.05)
    return {"code": code, "host": host, "guests": guests}


async def refused_spectator(endpoint: Endpoint, code: str) -> dict[str, Any]:
    """The error a connection without a seat gets, after checking it is then closed 4406."""
    stranger: Client = await connect_client(endpoint, code)
    error = await stranger.wait_for("error")
    with pytest.raises(ConnectionClosed) as closed:
        await stranger.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_NO_SPECTATORS
    return error


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """A migrated SQLite file of the test's own, for finished games."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'records.db'}"
    upgrade(url)
    return url


async def test_no_public_route_leads_a_stranger_into_a_private_room(
    serve: Serve, database_url: str
) -> None:
    server = serve(database_url=database_url)
    async with server.endpoint.http() as http:
        played = await finished_game(http, server.endpoint)
        code = played["code"]
        # The stranger's walk: leaderboard → player → games → a game.
        board = (await http.get("/api/leaderboard")).json()
        seen = [http_text(await http.get("/api/leaderboard"))]
        for entry in board["entries"]:
            history = await http.get(f"/api/players/{entry['player_id']}/games")
            seen.append(http_text(history))
            for game in history.json()["games"]:
                record = await http.get(f"/api/games/{game['id']}")
                assert record.status_code == 200
                assert record.json()["visibility"] == "private"
                assert "room_code" not in record.json()
                seen.append(http_text(record))
        assert len(seen) >= 3, "the walk found the game"
        assert not any(code in text for text in seen), "a public route shows the private code"

        # The host's rematch keeps the room alive under the same code: still nobody watches.
        rematch = await http.post(f"/api/rooms/{code}/rematch", headers=bearer(played["host"]))
        assert rematch.status_code == 200
        error = await refused_spectator(server.endpoint, code)
        assert error["code"] == "no_spectators"


def http_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return response.text


async def test_the_host_decides_whether_the_code_lets_people_watch(serve: Serve) -> None:
    server = serve()
    async with server.endpoint.http() as http:
        created = (await http.post("/api/rooms", json={"name": "Ann"})).json()
        code, host = created["code"], created["token"]
        summary = (await http.get(f"/api/rooms/{code}")).json()
        assert summary["options"]["spectators"] is False, "a private room starts closed to them"
        assert (await refused_spectator(server.endpoint, code))["code"] == "no_spectators"

        stranger = await http.patch(f"/api/rooms/{code}", json={"spectators": True})
        assert stranger.status_code == 401, "only the host changes it"
        opened = await http.patch(
            f"/api/rooms/{code}", json={"spectators": True}, headers=bearer(host)
        )
        assert opened.status_code == 200 and opened.json()["options"]["spectators"] is True
        watcher = await connect_client(server.endpoint, code)
        assert (await watcher.wait_for("room"))["room"]["code"] == code
        await watcher.close()

        public = (await http.post("/api/rooms", json={"name": "Cy", "visibility": "public"})).json()
        summary = (await http.get(f"/api/rooms/{public['code']}")).json()
        assert summary["options"]["spectators"] is True, "a public room is open to watchers"

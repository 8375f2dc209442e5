"""A game played in a real room is stored by the database recorder and replays to its scores."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from app.db import repository
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.main import create_app
from app.rooms.recording import FinishedGame
from tests.app.conftest import base_settings
from tests.app.db.scratch_databases import KINDS, migrated_database, serve_sessions
from tests.app.live import bearer, connect_client, create_room, live_server, play_out

ANN, BOB = str(uuid.uuid4()), str(uuid.uuid4())


@pytest.fixture(scope="module")
def room_game() -> FinishedGame:
    """Two people and an Easy AI play a whole game over WebSockets; the room hands it over.

    Played once for the module, on an event loop of its own.
    """
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, play_in_a_room()).result()


async def play_in_a_room() -> FinishedGame:
    async with live_server(base_settings()) as live, live.http() as http:
        code, ann_token = await create_room(http, seats=3, rules="advanced", player_id=ANN)
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob", "player_id": BOB})
        assert joined.is_success, joined.text
        bob_seat, bob_token = joined.json()["seat"], joined.json()["token"]
        bot = await http.post(
            f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(ann_token)
        )
        assert bot.is_success, bot.text
        ann = await connect_client(live, code, ann_token)
        bob = await connect_client(live, code, bob_token)
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(ann_token))
        assert started.is_success, started.text
        await asyncio.gather(
            play_out(ann, 0, random.Random(1)), play_out(bob, bob_seat, random.Random(2))
        )
        game_id = (await http.get(f"/api/rooms/{code}")).json()["game"]["id"]
        game = await live.recorder.game(game_id)
        for client in (ann, bob):
            await client.close()
    return game


@pytest.fixture(params=KINDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path) as url:
        yield url


async def test_a_room_game_is_stored_rated_and_replayed(
    room_game: FinishedGame, database_url: str
) -> None:
    engine = create_engine(database_url)
    sessions = create_session_factory(engine)

    app = create_app(base_settings())
    serve_sessions(app, sessions)
    try:
        recorder = DatabaseRecorder(sessions)
        await recorder.record(room_game)
        await recorder.record(room_game)

        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        ):
            game = (await client.get(f"/api/games/{room_game.game_id}")).json()
            history = (await client.get(f"/api/players/{ANN}/games")).json()
            board = (await client.get("/api/leaderboard")).json()
    finally:
        await engine.dispose()

    assert game["replay_complete"] is True
    final = game["replay"][-1]["view"]
    assert final["over"] is True
    assert final["rounds"]["totals"] == room_game.totals == game["totals"]
    assert final["rounds"]["winners"] == room_game.winners == game["winners"]
    assert len(game["replay"]) == len(room_game.actions) + 1
    assert [seat["ai_level"] for seat in game["players"]] == [None, None, "easy"]
    assert game["players"][0]["player_id"] == repository.public_player_id(ANN)
    assert game["rated"] is True

    assert history["total"] == 1 and history["games"][0]["id"] == room_game.game_id
    assert {entry["player_id"] for entry in board["entries"]} == {
        repository.public_player_id(ANN),
        repository.public_player_id(BOB),
    }

"""Issue 22, probe 4: seat tokens never travel in a URL nor reach a log; nor do guest ids."""

from __future__ import annotations

import asyncio
import random
import uuid

from tests.app.live import bearer, connect_client, create_room, hello, play_out
from tests.security.conftest import Serve
from tests.security.ws_clients import closed_with, duel, raw_client


async def test_a_token_in_the_url_is_refused_and_never_logged(serve: Serve) -> None:
    server = serve()
    code, tokens = await duel(server.endpoint)
    for query in ("token={}", "%74oken={}", "TOKEN={}", "a=1&%2574oken={}"):
        client = await raw_client(server.endpoint, f"/ws/{code}?" + query.format(tokens[0]))
        close, errors = await closed_with(client)
        assert close == 1008, query
        assert [error["code"] for error in errors] == ["token_in_url"], query
    await asyncio.to_thread(server.stop)
    assert f"/ws/{code}?" in server.logged, "the refused connections left no request line"
    assert tokens[0] not in server.logged


async def test_a_seat_is_taken_by_its_hello(serve: Serve) -> None:
    server = serve()
    code, tokens = await duel(server.endpoint)
    client = await raw_client(server.endpoint, f"/ws/{code}")
    await client.send(hello(tokens[1]))
    state = await client.wait_for("state")
    assert state["view"]["seat"] == 1 and state["view"]["hand"]
    watcher = await raw_client(server.endpoint, f"/ws/{code}")
    await watcher.send(hello())
    watched = await watcher.wait_for("state")
    assert watched["view"]["hand"] == [] and watched["legal"] == []


async def test_no_hello_in_time_is_closed_by_policy(serve: Serve) -> None:
    server = serve(ws_hello_seconds="0.5")
    code, _ = await duel(server.endpoint)
    silent = await raw_client(server.endpoint, f"/ws/{code}")
    close, errors = await closed_with(silent)
    assert close == 1008 and [error["code"] for error in errors] == ["hello_timeout"]
    assert not [message for message in silent.received if message["type"] != "error"]


async def test_anything_but_a_hello_first_is_closed_by_policy(serve: Serve) -> None:
    server = serve()
    code, _ = await duel(server.endpoint)
    for first in (
        '{"type": "ping"}',
        '{"type": "hello", "token": 7}',
        '{"type": "hello", "token": "x", "seat": 0}',
        "not json",
    ):
        client = await raw_client(server.endpoint, f"/ws/{code}")
        await client.ws.send(first)
        close, errors = await closed_with(client)
        assert close == 1008, first
        assert [error["code"] for error in errors] == ["hello_expected"], first


async def test_a_whole_game_logs_no_token_and_no_guest_id(serve: Serve) -> None:
    server = serve(log_level="debug")
    guests = [str(uuid.uuid4()), str(uuid.uuid4())]
    async with server.endpoint.http() as http:
        code, host = await create_room(http, seats=2, player_id=guests[0])
        joined = await http.post(
            f"/api/rooms/{code}/join", json={"name": "Bob", "player_id": guests[1]}
        )
        tokens = [host, joined.json()["token"]]
        clients = [await connect_client(server.endpoint, code, token) for token in tokens]
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        for client in clients:
            await client.wait_for("state")
        await asyncio.gather(
            *(play_out(client, seat, random.Random(seat)) for seat, client in enumerate(clients))
        )
    # What a browser's pages ask with a guest id, and an old client's URL with a token.
    for guest in guests:
        async with server.endpoint.http() as http:  # a new connection: a 500 would end it
            await http.get(f"/api/players/{guest}/games")
    old = await raw_client(server.endpoint, f"/ws/{code}?token={tokens[1]}")
    await closed_with(old)
    for client in clients:
        await client.close()
    await asyncio.to_thread(server.stop)
    logged = server.logged
    assert f"room={code} seat=1 msg=connected" in logged, "the game was not logged"
    assert "/api/players/" in logged, "the guests' requests were not logged"
    for secret in [*tokens, *guests, *(guest.replace("-", "") for guest in guests)]:
        assert secret not in logged, "a secret reached the log"

"""Issue 22, probe 6 over the WebSocket: connections capped per address and per room, and a
chat storm that cannot starve the server. Each refusal: an ``error``, then close 1013."""

from __future__ import annotations

import asyncio
import time

from tests.app.live import Client, connect_client
from tests.security.conftest import Serve
from tests.security.ws_clients import closed_with, duel, healthz_seconds, raw_client, seated


async def refused_with(client: Client) -> str:
    close, errors = await closed_with(client)
    assert close == 1013
    assert len(errors) == 1
    code: str = errors[0]["code"]
    return code


async def test_connections_per_address_are_capped(serve: Serve) -> None:
    server = serve(ws_connections_per_address="3")
    code, tokens = await duel(server.endpoint)
    held = [await seated(server.endpoint, code, token) for token in [*tokens, None]]
    assert await refused_with(await connect_client(server.endpoint, code)) == (
        "too_many_connections"
    )
    await held.pop().close()
    # The closed connection's place is free again (once the server has seen it go).
    deadline = time.monotonic() + 10
    while True:
        again = await connect_client(server.endpoint, code)
        message = await again.recv()
        if message["type"] != "error":
            break
        assert message["code"] == "too_many_connections"
        assert time.monotonic() < deadline, "the closed connection's place never came back"
    for client in [*held, again]:
        await client.close()


async def test_spectators_per_room_are_capped_seats_never(serve: Serve) -> None:
    """Issue 30, point 2: the room cap counts watchers only; a seat's own connection (a
    second tab too) always gets in, however many watch."""
    server = serve(ws_connections_per_room="2")
    code, tokens = await duel(server.endpoint)
    held = [await seated(server.endpoint, code, None) for _ in range(2)]
    assert await refused_with(await connect_client(server.endpoint, code)) == "room_crowded"
    held += [await seated(server.endpoint, code, token) for token in [*tokens, tokens[0]]]
    other, _ = await duel(server.endpoint)
    elsewhere = await seated(server.endpoint, other, None)  # another room is not affected
    for client in [*held, elsewhere]:
        await client.close()


async def test_the_address_is_the_trusted_proxys_word_only(serve: Serve) -> None:
    """Behind the proxy (loopback is trusted here) each forwarded client has its own count;
    a client that is not the trusted proxy cannot name itself another address."""
    forwarded = {"additional_headers": {"X-Forwarded-For": "203.0.113.7"}}
    trusting = serve(ws_connections_per_address="1")
    code, _ = await duel(trusting.endpoint)
    first = await raw_client(trusting.endpoint, f"/ws/{code}")
    await first.send({"type": "hello"})
    await first.wait_for("state")
    proxied = await raw_client(trusting.endpoint, f"/ws/{code}", **forwarded)
    await proxied.send({"type": "hello"})
    await proxied.wait_for("state")
    distrusting = serve(ws_connections_per_address="1", forwarded_allow_ips="192.0.2.1")
    code, _ = await duel(distrusting.endpoint)
    first = await raw_client(distrusting.endpoint, f"/ws/{code}")
    await first.send({"type": "hello"})
    await first.wait_for("state")
    forged = await raw_client(distrusting.endpoint, f"/ws/{code}", **forwarded)
    assert await refused_with(forged) == "too_many_connections"


async def test_a_chat_storm_is_bounded_per_seat_and_per_room(serve: Serve) -> None:
    server = serve(
        chat_per_seat_per_minute="5",
        chat_per_room_per_minute="8",
        ws_connections_per_room="60",
        ws_connections_per_address="100",
        ws_burst="1000",
        ws_messages_per_address_burst="1000",
        ws_messages_per_address_per_second="1000",
    )
    code, tokens = await duel(server.endpoint)
    players = [await seated(server.endpoint, code, token) for token in tokens]
    watchers = [await seated(server.endpoint, code, None) for _ in range(50)]
    sent = 100
    for index in range(sent):
        for seat, player in enumerate(players):
            await player.send({"type": "chat", "text": f"{seat}: line {index}"})
    answers: list[str] = []
    for player in players:
        await player.send({"type": "ping"})
        await player.wait_for("pong")
        answers += [m["code"] for m in player.received if m["type"] == "error"]
    # Each seat's first five lines pass its own limit; the room carries eight of those ten.
    assert answers.count("chat_too_fast") == (sent - 5) * 2
    assert answers.count("chat_busy") == 2
    assert await healthz_seconds(server.endpoint) < 1.0
    watcher = watchers[-1]
    await watcher.send({"type": "ping"})
    await watcher.wait_for("pong")
    heard = [m for m in watcher.received if m["type"] == "chat"]
    assert len(heard) == 8
    await asyncio.gather(*(client.close() for client in [*players, *watchers]))

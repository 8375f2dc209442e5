"""The room keeps its last 100 chat lines, with the room and on both stores: every connection
gets them as one ``chat_history`` message after its first ``room`` and ``state``, so a reload,
a late joiner or a spectator sees what was said; chat works before the game starts."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import redis

from app.rooms import chat
from app.runtime import store_for
from app.store.base import Commit
from app.store.redis import RedisRoomStore
from tests.app.conftest import REDIS_URL, MakeSettings
from tests.app.live import WAIT, Client, bearer, connect_client, create_room, live_server


def line_message(seat: int, name: str, text: str, at: float) -> str:
    """A ``chat`` message's JSON text, as a connection sends it to the room."""
    return json.dumps({"type": "chat", "seat": seat, "name": name, "text": text, "at": at})


async def first_messages(client: Client) -> list[dict[str, Any]]:
    """What a connection gets up to and including its ``chat_history``, checked to open with
    the room's summary, then its states if a game is on (more than one if a move was made
    while it opened), then the history."""
    await client.wait_for("chat_history")
    types = [message["type"] for message in client.received]
    assert types[0] == "room" and types[-1] == "chat_history", types
    assert set(types[1:-1]) <= {"room", "state"}, types
    return client.received


def texts(history: dict[str, Any]) -> list[str]:
    return [line["text"] for line in history["lines"]]


async def test_chat_before_the_start_reaches_the_room_and_its_late_joiners(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=3)
        ann = await connect_client(live, code, host)
        opened = await first_messages(ann)
        assert "state" not in [m["type"] for m in opened]
        assert opened[-1]["lines"] == []
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        bob = await connect_client(live, code, guest["token"])
        await first_messages(bob)

        before = time.time()
        await ann.send({"type": "chat", "text": "Welcome, Bob"})
        said = await bob.wait_for("chat")
        assert (said["seat"], said["name"], said["text"]) == (0, "Ann", "Welcome, Bob")
        assert before <= said["at"] <= time.time()

        carol = (await http.post(f"/api/rooms/{code}/join", json={"name": "Carol"})).json()
        late = await connect_client(live, code, carol["token"])
        history = (await first_messages(late))[-1]
        assert history == {
            "type": "chat_history",
            "lines": [{"seat": 0, "name": "Ann", "text": "Welcome, Bob", "at": said["at"]}],
        }
        for client in (ann, bob, late):
            await client.close()


async def test_the_last_hundred_lines_are_kept_in_order_and_sent_after_a_reconnect(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=2)
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        store = live.runtime.service.store
        for number in range(104):
            assert await chat.say(store, code, line_message(0, "Ann", f"line {number}", number))
        ann = await connect_client(live, code, host)
        await first_messages(ann)
        await ann.send({"type": "chat", "text": "line 104"})
        await ann.wait_for("chat")
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        await ann.wait_for("state")
        await ann.close()

        again = await connect_client(live, code, host)
        opened = await first_messages(again)
        assert "state" in [m["type"] for m in opened]
        assert texts(opened[-1]) == [f"line {number}" for number in range(5, 105)]
        assert len(await store.chat_lines(code)) == chat.HISTORY_LINES
        await again.close()


async def test_a_spectator_gets_the_history_and_live_lines_but_cannot_chat(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        # A public room: its code lets anyone watch.
        code, host = await create_room(http, seats=2, visibility="public")
        ann = await connect_client(live, code, host)
        await first_messages(ann)
        await ann.send({"type": "chat", "text": "hello, watchers"})
        await ann.wait_for("chat")

        spectator = await connect_client(live, code)
        assert texts((await first_messages(spectator))[-1]) == ["hello, watchers"]
        await ann.send({"type": "chat", "text": "still here"})
        assert (await spectator.wait_for("chat"))["text"] == "still here"
        await spectator.send({"type": "chat", "text": "me too"})
        assert (await spectator.wait_for("error"))["code"] == "spectator"
        assert [line["text"] for line in await chat.history(live.runtime.service.store, code)] == [
            "hello, watchers",
            "still here",
        ]
        for client in (ann, spectator):
            await client.close()


async def test_the_history_expires_with_the_room(make_settings: MakeSettings) -> None:
    settings = make_settings()
    store = store_for(settings)
    await store.start()
    try:
        code = "CHATROOM"
        room = Commit(code=code, version=1, data="{}", wake_at=None, listing=None, ttl_seconds=60)
        assert not await store.chat(code, line_message(0, "Ann", "too early", 1.0), keep=100)
        assert await store.commit(room)
        assert await store.chat(code, line_message(0, "Ann", "kept", 2.0), keep=100)
        # The room's next commit gives it (and its history) a short time to live.
        assert await store.commit(
            Commit(code=code, version=2, data="{}", wake_at=None, listing=None, ttl_seconds=1)
        )
        assert len(await store.chat_lines(code)) == 1
        chat_key = f"{settings.redis_prefix}{{{code}}}:chat"
        if isinstance(store, RedisRoomStore):
            with redis.Redis.from_url(REDIS_URL) as client:
                assert client.exists(chat_key), "kept under the room's hash tag"
        deadline = time.monotonic() + WAIT
        while await store.load(code) is not None:
            assert time.monotonic() < deadline, "the room never expired"
            await asyncio.sleep(0.05)
        assert await store.chat_lines(code) == []
        if isinstance(store, RedisRoomStore):
            with redis.Redis.from_url(REDIS_URL) as client:
                assert not client.exists(chat_key)
        # A new room under the same code starts with no history.
        assert await store.commit(room)
        assert await store.chat_lines(code) == []
    finally:
        await store.close()

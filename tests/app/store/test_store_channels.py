"""The order of a room's events when its subscription is made again: the ``resync`` first,
then what the new subscription brings. On a node whose confirmation and first message come
in one read, a chat line heard ahead of the resync passed the lines said while the room was
not subscribed to, and the resync's catch-up (which sends the lines after the last one heard)
left them out: a CI run's slot move lost two chat lines that way."""

from __future__ import annotations

import asyncio
import collections
from typing import cast

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from app.resp.nodes import Address, Nodes
from app.store.base import StoreEvent
from app.store.channels import RoomChannels

CHANNEL = "room:ROOM"


class Subscription:
    """A subscribing connection to a node: what was sent on it, and pushes handed in by the
    test, several at a time as one read of the socket brings them."""

    def __init__(self, sent: asyncio.Event) -> None:
        self.sent: list[tuple[str, ...]] = []
        self._sent = sent
        self.usable = True
        self._pushes: collections.deque[list[str]] = collections.deque()
        self._arrived = asyncio.Event()

    def send(self, *args: str) -> None:
        self.sent.append(args)
        self._sent.set()

    def push(self, *pushes: list[str]) -> None:
        self._pushes.extend(pushes)
        self._arrived.set()

    async def next_push(self) -> list[str]:
        while not self._pushes:
            if not self.usable:
                raise RedisConnectionError("The connection is gone.")
            self._arrived.clear()
            await self._arrived.wait()
        return self._pushes.popleft()

    def close(self) -> None:
        self.usable = False
        self._arrived.set()

    def fail(self, error: Exception) -> None:
        self.close()


class OneNode:
    """A cluster of one primary, each subscribing connection to it kept for the test."""

    cluster = True

    def __init__(self) -> None:
        self.subscriptions: list[Subscription] = []
        self._sent = asyncio.Event()

    def address_of(self, key: str) -> Address:
        return ("127.0.0.1", 7000)

    async def subscriber(self, address: Address | None) -> Subscription:
        subscription = Subscription(self._sent)
        self.subscriptions.append(subscription)
        return subscription

    async def refresh_quietly(self) -> None:
        pass

    async def subscribed(self, times: int) -> None:
        """Until the room's channel has been asked for ``times`` times."""
        async with asyncio.timeout(5):
            while True:
                sent = [args for s in self.subscriptions for args in s.sent]
                if sent.count(("SSUBSCRIBE", CHANNEL)) >= times:
                    return
                self._sent.clear()
                await self._sent.wait()


@pytest.mark.parametrize("loss", ["slot moved", "connection lost"])
async def test_the_resync_comes_before_anything_the_new_subscription_brings(loss: str) -> None:
    nodes = OneNode()
    queue: asyncio.Queue[StoreEvent] = asyncio.Queue()
    channels = RoomChannels(
        cast(Nodes, nodes), channel_of=lambda code: f"room:{code}", queue=queue, deadline_seconds=5
    )
    try:
        watching = asyncio.create_task(channels.watch("ROOM"))
        await nodes.subscribed(1)
        nodes.subscriptions[0].push(["ssubscribe", CHANNEL, "1"])
        await watching
        if loss == "slot moved":
            nodes.subscriptions[0].push(["sunsubscribe", CHANNEL, "0"])
        else:
            nodes.subscriptions[0].close()
        await nodes.subscribed(2)
        nodes.subscriptions[-1].push(
            ["ssubscribe", CHANNEL, "1"], ["smessage", CHANNEL, 'message\nROOM\n{"text": "hi"}']
        )
        events = [await asyncio.wait_for(queue.get(), 5) for _ in range(2)]
        assert events == [
            StoreEvent("resync", "ROOM"),
            StoreEvent("message", "ROOM", '{"text": "hi"}'),
        ]
        await asyncio.sleep(0.05)
        assert queue.empty(), "one resync, once"
    finally:
        channels.close()

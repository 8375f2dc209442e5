"""This process's subscriptions: one channel per room, held while the process serves the room.

A process hears only about the rooms its own connections are in. On a Redis Cluster a room's
channel is a shard channel (``SSUBSCRIBE``) on the primary serving the room's slot, so a
commit's announcement never leaves that shard; on one Redis node it is a plain channel. Each
node has one subscribing connection here, its replies and messages read by one task.

A subscription can end without being asked to: the node fails or restarts, or (on a cluster)
the room's slot moves to another primary and the node says ``sunsubscribe``. The room is then
subscribed to again where it now lives, and a ``resync`` event has its connections read it
from the store: commits announced meanwhile were not heard. The event is queued as the new
subscription is confirmed, before anything heard on it: a chat line heard live ahead of the
resync would pass the lines said meanwhile, which the resync's catch-up sends.

It stands in for redis-py's ``PubSub`` and ``ClusterPubSub.ssubscribe``, measured against them:
per announcement heard redis-py cost 1.4-1.5 times this on one node and on a cluster
(``bench/redis_client.py``, ``docs/performance.md``), and it does not say when a subscription is
confirmed nor when one was lost and made again, which ``watch`` and the ``resync`` events
promise."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from app.resp.connection import RespConnection
from app.resp.nodes import Address, Nodes
from app.store.base import StoreEvent

logger = logging.getLogger(__name__)

_QUIET_SECONDS = 15.0
"""After this long without a message on a subscription, the node is asked for a PING."""
_AGAIN_PAUSES = (0.05, 0.2, 0.5, 1.0, 2.0, 5.0)
"""Pauses between attempts to subscribe to a room's channel again after losing it."""


class _Subscriber:
    """One node's subscribing connection and what it is subscribed to."""

    def __init__(self, address: Address | None, connection: RespConnection) -> None:
        self.address = address
        self.connection = connection
        self.confirmed: set[str] = set()
        self.pending: dict[str, asyncio.Future[None]] = {}
        """Channels asked for and not yet confirmed, each with what waits for it."""
        self.leaving: collections.Counter[str] = collections.Counter()
        """Unsubscriptions sent and not yet confirmed: any other is the node's own doing."""
        self.reader: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.connection.usable


class _Quiet:
    """Notices a node gone silent without closing the connection (a network partition): after
    ``_QUIET_SECONDS`` with nothing heard it asks for a PING, and a PING unanswered as long
    ends the connection. One timer, moved on only when it fires: a timeout set and cancelled
    around each message heard cost a tenth of the client's CPU per announcement."""

    def __init__(self, connection: RespConnection) -> None:
        self._connection = connection
        self._loop = asyncio.get_running_loop()
        self._heard_at = self._loop.time()
        self._asked_at: float | None = None
        """When a PING was sent that nothing has been heard since."""
        self._timer = self._loop.call_at(self._heard_at + _QUIET_SECONDS, self._look)

    def heard(self) -> None:
        self._heard_at = self._loop.time()

    def _look(self) -> None:
        if not self._connection.usable:
            return
        now = self._loop.time()
        asked_at = self._asked_at
        if asked_at is not None and self._heard_at < asked_at:
            if now >= asked_at + _QUIET_SECONDS:
                self._connection.fail(RedisConnectionError("The node did not answer a PING."))
                return
            self._timer = self._loop.call_at(asked_at + _QUIET_SECONDS, self._look)
            return
        self._asked_at = None
        if now >= self._heard_at + _QUIET_SECONDS:
            self._connection.send("PING")
            self._asked_at = now
            self._timer = self._loop.call_at(now + _QUIET_SECONDS, self._look)
        else:
            self._timer = self._loop.call_at(self._heard_at + _QUIET_SECONDS, self._look)

    def stop(self) -> None:
        self._timer.cancel()


def parse_event(text: str) -> StoreEvent | None:
    """A message on a room's channel: ``commit\\n<code>\\n<version>`` or
    ``message\\n<code>\\n<JSON>``; None for anything else."""
    kind, _, rest = text.partition("\n")
    code, _, data = rest.partition("\n")
    if kind == "commit":
        return StoreEvent("commit", code, version=int(data) if data.isdigit() else 0)
    if kind == "message":
        return StoreEvent("message", code, data)
    return None


class RoomChannels:
    """Subscribes to rooms' channels on the nodes that serve them; events go to ``queue``."""

    def __init__(
        self,
        nodes: Nodes,
        *,
        channel_of: Callable[[str], str],
        queue: asyncio.Queue[StoreEvent],
        deadline_seconds: float,
    ) -> None:
        self._nodes = nodes
        self._channel_of = channel_of
        self._queue = queue
        self._deadline_seconds = deadline_seconds
        self._sharded = nodes.cluster
        self._subscribers: dict[Address | None, _Subscriber] = {}
        self._connecting: dict[Address | None, asyncio.Lock] = {}
        self._wanted: dict[str, str] = {}
        """Room code → its channel, for every room this process serves."""
        self._code_of: dict[str, str] = {}
        """The other way round."""
        self._where: dict[str, _Subscriber] = {}
        """Room code → the subscriber its channel was asked of."""
        self._again: dict[str, asyncio.Task[None]] = {}
        self._resync_due: set[str] = set()
        """Channels lost and being subscribed to again: their room's ``resync`` is queued as
        the node confirms the new subscription (``_resync_if_due``)."""

    async def watch(self, code: str) -> None:
        """Subscribe to the room's channel; returns once the node has confirmed it, so that
        every commit after this is heard (read the room after it, not before)."""
        channel = self._wanted.setdefault(code, self._channel_of(code))
        self._code_of[channel] = code
        deadline = time.monotonic() + self._deadline_seconds
        attempt = 0
        while True:
            subscriber: _Subscriber | None = None
            try:
                subscriber = self._where.get(code)
                if subscriber is None or not subscriber.alive:
                    subscriber = await self._subscriber(self._nodes.address_of(channel))
                    self._where[code] = subscriber
                if channel in subscriber.confirmed:
                    return
                waiting = subscriber.pending.get(channel)
                if waiting is None:
                    waiting = asyncio.get_running_loop().create_future()
                    subscriber.pending[channel] = waiting
                    subscriber.connection.send(
                        "SSUBSCRIBE" if self._sharded else "SUBSCRIBE", channel
                    )
                remaining = max(0.01, deadline - time.monotonic())
                async with asyncio.timeout(remaining):
                    await asyncio.shield(waiting)
                return
            except (RedisError, OSError) as error:
                if subscriber is not None and self._where.get(code) is subscriber:
                    del self._where[code]
                if time.monotonic() >= deadline or code not in self._wanted:
                    raise
                logger.info("room events: subscribing again (%s)", error, extra={"room": code})
                await asyncio.sleep(_AGAIN_PAUSES[min(attempt, len(_AGAIN_PAUSES) - 1)])
                attempt += 1
                await self._nodes.refresh_quietly()

    def unwatch(self, code: str) -> None:
        """Stop hearing about the room (its last connection here has gone)."""
        channel = self._wanted.pop(code, None)
        if channel is not None:
            del self._code_of[channel]
            self._resync_due.discard(channel)
        subscriber = self._where.pop(code, None)
        if channel is None or subscriber is None or not subscriber.alive:
            return
        if channel in subscriber.confirmed or channel in subscriber.pending:
            subscriber.confirmed.discard(channel)
            subscriber.leaving[channel] += 1
            subscriber.connection.send("SUNSUBSCRIBE" if self._sharded else "UNSUBSCRIBE", channel)

    def close(self) -> None:
        for task in self._again.values():
            task.cancel()
        for subscriber in self._subscribers.values():
            if subscriber.reader is not None:
                subscriber.reader.cancel()
            subscriber.connection.close()
        self._subscribers.clear()

    async def _subscriber(self, address: Address | None) -> _Subscriber:
        subscriber = self._subscribers.get(address)
        if subscriber is not None and subscriber.alive:
            return subscriber
        async with self._connecting.setdefault(address, asyncio.Lock()):
            subscriber = self._subscribers.get(address)
            if subscriber is None or not subscriber.alive:
                subscriber = _Subscriber(address, await self._nodes.subscriber(address))
                subscriber.reader = asyncio.create_task(self._read(subscriber))
                self._subscribers[address] = subscriber
            return subscriber

    async def _read(self, subscriber: _Subscriber) -> None:
        """Hand the node's messages out and settle its confirmations, until it goes."""
        quiet = _Quiet(subscriber.connection)
        try:
            while True:
                push = await subscriber.connection.next_push()
                quiet.heard()
                if isinstance(push, hiredis.ReplyError):
                    # A refused subscription (its slot moved meanwhile): whoever waits asks
                    # again where the slot now is.
                    for waiting in subscriber.pending.values():
                        if not waiting.done():
                            waiting.set_exception(ResponseError(str(push)))
                    subscriber.pending.clear()
                    continue
                if not isinstance(push, list) or len(push) < 3:
                    continue
                kind, channel = str(push[0]), str(push[1])
                if kind in ("smessage", "message"):
                    event = parse_event(str(push[2]))
                    if event is not None:
                        self._queue.put_nowait(event)
                elif kind in ("ssubscribe", "subscribe"):
                    subscriber.confirmed.add(channel)
                    self._resync_if_due(channel)
                    confirmed = subscriber.pending.pop(channel, None)
                    if confirmed is not None and not confirmed.done():
                        confirmed.set_result(None)
                elif kind in ("sunsubscribe", "unsubscribe"):
                    if subscriber.leaving[channel] > 0:
                        subscriber.leaving[channel] -= 1
                        if not subscriber.leaving[channel]:
                            del subscriber.leaving[channel]
                    else:
                        # The node's own doing: the slot has moved to another primary.
                        subscriber.confirmed.discard(channel)
                        self._lost(subscriber, channel)
        except (RedisError, OSError) as error:
            logger.warning("room events: a subscription was lost (%s)", error)
        finally:
            quiet.stop()
            subscriber.connection.close()
            if self._subscribers.get(subscriber.address) is subscriber:
                del self._subscribers[subscriber.address]
            lost = ConnectionError("The subscription was lost.")
            for waiting in subscriber.pending.values():
                if not waiting.done():
                    waiting.set_exception(lost)
            subscriber.pending.clear()
            for channel in subscriber.confirmed:
                self._lost(subscriber, channel)

    def _lost(self, subscriber: _Subscriber, channel: str) -> None:
        """A channel this process still needs is no longer subscribed to: subscribe again and
        have the room read once it is."""
        code = self._code_of.get(channel)
        if code is None:
            return
        self._resync_due.add(channel)
        if self._where.get(code) is subscriber:
            del self._where[code]
        if code not in self._again:
            task = asyncio.create_task(self._subscribe_again(code))
            self._again[code] = task
            task.add_done_callback(lambda _: self._again.pop(code, None))

    async def _subscribe_again(self, code: str) -> None:
        attempt = 0
        while code in self._wanted:
            try:
                await self.watch(code)
            except (RedisError, OSError) as error:
                pause = _AGAIN_PAUSES[min(attempt, len(_AGAIN_PAUSES) - 1)]
                logger.warning(
                    "room events: not subscribed again (%s); retrying in %ss",
                    error,
                    pause,
                    extra={"room": code},
                )
                attempt += 1
                await asyncio.sleep(pause)
                continue
            logger.info("room events: subscribed again", extra={"room": code})
            channel = self._wanted.get(code)
            if channel is not None:
                self._resync_if_due(channel)  # confirmed without a confirmation read here
            return

    def _resync_if_due(self, channel: str) -> None:
        """Queue the ``resync`` of a lost channel's room now that it is subscribed again: in
        the reader, as the node's confirmation is read, so that the event comes before any
        message the new subscription brings (the reader goes on reading before a task
        waiting for the confirmation runs)."""
        if channel in self._resync_due:
            self._resync_due.discard(channel)
            code = self._code_of.get(channel)
            if code is not None:
                self._queue.put_nowait(StoreEvent("resync", code))

"""Commands routed to the Redis node that holds their key: one node, or a Redis Cluster.

Every command the store sends names one key (or several in one slot, under one hash tag), so
it goes to the primary serving that key's slot. On one Redis node that is always the node. On a
cluster the slot map comes from ``CLUSTER SLOTS`` and is read again when a node answers
``MOVED`` (the slot has moved), when a node cannot be reached (it may have failed over), or when
the cluster says it is down or busy. A command refused with ``MOVED``, ``ASK``, ``TRYAGAIN``,
``CLUSTERDOWN``, ``LOADING`` or ``READONLY`` was not run, so it is always sent again. A command
whose answer was lost (the connection broke or timed out after it was sent) may or may not have
run: it is sent again only when the caller says that is safe (``retry``); otherwise the caller
gets the error and finds out itself (a commit reads the room back, ``app/store/redis.py``).

Each node has one pipelined connection (``app/resp/connection.py``) that every command to it
shares: Redis answers in order, so rooms do not wait for each other.

It stands in for ``redis.asyncio.cluster.RedisCluster`` (why: ``app/resp/__init__.py``). It
keeps what a commit needs and RedisCluster's retries do not give: a script and its ``WAIT`` on
one connection, knowing that a script ran on a node importing its slot (after ``ASK``,
``calls_asked``), and a command whose answer was lost never sent again unless the caller says
so."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time
from collections.abc import Mapping, Sequence
from importlib.resources.abc import Traversable
from typing import Any

import hiredis
from redis.asyncio.connection import parse_url
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from app.resp.connection import RespConnection, checked, connect

logger = logging.getLogger(__name__)

Address = tuple[str, int]

SLOTS = 16384
_BUSY_PAUSES = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
"""Pauses between attempts while a slot moves, a replica takes over or a node loads."""
_REFUSED_RETRY = ("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN", "LOADING", "READONLY", "MASTERDOWN")
"""Refusals that say the command did not run: it is always safe to send it again."""


class Script:
    """A Lua script sent by its SHA1, and as itself to a node that does not know it yet (a
    node restarted, or a replica that has just taken over).

    ``keys`` and ``args`` name its ``KEYS`` and ``ARGV`` in order (a name ending in ``...``
    takes the rest of the arguments, a list); ``bound`` puts a caller's named values in that
    order, so a call site names what it passes and cannot pass it in the wrong place."""

    def __init__(self, text: str, *, keys: Sequence[str] = (), args: Sequence[str] = ()) -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()
        self.keys = tuple(keys)
        self.args = tuple(args)

    @classmethod
    def from_files(cls, *paths: Traversable) -> Script:
        """The script made of the Lua files ``paths``, in order: functions it calls, then
        the script itself, whose header names its keys and arguments (``-- KEYS: room chat``,
        ``-- ARGV: version data``)."""
        texts = [path.read_text(encoding="utf-8") for path in paths]
        names: dict[str, tuple[str, ...]] = {"KEYS": (), "ARGV": ()}
        for line in texts[-1].splitlines():
            if not line.startswith("--"):
                break
            word, _, rest = line.removeprefix("--").strip().partition(":")
            if word in names:
                names[word] = tuple(rest.split())
        return cls("".join(texts), keys=names["KEYS"], args=names["ARGV"])

    def bound(
        self, keys: Mapping[str, str], args: Mapping[str, Any]
    ) -> tuple[list[str], list[str | int]]:
        """``KEYS`` and ``ARGV`` from values named as the script's header names them."""
        if tuple(keys) != self.keys or tuple(args) != self.args:
            raise ValueError(
                f"script {self.sha[:8]} takes KEYS {self.keys} and ARGV {self.args}, "
                f"not {tuple(keys)} and {tuple(args)}"
            )
        values: list[str | int] = []
        for name, value in args.items():
            if name.endswith("..."):
                values.extend(value)
            else:
                values.append(value)
        return list(keys.values()), values


class Nodes:
    """The primaries of one Redis (``cluster=False``) or of a Redis Cluster, by slot."""

    def __init__(
        self, url: str, *, cluster: bool, name: str, reply_seconds: float, deadline_seconds: float
    ) -> None:
        self._url = url
        self.cluster = cluster
        self._name = name
        self._reply_seconds = reply_seconds
        self._deadline_seconds = deadline_seconds
        self._answered: Address | None = None
        self._seeds: list[Address | None] = [None]
        """Where to ask for the slot map: the URL's node (None), then every node seen."""
        self._by_slot: list[Address | None] = [None] * SLOTS
        """The primary serving each slot; None: the URL's node (one Redis, or not yet known)."""
        self._connections: dict[tuple[Address | None, int], RespConnection] = {}
        self._connecting: dict[tuple[Address | None, int], asyncio.Lock] = {}
        self._refreshing: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.cluster:
            await self.refresh()
        else:
            checked(await self.call("", "PING", retry=True))

    def close(self) -> None:
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()
        if self._refreshing is not None:
            self._refreshing.cancel()

    # Where a key lives

    def slot_of(self, key: str) -> int:
        return key_slot(key.encode()) if self.cluster else 0

    def address_of(self, key: str) -> Address | None:
        return self._by_slot[self.slot_of(key)]

    async def refresh(self) -> None:
        """Read the slot map again from the first node that answers (one read at a time: many
        commands may find the map stale at once)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())
        await asyncio.shield(self._refreshing)

    async def _refresh(self) -> None:
        last: Exception | None = None
        # The node that answered last time first: a dead one may take a while to refuse.
        for seed in list(dict.fromkeys([self._answered, *self._seeds])):
            try:
                connection = await self.connection(seed)
                slots = checked(await connection.call("CLUSTER", "SLOTS"))
            except (RedisError, OSError) as error:
                last = error
                continue
            seed_host = self._host_of(seed)
            by_slot: list[Address | None] = [None] * SLOTS
            for first, final, primary, *_ in slots:
                host = str(primary[0]) or seed_host
                address = (host, int(primary[1]))
                by_slot[first : final + 1] = [address] * (final - first + 1)
                if address not in self._seeds:
                    self._seeds.append(address)
            self._by_slot = by_slot
            self._answered = seed
            return
        raise RedisConnectionError(f"No Redis Cluster node answered ({last}).")

    def _host_of(self, address: Address | None) -> str:
        if address is not None:
            return address[0]
        return str(parse_url(self._url).get("host", "localhost"))

    # Connections

    async def connection(self, address: Address | None, lane: int = 0) -> RespConnection:
        """The node's shared connection (``lane`` 0), or another of its own for commands that
        block the connection they are sent on (``WAIT``); made if need be."""
        key = (address, lane)
        connection = self._connections.get(key)
        if connection is not None and connection.usable:
            return connection
        async with self._connecting.setdefault(key, asyncio.Lock()):
            connection = self._connections.get(key)
            if connection is None or not connection.usable:
                connection = await connect(
                    self._url, name=self._name, reply_seconds=self._reply_seconds, address=address
                )
                self._connections[key] = connection
            return connection

    async def subscriber(self, address: Address | None) -> RespConnection:
        """A new connection to the node for a subscription (its replies come as pushes)."""
        return await connect(self._url, name=self._name, address=address)

    # Commands

    async def call(self, key: str, *args: str | int, retry: bool) -> Any:
        """Send a command about ``key`` to the primary serving it; its reply (an error reply
        raised as ``ResponseError``). ``retry``: the command may be sent again when its
        answer was lost, because running it twice does no harm."""
        return (await self.calls(key, [args], retry=retry))[-1]

    async def calls(
        self, key: str, commands: Sequence[Sequence[str | int]], *, retry: bool, lane: int = 0
    ) -> list[Any]:
        """Several commands about keys in ``key``'s slot, sent together on one connection
        (``WAIT`` after a write must follow it on its connection); their replies."""
        replies, _ = await self.calls_asked(key, commands, retry=retry, lane=lane)
        return replies

    async def calls_asked(
        self, key: str, commands: Sequence[Sequence[str | int]], *, retry: bool, lane: int = 0
    ) -> tuple[list[Any], bool]:
        """``calls``, and whether they ran on a node that is importing the slot (sent after
        ``ASK``): there, a script's ``SPUBLISH`` reaches nobody, since subscribers stay with
        the slot's owner until the move ends."""
        deadline = time.monotonic() + self._deadline_seconds
        asking = False
        address = self.address_of(key)
        for attempt in range(1_000_000):
            try:
                connection = await self.connection(address, lane)
                futures = []
                for command in commands:
                    if asking:  # good for the next command only
                        futures.append(connection.call("ASKING"))
                    futures.append(connection.call(*command))
                # One command (a commit, a read) awaits its own future: gathering one cost
                # a task's worth of callbacks per commit.
                replies = (
                    [await futures[0]] if len(futures) == 1 else await asyncio.gather(*futures)
                )
                if asking:
                    replies = replies[1::2]
            except (RedisConnectionError, OSError) as error:
                if not retry or time.monotonic() >= deadline:
                    await self.refresh_quietly()
                    raise
                logger.info("redis: %s unreachable (%s); trying again", address, error)
                await self._pause(attempt, deadline)
                await self.refresh_quietly()
                address, asking = self.address_of(key), False
                continue
            refusal = next(
                (r for r in replies if isinstance(r, hiredis.ReplyError) and _refused(r)), None
            )
            if refusal is None:
                return [checked(reply) for reply in replies], asking
            word, *rest = str(refusal).split()
            if time.monotonic() >= deadline:
                raise ResponseError(str(refusal))
            asking = False
            if word in ("MOVED", "ASK"):
                slot, where = int(rest[0]), rest[1]
                host, _, port = where.rpartition(":")
                moved_to = (host or self._host_of(address), int(port))
                if word == "MOVED":
                    self._by_slot[slot] = moved_to
                    self._refresh_soon()
                else:
                    asking = True
                address = moved_to
            else:
                await self._pause(attempt, deadline)
                await self.refresh_quietly()
                address = self.address_of(key)
        raise AssertionError("unreachable")

    async def run(
        self, script: Script, keys: Mapping[str, str], args: Mapping[str, Any], *, retry: bool
    ) -> Any:
        """Run ``script`` with its keys and arguments named (``Script.bound``)."""
        return await self.eval(script, *script.bound(keys, args), retry=retry)

    async def eval(
        self, script: Script, keys: Sequence[str], args: Sequence[str | int], *, retry: bool
    ) -> Any:
        """Run ``script`` on the node holding ``keys`` (one slot)."""
        call = ("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return await self.call(keys[0], *call, retry=retry)
        except ResponseError as error:
            if not str(error).startswith("NOSCRIPT"):
                raise
        return await self.call(keys[0], "EVAL", script.text, len(keys), *keys, *args, retry=retry)

    async def _pause(self, attempt: int, deadline: float) -> None:
        pause = _BUSY_PAUSES[min(attempt, len(_BUSY_PAUSES) - 1)]
        pause = min(pause * (0.5 + random.random()), max(0.0, deadline - time.monotonic()))
        await asyncio.sleep(pause)

    async def refresh_quietly(self) -> None:
        if not self.cluster:
            return
        try:
            await self.refresh()
        except (RedisError, OSError) as error:
            logger.warning("redis: the slot map could not be read (%s)", error)

    def _refresh_soon(self) -> None:
        """After a ``MOVED``: the one slot is fixed at once; the rest of the map is read in the
        background (a resharding moves many slots)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._refresh())
            self._refreshing.add_done_callback(_quiet)


def _refused(reply: hiredis.ReplyError) -> bool:
    return str(reply).split(" ", 1)[0] in _REFUSED_RETRY


def _quiet(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("redis: the slot map could not be read (%s)", task.exception())

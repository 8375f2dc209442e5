"""Rooms in Redis, shared by every server process; commits go through one Lua script."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator

import hiredis
from redis import asyncio as aioredis
from redis.exceptions import RedisError

from app.store.base import Commit, StoreEvent
from app.store.resp import RespConnection, checked, connect

logger = logging.getLogger(__name__)

# KEYS: room hash, wake zset, listed zset, listings hash, waiting zset.
# ARGV: expected version, new version, data, ttl seconds (0: keep), wake at ('' : none),
#       listing ('' : not listed), channel, code, the committing process's own channel,
#       when the room expires (the score of the listed and waiting indexes), waiting ('1'/'0').
#
# The announcement is left out when the only subscriber to the channel is the committing
# process's own subscription (the one connection subscribed to its own channel too): that
# process has the commit already, and reading its echo back cost it a read and a parse per
# move. Decided inside the script, so a process that subscribes at any moment either is
# counted or subscribed after the commit (and reads the room after subscribing).
_COMMIT = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'data', ARGV[3])
if tonumber(ARGV[4]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
else
  redis.call('PERSIST', KEYS[1])
end
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[2], ARGV[8])
else
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[8])
end
if ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[10], ARGV[8])
  redis.call('HSET', KEYS[4], ARGV[8], ARGV[6])
elseif redis.call('ZREM', KEYS[3], ARGV[8]) == 1 then
  redis.call('HDEL', KEYS[4], ARGV[8])
end
if ARGV[11] == '1' then
  redis.call('ZADD', KEYS[5], ARGV[10], ARGV[8])
else
  redis.call('ZREM', KEYS[5], ARGV[8])
end
local counts = redis.call('PUBSUB', 'NUMSUB', ARGV[7], ARGV[9])
if counts[2] ~= 1 or counts[4] ~= 1 then
  redis.call('PUBLISH', ARGV[7], 'commit\\n' .. ARGV[8] .. '\\n' .. ARGV[2])
end
return 1
"""

# KEYS: listed zset, listings hash. ARGV: now, offset, limit.
# Entries of rooms that expired meanwhile (their score is when) are dropped first.
_LISTED = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, code in ipairs(gone) do
  redis.call('HDEL', KEYS[2], code)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local total = redis.call('ZCARD', KEYS[1])
local first = tonumber(ARGV[2])
local codes = redis.call('ZREVRANGE', KEYS[1], first, first + tonumber(ARGV[3]) - 1)
if #codes == 0 then
  return {total}
end
local page = redis.call('HMGET', KEYS[2], unpack(codes))
table.insert(page, 1, total)
return page
"""

# KEYS: waiting zset. ARGV: now.
_WAITING = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""

_HIT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count
"""

_RESUBSCRIBE_DELAYS = (0.1, 0.5, 1.0, 2.0, 5.0)
_POOL_SIZE = 64
_POOL_WAIT_SECONDS = 10.0
_COMMAND_SECONDS = _POOL_WAIT_SECONDS + 5.0
"""The longest any one call to Redis may take: a wait for a pooled connection (or, for a
commit, for its own connection to be made), then redis-py's default socket timeout."""


def _name_of(prefix: str) -> str:
    """The name of every connection a store makes, after its prefix: an operator can tell
    each deployment's connections apart."""
    return prefix.strip(":") or "cash_stash"


class RedisRoomStore:
    """One hash per room (``v`` and ``data``), a wake sorted set, the public list (a sorted set
    by expiry and a hash of listings), a sorted set of waiting rooms, one channel."""

    def __init__(self, url: str, *, prefix: str = "cash_stash:") -> None:
        # A burst (thousands of sockets arriving at once) waits for a pooled connection rather
        # than failing with "too many connections".
        #
        # No socket timeout: redis-py would run every command's write as a task of its own
        # to time it (a twentieth of a move's cost). Each call below is bounded as a whole
        # instead; a command cut short closes its connection rather than reuse it.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            decode_responses=True,
            client_name=_name_of(prefix),
            max_connections=_POOL_SIZE,
            timeout=_POOL_WAIT_SECONDS,
            socket_timeout=None,
            socket_connect_timeout=5.0,
        )
        self._redis = aioredis.Redis(connection_pool=pool)
        self._prefix = prefix
        self.channel = f"{prefix}events"
        self._own_channel = f"{prefix}process:{uuid.uuid4().hex}"
        """Subscribed to with ``channel`` on the same connection: see ``_COMMIT``."""
        self._wake_key = f"{prefix}wake"
        # Not the old ``listed`` set's name: a sorted set there would fail on a set left over.
        self._listed_key = f"{prefix}public_rooms"
        self._listings_key = f"{prefix}public_listings"
        self._waiting_key = f"{prefix}waiting"
        self._url = url
        self._name = _name_of(prefix)
        self._commit_sha = self._redis.register_script(_COMMIT).sha
        self._hit = self._redis.register_script(_HIT)
        self._listed = self._redis.register_script(_LISTED)
        self._waiting = self._redis.register_script(_WAITING)
        # Commits are the hot path (one per move): they share one connection of their own
        # (``app/store/resp.py``), each commit a write and a future, many in flight at once.
        self._commits: RespConnection | None = None
        self._connecting = asyncio.Lock()

    def _room_key(self, code: str) -> str:
        return f"{self._prefix}room:{code}"

    async def start(self) -> None:
        async with asyncio.timeout(_COMMAND_SECONDS):
            await self._redis.ping()

    async def close(self) -> None:
        if self._commits is not None:
            self._commits.close()
        await self._redis.aclose()

    async def _new_commit_connection(self) -> RespConnection:
        """A usable commit connection, made if need be (one at a time: many commits may find
        the last one gone at once)."""
        async with self._connecting:
            if self._commits is None or not self._commits.usable:
                self._commits = await connect(
                    self._url, name=self._name, reply_seconds=_COMMAND_SECONDS
                )
            return self._commits

    async def load(self, code: str) -> str | None:
        async with asyncio.timeout(_COMMAND_SECONDS):
            data = await self._redis.hget(self._room_key(code), "data")
        return None if data is None else str(data)

    async def commit(self, commit: Commit) -> bool:
        expires_at = (
            "+inf" if commit.ttl_seconds is None else repr(time.time() + commit.ttl_seconds)
        )
        keys_and_args = (
            5,
            self._room_key(commit.code),
            self._wake_key,
            self._listed_key,
            self._listings_key,
            self._waiting_key,
            str(commit.version - 1),
            str(commit.version),
            commit.data,
            str(commit.ttl_seconds or 0),
            "" if commit.wake_at is None else repr(commit.wake_at),
            commit.listing or "",
            self.channel,
            commit.code,
            self._own_channel,
            expires_at,
            "1" if commit.waiting else "0",
        )
        connection = self._commits
        if connection is None or not connection.usable:
            async with asyncio.timeout(_COMMAND_SECONDS):
                connection = await self._new_commit_connection()
        # Bounded by the connection itself: a reply later than ``_COMMAND_SECONDS`` fails
        # with ``TimeoutError`` whatever else waits on the connection, and closes it.
        written = await connection.call("EVALSHA", self._commit_sha, *keys_and_args)
        if isinstance(written, hiredis.ReplyError) and str(written).startswith("NOSCRIPT"):
            # Redis restarted since: send the script itself.
            written = await connection.call("EVAL", _COMMIT, *keys_and_args)
        return bool(checked(written))

    async def publish(self, code: str, message: str) -> None:
        async with asyncio.timeout(_COMMAND_SECONDS):
            await self._redis.publish(self.channel, f"message\n{code}\n{message}")

    async def events(self) -> AsyncIterator[StoreEvent]:
        failures = 0
        while True:
            subscription: RespConnection | None = None
            try:
                async with asyncio.timeout(_COMMAND_SECONDS):
                    subscription = await connect(self._url, name=self._name)
                    # Once Redis confirms, nothing published is missed.
                    checked(await subscription.call("SUBSCRIBE", self.channel, self._own_channel))
                if failures:
                    logger.info("room events: subscribed again")
                    yield StoreEvent("resync")
                failures = 0
                while True:
                    kind_of_push, _, text = await subscription.next_push()
                    if kind_of_push != "message":
                        continue
                    kind, code, data = str(text).split("\n", 2)
                    if kind == "commit":
                        # Not a number: a process of an older release published the room
                        # itself; version 0 has the room read from the store.
                        version = int(data) if data.isascii() and data.isdigit() else 0
                        yield StoreEvent("commit", code, version=version)
                    else:
                        yield StoreEvent("message", code, data)
            except (RedisError, OSError) as error:
                delay = _RESUBSCRIBE_DELAYS[min(failures, len(_RESUBSCRIBE_DELAYS) - 1)]
                failures += 1
                logger.warning("room events: subscription lost (%s); retrying in %ss", error, delay)
                await asyncio.sleep(delay)
            finally:
                if subscription is not None:
                    subscription.close()

    async def due(self, now: float) -> list[str]:
        async with asyncio.timeout(_COMMAND_SECONDS):
            codes = await self._redis.zrangebyscore(self._wake_key, "-inf", now)
        return [str(code) for code in codes]

    async def next_wake(self) -> float | None:
        async with asyncio.timeout(_COMMAND_SECONDS):
            first = await self._redis.zrange(self._wake_key, 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    async def forget(self, code: str) -> None:
        async with asyncio.timeout(_COMMAND_SECONDS):
            if not await self._redis.exists(self._room_key(code)):
                await self._redis.zrem(self._wake_key, code)
                await self._redis.zrem(self._listed_key, code)
                await self._redis.hdel(self._listings_key, code)
                await self._redis.zrem(self._waiting_key, code)

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        async with asyncio.timeout(_COMMAND_SECONDS):
            reply = await self._listed(
                keys=[self._listed_key, self._listings_key], args=[time.time(), offset, limit]
            )
        total, *page = reply
        return [str(listing) for listing in page if listing is not None], int(total)

    async def waiting_rooms(self) -> int:
        async with asyncio.timeout(_COMMAND_SECONDS):
            return int(await self._waiting(keys=[self._waiting_key], args=[time.time()]))

    async def claim(self, key: str, seconds: float) -> bool:
        async with asyncio.timeout(_COMMAND_SECONDS):
            claimed = await self._redis.set(
                f"{self._prefix}claim:{key}", "1", nx=True, px=max(1, int(seconds * 1000))
            )
        return bool(claimed)

    async def hit(self, key: str, *, limit: int, window_seconds: int) -> bool:
        async with asyncio.timeout(_COMMAND_SECONDS):
            count = await self._hit(keys=[f"{self._prefix}hits:{key}"], args=[window_seconds])
        return int(count) <= limit

"""Rooms in Redis, shared by every server process: one Redis node or a Redis Cluster.

Every key of one room carries the room's code as its hash tag (``cash_stash:{CODE}:room``,
``…:chat``, and its channel ``…:events``), so a commit is one Lua script in one slot, and the
same script runs on one node or on a cluster. What spans rooms — the wake times, the public
list, the count of waiting rooms — is split into a fixed number of buckets, each under a tag of
its own (``cash_stash:{bucket-07}:wake``), that every process reads.

On one node a commit writes the room and its bucket's indexes in one script. On a cluster the
bucket lives on another shard, so its indexes are written by a second script right after the
commit, and each index entry carries the room version it was written for: a late write of an
older version never undoes a newer one. A wake time that comes earlier than the one indexed is
written to the index before the commit, so a process that dies between the two writes leaves
the room woken early (the scheduler then puts its true wake time back: ``settle_wake``), never
forgotten.

Announcements go to the room's own channel, inside the commit script: sharded pub/sub on a
cluster (``SPUBLISH``, which stays on the room's shard), a plain channel on one node. A process
subscribes only to the rooms it serves (``app/store/channels.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from app.resp.nodes import Nodes, Script
from app.store import snapshots
from app.store.base import STORE_ERRORS, Commit, StoredRoom, StoreEvent, wall_clock
from app.store.channels import RoomChannels

logger = logging.getLogger(__name__)

BUCKETS = 16
"""Wake and listing buckets. Every process reads all of them on each look for due rooms, so
few; enough that a cluster of a dozen shards shares the work. Changing it strands entries."""
SWEEP_SECONDS = 30.0
"""How often each process drops expired rooms' entries from every bucket's public list and
waiting set (``sweep``)."""

# A room's version, its snapshot or its next move, time to live and announcement. A room is
# one hash: ``v`` its version, ``s`` its snapshot's version, ``data`` the snapshot, and ``m<n>``
# the move that made version n, for each version since the snapshot (fields of the one key, not
# a list beside it: a script must find all its keys or none on a node while a slot moves). A
# move is added; a snapshot replaces the moves. A room stored before moves were appended has no
# ``s``: its data is the snapshot at its version. ``data`` is compressed (``snapshots.py``): no
# script reads into it.
_WRITE_ROOM = r"""
local function write_room(room, chat, expected, version, data, step, ttl, publish, channel,
                          code)
  local current = redis.call('HGET', room, 'v')
  if (current or '0') ~= expected then
    return 0
  end
  if step == '1' then
    redis.call('HSETNX', room, 's', expected)
    redis.call('HSET', room, 'v', version, 'm' .. version, data)
  else
    local moved = {}
    for n = tonumber(redis.call('HGET', room, 's') or expected) + 1, tonumber(expected) do
      table.insert(moved, 'm' .. n)
    end
    if #moved > 0 then
      redis.call('HDEL', room, unpack(moved))
    end
    redis.call('HSET', room, 'v', version, 's', version, 'data', data)
  end
  if tonumber(ttl) > 0 then
    redis.call('EXPIRE', room, ttl)
    redis.call('EXPIRE', chat, ttl)
  else
    redis.call('PERSIST', room)
    redis.call('PERSIST', chat)
  end
  redis.call(publish, channel, 'commit\n' .. code .. '\n' .. version)
  return 1
end
"""

# A room's entries in its bucket's indexes, unless a newer version's are there already. The
# listed and waiting sets are scored by when the room expires (most recently changed first).
_WRITE_INDEX = r"""
local function write_index(wake, listed, listings, waiting, indexed,
                           code, version, wake_at, listing, expires_at, is_waiting, ttl)
  local seen = tonumber(redis.call('GET', indexed) or '0')
  if tonumber(version) < seen then
    return 0
  end
  if tonumber(ttl) > 0 then
    redis.call('SET', indexed, version, 'EX', ttl)
  else
    redis.call('SET', indexed, version)
  end
  if wake_at == '' then
    redis.call('ZREM', wake, code)
  else
    redis.call('ZADD', wake, wake_at, code)
  end
  if listing ~= '' then
    redis.call('ZADD', listed, expires_at, code)
    redis.call('HSET', listings, code, listing)
  elseif redis.call('ZREM', listed, code) == 1 then
    redis.call('HDEL', listings, code)
  end
  if is_waiting == '1' then
    redis.call('ZADD', waiting, expires_at, code)
  else
    redis.call('ZREM', waiting, code)
  end
  return 1
end
"""

# One node: KEYS room, chat, then the bucket's wake, listed, listings, waiting, indexed.
# ARGV: expected version, version, data, step ('1': data is a move), ttl, publish command,
# channel, code, wake at, listing, expires at, waiting.
_COMMIT_ONE_NODE = Script(
    _WRITE_ROOM
    + _WRITE_INDEX
    + """
if write_room(KEYS[1], KEYS[2],
              ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]) == 0 then
  return 0
end
write_index(KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7],
            ARGV[8], ARGV[2], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[5])
return 1
"""
)

# A cluster: the room alone (KEYS room, chat; ARGV as above, the first eight) ...
_COMMIT_ROOM = Script(
    _WRITE_ROOM
    + """
return write_room(KEYS[1], KEYS[2],
                  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
"""
)

# ... then its bucket (KEYS wake, listed, listings, waiting, indexed; ARGV code, version,
# wake at, listing, expires at, waiting, ttl).
_INDEX = Script(
    _WRITE_INDEX
    + """
return write_index(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5],
                   ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
"""
)

# KEYS room. ARGV: the version the reader holds (0: none). The room's version, '1' with its
# snapshot or '0' without (the reader's copy is not older than the snapshot), the version the
# moves start after, the snapshot ('' without), then the moves. Nothing for no room.
_LOAD = Script(
    """
local room = redis.call('HMGET', KEYS[1], 'v', 's', 'data')
if not room[1] then
  return false
end
local version = tonumber(room[1])
local base = tonumber(room[2] or room[1])
local after = tonumber(ARGV[1])
local reply
if base <= after and after <= version then
  reply = {room[1], '0', ARGV[1], ''}
  base = after
else
  reply = {room[1], '1', tostring(base), room[3]}
end
if base < version then
  local moved = {}
  for n = base + 1, version do
    table.insert(moved, 'm' .. n)
  end
  for _, move in ipairs(redis.call('HMGET', KEYS[1], unpack(moved))) do
    table.insert(reply, move)
  end
end
return reply
"""
)

# KEYS room. ARGV: a commit's version, '1' if it was a move. The room's version and what the
# room holds for that version: the move, or the snapshot ('' if neither is there).
_READ_BACK = Script(
    """
local room = redis.call('HMGET', KEYS[1], 'v', 's', 'data', 'm' .. ARGV[1])
local current = room[1] or '0'
if ARGV[2] == '1' then
  return {current, room[4] or ''}
end
if room[2] == ARGV[1] then
  return {current, room[3]}
end
return {current, ''}
"""
)

# KEYS wake, indexed. ARGV code, version, wake at ('': none). The room's true wake time, put
# back by the process that looked at it (unless a newer version's entry is there).
_SETTLE_WAKE = Script(
    """
if tonumber(ARGV[2]) < tonumber(redis.call('GET', KEYS[2]) or '0') then
  return 0
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""
)

# KEYS room hash, chat list. ARGV: the message, lines kept, publish command, channel, event.
# Nothing is kept for a room that is gone; what is kept takes the room's time to live.
_CHAT = Script(
    """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
else
  redis.call('PERSIST', KEYS[2])
end
redis.call(ARGV[3], ARGV[4], ARGV[5])
return 1
"""
)

# KEYS: a bucket's listed zset and listings hash. ARGV: now, how many of the newest.
# Entries of rooms that expired meanwhile (their score is when) are dropped first. Returns the
# bucket's total, then code, score and listing of each of its newest entries.
_LISTED = Script(
    """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, code in ipairs(gone) do
  redis.call('HDEL', KEYS[2], code)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local page = {redis.call('ZCARD', KEYS[1])}
local newest = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 1, #newest, 2 do
  table.insert(page, newest[i])
  table.insert(page, newest[i + 1])
  table.insert(page, redis.call('HGET', KEYS[2], newest[i]) or '')
end
return page
"""
)

# KEYS: a bucket's waiting zset. ARGV: now.
_WAITING = Script(
    """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""
)

# KEYS: a bucket's listed zset, listings hash and waiting zset. ARGV: now. Drops the entries of
# rooms that expired (their score is when): readers drop them too, but a bucket nobody reads
# kept them (1,301 stale waiting entries until the next room was made).
_SWEEP_BUCKET = Script(
    """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, code in ipairs(gone) do
  redis.call('HDEL', KEYS[2], code)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
return #gone
"""
)

# KEYS: a bucket's wake, listed, listings, waiting, indexed. ARGV: code.
_FORGET = Script(
    """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5])
return 1
"""
)

# KEYS: the claim. ARGV: the claimant's token, milliseconds. Sent again safely when its answer
# was lost: a claim already taken by the same token is still its own.
_CLAIM = Script(
    """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0
"""
)

_HIT = Script(
    """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count
"""
)

# KEYS: a held set (a sorted set: member → until when). ARGV: now. Drops the members whose time
# ran out; the rest.
_HELD = Script(
    """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""
)

# KEYS: a held set. ARGV: now. Drops the members whose time ran out; how many are left.
_HELD_COUNT = Script(
    """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""
)

# KEYS: a held set. ARGV: until when the member is held, the member, seconds for the set to
# live. The set lives as long as its longest hold: a short hold never shortens it.
_HOLD = Script(
    """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return 1
"""
)

# One node only. KEYS: a room's keys as an earlier release named them (room, chat), as this one
# does (room, chat), the earlier release's indexes (wake, listed, listings, waiting), then the
# room's bucket (wake, listed, listings, waiting, indexed). ARGV: code. Moves the room with its
# time to live and its index entries; a room already moved is left alone.
_ADOPT = Script(
    """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[4])
end
local code = ARGV[1]
local wake = redis.call('ZSCORE', KEYS[5], code)
if wake then
  redis.call('ZADD', KEYS[9], wake, code)
  redis.call('ZREM', KEYS[5], code)
end
local listed = redis.call('ZSCORE', KEYS[6], code)
if listed then
  redis.call('ZADD', KEYS[10], listed, code)
  redis.call('HSET', KEYS[11], code, redis.call('HGET', KEYS[7], code) or '')
  redis.call('ZREM', KEYS[6], code)
  redis.call('HDEL', KEYS[7], code)
end
local waiting = redis.call('ZSCORE', KEYS[8], code)
if waiting then
  redis.call('ZADD', KEYS[12], waiting, code)
  redis.call('ZREM', KEYS[8], code)
end
local ttl = redis.call('PTTL', KEYS[3])
local version = redis.call('HGET', KEYS[3], 'v') or '0'
if ttl > 0 then
  redis.call('SET', KEYS[13], version, 'PX', ttl)
else
  redis.call('SET', KEYS[13], version)
end
return 1
"""
)

WAIT_LANES = 8
"""Connections per node for commits that ``WAIT`` for replicas (``_lane``)."""

_COMMAND_SECONDS = 15.0
"""The longest any one call to Redis may take, its retries included (a replica taking over
from a failed primary, a slot moving): then the caller gets the error."""
_UNREPLICATED_LOG_SECONDS = 60.0


def _name_of(prefix: str) -> str:
    """The name of every connection a store makes, after its prefix: an operator can tell
    each deployment's connections apart."""
    return prefix.strip(":") or "cash_stash"


def bucket_of(code: str) -> int:
    return zlib.crc32(code.encode()) % BUCKETS


class RedisRoomStore:
    """Per room (under its tag): a hash (``v`` its version, ``s`` and ``data`` its snapshot,
    compressed, ``m<n>`` each move since), a list of its last chat messages, a channel. Per
    bucket (under its tag): the wake sorted set, the public list (a sorted set by expiry and a
    hash of listings), the waiting sorted set, and the version each room's entries were
    written for."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "cash_stash:",
        cluster: bool = False,
        wait_replicas: int = 0,
        wait_ms: int = 100,
        sweep_seconds: float = SWEEP_SECONDS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._prefix = prefix
        self._clock = clock or wall_clock
        self._sweep_seconds = sweep_seconds
        self._sweeper: asyncio.Task[None] | None = None
        self.cluster = cluster
        self._wait = (wait_replicas, wait_ms)
        """``WAIT`` for this many replicas (at most this long) after each commit: an
        acknowledged move then survives its primary's failure (``docs/deploy.md``)."""
        self._nodes = Nodes(
            url,
            cluster=cluster,
            name=_name_of(prefix),
            reply_seconds=_COMMAND_SECONDS,
            deadline_seconds=_COMMAND_SECONDS,
        )
        self._events: asyncio.Queue[StoreEvent] = asyncio.Queue()
        self._channels = RoomChannels(
            self._nodes,
            channel_of=self.channel_of,
            queue=self._events,
            deadline_seconds=_COMMAND_SECONDS,
        )
        self._publish = "SPUBLISH" if cluster else "PUBLISH"
        self._wakes = [f"{self._bucket(number)}:wake" for number in range(BUCKETS)]
        """Every bucket's wake set, read at each look for due rooms."""
        self._lanes_used = 0
        self._unreplicated_logged = 0.0
        self.unreplicated = 0
        """Commits that ``WAIT`` found on fewer replicas than asked for."""

    # Keys

    def _room_key(self, code: str) -> str:
        return f"{self._prefix}{{{code}}}:room"

    def _chat_key(self, code: str) -> str:
        return f"{self._prefix}{{{code}}}:chat"

    def channel_of(self, code: str) -> str:
        return f"{self._prefix}{{{code}}}:events"

    def _bucket(self, number: int) -> str:
        return f"{self._prefix}{{bucket-{number:02d}}}"

    def _index_keys(self, code: str) -> list[str]:
        bucket = self._bucket(bucket_of(code))
        return [
            f"{bucket}:wake",
            f"{bucket}:public_rooms",
            f"{bucket}:public_listings",
            f"{bucket}:waiting",
            f"{bucket}:indexed:{code}",
        ]

    # Life

    async def start(self) -> None:
        await self._nodes.start()
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_on_a_clock())

    async def close(self) -> None:
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        self._channels.close()
        self._nodes.close()

    async def _sweep_on_a_clock(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_seconds)
            try:
                await self.sweep()
            except STORE_ERRORS as error:
                logger.warning("expired index entries not swept (%s)", type(error).__name__)

    async def sweep(self) -> int:
        """Drop expired rooms' entries from every bucket's public list and waiting set; how
        many listings went."""
        now = repr(self._clock())
        swept = await asyncio.gather(
            *(
                self._nodes.eval(
                    _SWEEP_BUCKET,
                    [
                        f"{self._bucket(n)}:public_rooms",
                        f"{self._bucket(n)}:public_listings",
                        f"{self._bucket(n)}:waiting",
                    ],
                    [now],
                    retry=True,
                )
                for n in range(BUCKETS)
            )
        )
        return sum(int(count) for count in swept)

    # Rooms

    async def load(self, code: str, *, after: int = 0) -> StoredRoom | None:
        reply = await self._nodes.eval(_LOAD, [self._room_key(code)], [after], retry=True)
        if reply is None:
            return None
        version, whole, base, snapshot, *steps = reply
        whole_room = snapshots.unpacked(str(snapshot)) if whole == "1" else None
        stored = StoredRoom(int(version), whole_room, int(base), steps)
        if stored.version - stored.base != len(steps) or None in steps:
            raise ValueError("a stored room's moves do not make its version")
        return stored

    async def commit(self, commit: Commit) -> bool:
        expires_at = (
            "+inf" if commit.ttl_seconds is None else repr(self._clock() + commit.ttl_seconds)
        )
        ttl = str(commit.ttl_seconds or 0)
        wake_at = "" if commit.wake_at is None else repr(commit.wake_at)
        data = commit.data if commit.step else snapshots.packed(commit.data)
        room_keys = [self._room_key(commit.code), self._chat_key(commit.code)]
        room_args = [
            str(commit.version - 1),
            str(commit.version),
            data,
            "1" if commit.step else "0",
            ttl,
            self._publish,
            self.channel_of(commit.code),
            commit.code,
        ]
        index_keys = self._index_keys(commit.code)
        index_args = [
            wake_at,
            commit.listing or "",
            expires_at,
            "1" if commit.waiting else "0",
        ]
        if not self.cluster:
            return await self._commit_room(
                commit, data, _COMMIT_ONE_NODE, room_keys + index_keys, room_args + index_args
            )
        if commit.wake_at is not None and (
            commit.previous_wake_at is None or commit.wake_at < commit.previous_wake_at
        ):
            await self._nodes.call(
                index_keys[0], "ZADD", index_keys[0], "LT", wake_at, commit.code, retry=True
            )
        if not await self._commit_room(commit, data, _COMMIT_ROOM, room_keys, room_args):
            return False
        await self._nodes.eval(
            _INDEX,
            index_keys,
            [commit.code, str(commit.version), *index_args, ttl],
            retry=True,
        )
        return True

    async def _commit_room(
        self, commit: Commit, data: str, script: Script, keys: list[str], args: list[str]
    ) -> bool:
        """Run the commit script, which writes ``data`` (the commit's data as stored); when
        its answer is lost, read the room back to learn whether it was written (never guessed),
        and send it again if it was not."""
        replicas, wait_ms = self._wait
        then: tuple[tuple[str | int, ...], ...] = (("WAIT", replicas, wait_ms),) if replicas else ()
        deadline = time.monotonic() + _COMMAND_SECONDS
        while True:
            try:
                replies, asked = await self._run(script, keys, list(args), then, self._lane())
                if asked and replies[0]:
                    event = f"commit\n{commit.code}\n{commit.version}"
                    await self._announce_after_ask(commit.code, event)
            except (RedisConnectionError, OSError):
                if time.monotonic() >= deadline:
                    raise
                version, stored = await self._nodes.eval(
                    _READ_BACK,
                    keys[:1],
                    [commit.version, "1" if commit.step else "0"],
                    retry=True,
                )
                if stored == data:
                    return True
                if version == str(commit.version - 1):
                    continue  # not written: send it again
                return False
            written = bool(replies[0])
            if written and replicas and int(replies[-1]) < replicas:
                self._unreplicated(int(replies[-1]))
            return written

    async def _announce_after_ask(self, code: str, event: str) -> None:
        """A script that ran on a node importing the room's slot announced on that node, where
        nobody subscribes yet: announce again where the subscribers are, the slot's owner. A
        failure costs the room's other processes latency only: the end of the move has them
        subscribe again and read the room."""
        channel = self.channel_of(code)
        try:
            await self._nodes.call(channel, "SPUBLISH", channel, event, retry=False)
        except (RedisError, OSError) as error:
            logger.warning("announcement during a slot move lost (%s)", error, extra={"room": code})

    async def _run(
        self,
        script: Script,
        keys: list[str],
        args: list[str | int],
        then: tuple[tuple[str | int, ...], ...] = (),
        lane: int = 0,
    ) -> tuple[list[Any], bool]:
        """Run a script not to be sent twice, with ``then`` after it on its connection; the
        replies, and whether it ran on a node importing its slot (``Nodes.calls_asked``)."""
        try:
            command: tuple[str | int, ...] = ("EVALSHA", script.sha, len(keys), *keys, *args)
            return await self._nodes.calls_asked(keys[0], [command, *then], retry=False, lane=lane)
        except ResponseError as error:
            if not str(error).startswith("NOSCRIPT"):
                raise
        command = ("EVAL", script.text, len(keys), *keys, *args)
        return await self._nodes.calls_asked(keys[0], [command, *then], retry=False, lane=lane)

    def _lane(self) -> int:
        """The connection a commit goes on: the node's shared one, or with ``WAIT`` one of
        ``WAIT_LANES`` others in turn. ``WAIT`` blocks the connection it is sent on until the
        replicas answer, and everything sent after it there waits too: commits to a node then
        wait behind at most a few others, and reads and indexes never do."""
        if not self._wait[0]:
            return 0
        self._lanes_used += 1
        return 1 + self._lanes_used % WAIT_LANES

    def _unreplicated(self, replicas: int) -> None:
        self.unreplicated += 1
        now = time.monotonic()
        if now - self._unreplicated_logged >= _UNREPLICATED_LOG_SECONDS:
            self._unreplicated_logged = now
            logger.warning(
                "commits not yet on a replica (%s of %s); a failover now could lose them "
                "(%s such commits so far)",
                replicas,
                self._wait[0],
                self.unreplicated,
            )

    async def settle_wake(self, code: str, version: int, wake_at: float | None) -> None:
        keys = self._index_keys(code)
        await self._nodes.eval(
            _SETTLE_WAKE,
            [keys[0], keys[4]],
            [code, str(version), "" if wake_at is None else repr(wake_at)],
            retry=True,
        )

    # Room messages

    async def publish(self, code: str, message: str) -> None:
        channel = self.channel_of(code)
        await self._nodes.call(
            channel, self._publish, channel, f"message\n{code}\n{message}", retry=False
        )

    async def chat(self, code: str, message: str, *, keep: int) -> bool:
        event = f"message\n{code}\n{message}"
        keys = [self._room_key(code), self._chat_key(code)]
        args: list[str | int] = [message, keep, self._publish, self.channel_of(code), event]
        (kept,), asked = await self._run(_CHAT, keys, args)
        if asked and kept:
            await self._announce_after_ask(code, event)
        return bool(kept)

    async def chat_lines(self, code: str) -> list[str]:
        key = self._chat_key(code)
        lines = await self._nodes.call(key, "LRANGE", key, 0, -1, retry=True)
        return [str(line) for line in lines]

    async def watch(self, code: str) -> None:
        await self._channels.watch(code)

    def unwatch(self, code: str) -> None:
        self._channels.unwatch(code)

    async def events(self) -> AsyncIterator[StoreEvent]:
        while True:
            yield await self._events.get()

    # Indexes

    async def due(self, now: float) -> tuple[list[str], float | None]:
        replies = await asyncio.gather(
            *(
                self._nodes.calls(
                    wake,
                    [
                        ("ZRANGEBYSCORE", wake, "-inf", repr(now)),
                        ("ZRANGE", wake, 0, 0, "WITHSCORES"),
                    ],
                    retry=True,
                )
                for wake in self._wakes
            )
        )
        codes = [str(code) for due, _ in replies for code in due]
        firsts = [float(first[1]) for _, first in replies if first]
        return codes, min(firsts, default=None)

    async def forget(self, code: str) -> None:
        room_key = self._room_key(code)
        if not await self._nodes.call(room_key, "EXISTS", room_key, retry=True):
            await self._nodes.eval(_FORGET, self._index_keys(code), [code], retry=True)

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        now = repr(self._clock())
        replies = await asyncio.gather(
            *(
                self._nodes.eval(
                    _LISTED,
                    [f"{self._bucket(n)}:public_rooms", f"{self._bucket(n)}:public_listings"],
                    [now, offset + limit],
                    retry=True,
                )
                for n in range(BUCKETS)
            )
        )
        total = 0
        entries: list[tuple[float, str, str]] = []
        for total_here, *rest in replies:
            total += int(total_here)
            for index in range(0, len(rest), 3):
                code, score, listing = rest[index : index + 3]
                if listing:
                    entries.append((-float(score), str(code), str(listing)))
        entries.sort()
        return [listing for _, _, listing in entries[offset : offset + limit]], total

    async def waiting_rooms(self) -> int:
        now = repr(self._clock())
        counts = await asyncio.gather(
            *(
                self._nodes.eval(_WAITING, [f"{self._bucket(n)}:waiting"], [now], retry=True)
                for n in range(BUCKETS)
            )
        )
        return sum(int(count) for count in counts)

    # Upgrades

    async def adopt_earlier_rooms(self) -> int:
        """Move the rooms an earlier release stored on this (single) node to this release's
        keys, with their chat, time to live and index entries; how many were moved. Run while
        no process of the earlier release is running (``cash-stash migrate`` does)."""
        if self.cluster:
            return 0  # earlier releases never ran on a cluster
        earlier = [f"{self._prefix}{name}" for name in ("wake", "public_rooms", "public_listings")]
        earlier.append(f"{self._prefix}waiting")
        moved, cursor = 0, 0
        while True:
            cursor, keys = await self._nodes.call(
                "", "SCAN", cursor, "MATCH", f"{self._prefix}room:*", "COUNT", 500, retry=True
            )
            for key in keys:
                code = str(key).removeprefix(f"{self._prefix}room:")
                old = [str(key), f"{self._prefix}chat:{code}"]
                new = [self._room_key(code), self._chat_key(code)]
                keys_now = [*old, *new, *earlier, *self._index_keys(code)]
                moved += int(await self._nodes.eval(_ADOPT, keys_now, [code], retry=True))
            if int(cursor) == 0:
                break
        await self._nodes.call("", "DEL", *earlier, retry=True)
        return moved

    # Claims and counters (one key each, in any slot)

    async def claim(self, key: str, seconds: float) -> bool:
        name = f"{self._prefix}claim:{key}"
        token = uuid.uuid4().hex
        claimed = await self._nodes.eval(
            _CLAIM, [name], [token, max(1, int(seconds * 1000))], retry=True
        )
        return bool(claimed)

    async def hit(self, key: str, *, limit: int, window_seconds: int) -> bool:
        name = f"{self._prefix}hits:{key}"
        count = await self._nodes.eval(_HIT, [name], [window_seconds], retry=False)
        return int(count) <= limit

    async def hold_place(self, key: str, member: str, *, seconds: float) -> None:
        name = f"{self._prefix}held:{key}"
        until = self._clock() + seconds
        await self._nodes.eval(
            _HOLD, [name], [repr(until), member, max(1, int(seconds) + 1)], retry=True
        )

    async def free_place(self, key: str, member: str) -> None:
        name = f"{self._prefix}held:{key}"
        await self._nodes.call(name, "ZREM", name, member, retry=True)

    async def places(self, key: str) -> list[str]:
        name = f"{self._prefix}held:{key}"
        members = await self._nodes.eval(_HELD, [name], [repr(self._clock())], retry=True)
        return [str(member) for member in members]

    async def count_places(self, key: str) -> int:
        name = f"{self._prefix}held:{key}"
        return int(await self._nodes.eval(_HELD_COUNT, [name], [repr(self._clock())], retry=True))

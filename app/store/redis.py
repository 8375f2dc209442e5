"""Rooms in Redis, shared by every server process: one Redis node or a Redis Cluster.

Every key of one room carries the room's code as its hash tag (``cash_stash:{CODE}:room``,
``…:chat``, and its channel ``…:events``), so a commit is one Lua script in one slot, and the
same script runs on one node or on a cluster. What spans rooms — the wake times, the public
list, the count of waiting rooms — is split into a fixed number of buckets, each under a tag of
its own (``cash_stash:{bucket-07}:wake``), that every process reads.

On one node a commit writes the room and its bucket's indexes in one script, and sends the
indexes only what changed: the room's hash remembers its wake time and whether it is listed or
waiting, so a move in play costs the script four commands (``HMGET``, ``HSET``, ``PUBLISH``,
and a ``ZADD`` when the wake time moves; ``bench/room_traffic.py``). The time to live is renewed
only once its extra is spent (``TTL_SLACK``). On a cluster the bucket lives on another shard,
so the commit script says what a second script must then write there, from what the room
remembers in the same way: nothing for a move in play whose wake time stays, the wake time
alone when it moves, every entry while the room is (or was just) listed or waiting. Each
bucket write carries the room version it was made for: a late write of an older version never
undoes a newer one. A wake time that comes earlier than the one indexed is written to the index
before the commit, so a process that dies between the two writes leaves the room woken early
(the scheduler then puts its true wake time back: ``settle_wake``), never forgotten; a write of
every entry is remembered by the room until its writer confirms it, and the room's next commit
(from any process) writes every entry again while it is not, so a stale listing lasts no longer
than it did when every commit wrote every entry.

Announcements go to the room's own channel, inside the commit script: sharded pub/sub on a
cluster (``SPUBLISH``, which stays on the room's shard), a plain channel on one node. A process
subscribes only to the rooms it serves (``app/store/channels.py``)."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

from app.resp.nodes import Nodes, Script
from app.store import snapshots
from app.store.base import STORE_ERRORS, Commit, StoredRoom, StoreEvent, wall_clock
from app.store.channels import RoomChannels
from app.store.expiring import Sweeper

logger = logging.getLogger(__name__)

BUCKETS = 16
"""Wake and listing buckets. Every process reads all of them on each look for due rooms, so
few; enough that a cluster of a dozen shards shares the work. Changing it strands entries."""
SWEEP_SECONDS = 30.0
"""How often each process drops expired rooms' entries from every bucket's public list and
waiting set (``sweep``)."""

_SCRIPTS = resources.files("app.store") / "scripts"
"""The store's Lua scripts, one file each, their keys and arguments named in its header."""


def _script(name: str, *uses: str) -> Script:
    """The script ``scripts/<name>.lua``, after the files of the functions it ``uses``."""
    return Script.from_files(*(_SCRIPTS / f"{file}.lua" for file in (*uses, name)))


_COMMIT_ONE_NODE = _script("commit_one_node", "write_room")
_COMMIT_ROOM = _script("commit_room", "write_room")
_INDEX = _script("index", "written_for")
_INDEX_WAKE = _script("index_wake", "written_for")
_CONFIRM_INDEX = _script("confirm_index")
_LOAD = _script("load")
_READ_BACK = _script("read_back")
_SETTLE_WAKE = _script("settle_wake")
_SETTLED_WAKE = _script("settled_wake")
_SETTLE_WAKE_ONE_NODE = _script("settle_wake_one_node")
_CHAT = _script("chat")
_LISTED = _script("listed")
_WAITING = _script("waiting")
_SWEEP_BUCKET = _script("sweep_bucket")
_FORGET = _script("forget")
_CLAIM = _script("claim")
_HIT = _script("hit")
_HELD = _script("held")
_HELD_COUNT = _script("held_count")
_HOLD = _script("hold")
_RESTORE_ONE_NODE = _script("restore_one_node", "restore_snapshot")
_RESTORE_ROOM = _script("restore_room", "restore_snapshot")
_DROP_ROOM = _script("drop_room")

_NOTHING_TO_INDEX, _WAKE_TO_INDEX, _EVERY_ENTRY_TO_INDEX = 1, 2, 3
"""What a cluster's commit script (``scripts/commit_room.lua``) says its bucket needs: nothing,
the wake time alone, or every entry (0: the version moved)."""

TTL_SLACK = 8
"""A room is set to live its time to live and an ``1/TTL_SLACK`` more, and that is sent again
only once the extra is spent (``scripts/write_room.lua``): one ``EXPIRE`` in 45 minutes of a
game of six-hour rooms, not one a move. A room lives that much longer untouched at most; the
listed and waiting sets still drop it at its time to live."""

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
    compressed, ``m<n>`` each move since; ``x`` until when it was set to live, ``c`` if it has
    a chat list, ``w`` and ``i``, its wake time and listed and waiting flags as its indexes
    were asked to hold them, and on a cluster ``p``, the version whose write of every index
    entry is not confirmed yet), a list of its last chat messages, a channel. Per bucket (under its
    tag): the wake sorted set, the public list (a sorted set by expiry and a hash of
    listings), the waiting sorted set, and on a cluster the version each room's entries were
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
        self._sweeper = Sweeper(self._sweep_logged, seconds=sweep_seconds)
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

    def _index_keys(self, code: str) -> dict[str, str]:
        """The room's bucket's indexes, as the scripts name them."""
        bucket = self._bucket(bucket_of(code))
        return {
            "wake": f"{bucket}:wake",
            "listed": f"{bucket}:public_rooms",
            "listings": f"{bucket}:public_listings",
            "waiting": f"{bucket}:waiting",
            "indexed": f"{bucket}:indexed:{code}",
        }

    # Life

    async def start(self) -> None:
        await self._nodes.start()
        await self._sweeper.start()

    async def close(self) -> None:
        await self._sweeper.close()
        self._channels.close()
        self._nodes.close()

    async def _sweep_logged(self) -> None:
        """``sweep``, on the clock: a store that does not answer is logged, and the next
        sweep tries again."""
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
                self._nodes.run(
                    _SWEEP_BUCKET,
                    {
                        "listed": f"{self._bucket(n)}:public_rooms",
                        "listings": f"{self._bucket(n)}:public_listings",
                        "waiting": f"{self._bucket(n)}:waiting",
                    },
                    {"now": now},
                    retry=True,
                )
                for n in range(BUCKETS)
            )
        )
        return sum(int(count) for count in swept)

    # Rooms

    async def load(self, code: str, *, after: int = 0) -> StoredRoom | None:
        reply = await self._nodes.run(
            _LOAD, {"room": self._room_key(code)}, {"after": after}, retry=True
        )
        if reply is None:
            return None
        version, whole, base, snapshot, *steps = reply
        whole_room = snapshots.unpacked(str(snapshot)) if whole == "1" else None
        stored = StoredRoom(int(version), whole_room, int(base), steps)
        if stored.version - stored.base != len(steps) or None in steps:
            raise ValueError("a stored room's moves do not make its version")
        return stored

    async def commit(self, commit: Commit) -> bool:
        now = self._clock()
        ttl_seconds = commit.ttl_seconds or 0
        keep = ttl_seconds + ttl_seconds // TTL_SLACK
        expires_at = "+inf" if commit.ttl_seconds is None else repr(now + ttl_seconds)
        ttl = str(ttl_seconds)
        wake_at = "" if commit.wake_at is None else repr(commit.wake_at)
        data = commit.data if commit.step else snapshots.packed(commit.data)
        room_keys = {"room": self._room_key(commit.code), "chat": self._chat_key(commit.code)}
        room_args = {
            "expected": str(commit.version - 1),
            "version": str(commit.version),
            "data": data,
            "step": "1" if commit.step else "0",
            "ttl": ttl,
            "keep": str(keep),
            "now": repr(now),
            "publish": self._publish,
            "channel": self.channel_of(commit.code),
            "code": commit.code,
        }
        index_keys = self._index_keys(commit.code)
        index_args = {
            "wake_at": wake_at,
            "listing": commit.listing or "",
            "waiting": "1" if commit.waiting else "0",
        }
        if not self.cluster:
            del index_keys["indexed"]  # the room's own version says which version wrote them
            keys, args = _COMMIT_ONE_NODE.bound(room_keys | index_keys, room_args | index_args)
            return bool(await self._commit_room(commit, data, _COMMIT_ONE_NODE, keys, args))
        wake = index_keys["wake"]
        if commit.wake_at is not None and (
            commit.previous_wake_at is None or commit.wake_at < commit.previous_wake_at
        ):
            await self._nodes.call(wake, "ZADD", wake, "LT", wake_at, commit.code, retry=True)
        keys, args = _COMMIT_ROOM.bound(room_keys, room_args | index_args)
        to_index = await self._commit_room(commit, data, _COMMIT_ROOM, keys, args)
        if not to_index:
            return False
        if to_index == _NOTHING_TO_INDEX:
            return True
        if to_index == _WAKE_TO_INDEX:
            await self._nodes.run(
                _INDEX_WAKE,
                {"wake": wake, "indexed": index_keys["indexed"]},
                {
                    "code": commit.code,
                    "version": str(commit.version),
                    "wake_at": wake_at,
                    "ttl": ttl,
                },
                retry=True,
            )
            return True
        await self._nodes.run(
            _INDEX,
            index_keys,
            {
                "code": commit.code,
                "version": str(commit.version),
                "wake_at": wake_at,
                "listing": commit.listing or "",
                "expires_at": expires_at,
                "waiting": index_args["waiting"],
                "ttl": ttl,
            },
            retry=True,
        )
        await self._nodes.run(
            _CONFIRM_INDEX, {"room": room_keys["room"]}, {"version": commit.version}, retry=True
        )
        return True

    async def restore(
        self,
        code: str,
        *,
        version: int,
        data: str,
        wake_at: float | None,
        ttl_seconds: int | None,
        chat: Sequence[str] = (),
    ) -> bool:
        wake = "" if wake_at is None else repr(wake_at)
        ttl = str(ttl_seconds or 0)
        room_args = {"version": str(version), "data": snapshots.packed(data), "ttl": ttl}
        room, chat_key = self._room_key(code), self._chat_key(code)
        if not self.cluster:
            keys = {"room": room, "wake": self._index_keys(code)["wake"], "chat": chat_key}
            args = room_args | {"code": code, "wake_at": wake, "chat...": list(chat)}
            return bool(await self._nodes.run(_RESTORE_ONE_NODE, keys, args, retry=True))
        if not await self._nodes.run(
            _RESTORE_ROOM,
            {"room": room, "chat": chat_key},
            room_args | {"chat...": list(chat)},
            retry=True,
        ):
            return False
        expires_at = "+inf" if not ttl_seconds else repr(self._clock() + ttl_seconds)
        await self._nodes.run(
            _INDEX,
            self._index_keys(code),
            {
                "code": code,
                "version": str(version),
                "wake_at": wake,
                "listing": "",
                "expires_at": expires_at,
                "waiting": "0",
                "ttl": ttl,
            },
            retry=True,
        )
        return True

    async def drop(self, code: str, *, version: int, chat: Sequence[str] = ()) -> bool:
        keys = {"room": self._room_key(code), "chat": self._chat_key(code)}
        args = {"version": str(version), "chat_last": chat[-1] if chat else ""}
        if not await self._nodes.run(_DROP_ROOM, keys, args, retry=True):
            return False
        # A process that dies here leaves the room due at its wake time: its waking then
        # brings it back from the database, as its deadline would have.
        await self._nodes.run(_FORGET, self._index_keys(code), {"code": code}, retry=True)
        return True

    async def _commit_room(
        self, commit: Commit, data: str, script: Script, keys: list[str], args: list[str | int]
    ) -> int:
        """Run the commit script, which writes ``data`` (the commit's data as stored); its
        answer (0: not written). When the answer is lost, read the room back to learn whether
        it was written (never guessed), and send it again if it was not; written, its indexes
        get every entry (what the script said is lost with its answer)."""
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
                version, stored = await self._nodes.run(
                    _READ_BACK,
                    {"room": keys[0]},
                    {"version": commit.version, "step": "1" if commit.step else "0"},
                    retry=True,
                )
                if stored == data:
                    return _EVERY_ENTRY_TO_INDEX
                if version == str(commit.version - 1):
                    continue  # not written: send it again
                return 0
            answer = int(replies[0])
            if answer and replicas and int(replies[-1]) < replicas:
                self._unreplicated(int(replies[-1]))
            return answer

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
        index = self._index_keys(code)
        args = {
            "code": code,
            "version": str(version),
            "wake_at": "" if wake_at is None else repr(wake_at),
        }
        if self.cluster:
            # The room first: its next commit then compares with the time put back, or, had it
            # moved on meanwhile, its own commit wrote (or kept) the entry.
            room = {"room": self._room_key(code)}
            remembered = {"version": args["version"], "wake_at": args["wake_at"]}
            if await self._nodes.run(_SETTLED_WAKE, room, remembered, retry=True):
                keys = {"wake": index["wake"], "indexed": index["indexed"]}
                await self._nodes.run(_SETTLE_WAKE, keys, args, retry=True)
        else:
            keys = {"wake": index["wake"], "room": self._room_key(code)}
            await self._nodes.run(_SETTLE_WAKE_ONE_NODE, keys, args, retry=True)

    # Room messages

    async def publish(self, code: str, message: str) -> None:
        channel = self.channel_of(code)
        await self._nodes.call(
            channel, self._publish, channel, f"message\n{code}\n{message}", retry=False
        )

    async def chat(self, code: str, message: str, *, keep: int) -> bool:
        event = f"message\n{code}\n{message}"
        keys, args = _CHAT.bound(
            {"room": self._room_key(code), "chat": self._chat_key(code)},
            {
                "message": message,
                "keep": keep,
                "publish": self._publish,
                "channel": self.channel_of(code),
                "event": event,
            },
        )
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
            await self._nodes.run(_FORGET, self._index_keys(code), {"code": code}, retry=True)

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        now = repr(self._clock())
        replies = await asyncio.gather(
            *(
                self._nodes.run(
                    _LISTED,
                    {
                        "listed": f"{self._bucket(n)}:public_rooms",
                        "listings": f"{self._bucket(n)}:public_listings",
                    },
                    {"now": now, "newest": offset + limit},
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
                self._nodes.run(
                    _WAITING, {"waiting": f"{self._bucket(n)}:waiting"}, {"now": now}, retry=True
                )
                for n in range(BUCKETS)
            )
        )
        return sum(int(count) for count in counts)

    # Claims and counters (one key each, in any slot)

    async def claim(self, key: str, seconds: float) -> bool:
        name = f"{self._prefix}claim:{key}"
        token = uuid.uuid4().hex
        claimed = await self._nodes.run(
            _CLAIM,
            {"claim": name},
            {"token": token, "milliseconds": max(1, int(seconds * 1000))},
            retry=True,
        )
        return bool(claimed)

    async def hit(self, key: str, *, limit: int, window_seconds: int) -> bool:
        name = f"{self._prefix}hits:{key}"
        count = await self._nodes.run(_HIT, {"hits": name}, {"window": window_seconds}, retry=False)
        return int(count) <= limit

    async def hold_place(self, key: str, member: str, *, seconds: float) -> None:
        name = f"{self._prefix}held:{key}"
        until = self._clock() + seconds
        await self._nodes.run(
            _HOLD,
            {"held": name},
            {"until": repr(until), "member": member, "seconds": max(1, int(seconds) + 1)},
            retry=True,
        )

    async def free_place(self, key: str, member: str) -> None:
        name = f"{self._prefix}held:{key}"
        await self._nodes.call(name, "ZREM", name, member, retry=True)

    async def places(self, key: str) -> list[str]:
        name = f"{self._prefix}held:{key}"
        members = await self._nodes.run(
            _HELD, {"held": name}, {"now": repr(self._clock())}, retry=True
        )
        return [str(member) for member in members]

    async def count_places(self, key: str) -> int:
        name = f"{self._prefix}held:{key}"
        count = await self._nodes.run(
            _HELD_COUNT, {"held": name}, {"now": repr(self._clock())}, retry=True
        )
        return int(count)

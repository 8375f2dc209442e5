"""Shard: how many moves one primary of a Redis Cluster can commit per second.

Starts the tests' local Redis Cluster (three primaries with a replica each), pins the primary
under test alone to one core and every other node and this driver to the other, and sends that
primary what a move costs it: the store's own commit script for rooms whose slots it holds
(``app/store/redis.py``: the room's version checked, its move appended (or every
``--snapshot-every`` moves a snapshot of ``--data-bytes`` written), its time to live set, the
announcement published on the room's shard channel) and the index script of a wake and
listing bucket it holds. One subscriber listens on every room's channel, as the process
serving the room would. Each connection keeps ``--depth`` moves in flight; with
``--wait-replicas`` each commit is followed by ``WAIT`` on its connection, as the store sends
it. Reported: moves per second, the primary's share of its core, and its CPU per move (from
``INFO``); a primary at its whole core is saturated, and below it the CPU per move bounds what
it could do. It takes the scripts, key names and bucket layout from ``app/store/redis.py``
itself (names private to that module), so that it measures what the server sends and fails at
once when they change. Loopback only, bounded in seconds; stops its cluster itself::

    python bench/shard.py --seconds 10 --data-bytes 8000 --move-bytes 250
    python bench/shard.py --seconds 10 --data-bytes 8000 --snapshot-every 1  # whole rooms only
    python bench/shard.py --seconds 10 --data-bytes 8000 --wait-replicas 1
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hiredis
import redis
from redis.crc import key_slot

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as ``python bench/shard.py``: the repository's root

from app.rooms.credentials import CODE_ALPHABET, CODE_LENGTH  # noqa: E402
from app.rooms.moves import SNAPSHOT_EVERY  # noqa: E402
from app.store.redis import (  # noqa: E402
    _COMMIT_ROOM,
    _INDEX,
    BUCKETS,
    TTL_SLACK,
    RedisRoomStore,
    bucket_of,
)
from tests.redis_cluster import RedisCluster, cluster_tools_problem  # noqa: E402

CORES = sorted(os.sched_getaffinity(0))
TTL = 6 * 3600
MAX_SECONDS = 60.0


def encode(*parts: str | bytes) -> bytes:
    """One command in RESP, the protocol's own framing."""
    chunks = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        chunks.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(chunks)


@dataclass
class Room:
    code: str
    version: int = 0


class Driver:
    """Moves for the rooms and buckets of one primary, pre-framed so that the driver's own
    work per move stays a small part of the primary's."""

    def __init__(
        self,
        store: RedisRoomStore,
        rooms: list[Room],
        buckets: list[str],
        data: bytes,
        move: bytes,
        snapshot_every: int,
    ):
        self.store = store
        self.rooms = rooms
        self.bucket_codes = buckets
        """Room codes whose index bucket is on the primary (the buckets its rooms' entries go
        to are spread over every shard; these stand for its share)."""
        self.data = data
        self.move_data = move
        self.snapshot_every = snapshot_every
        self.moves = 0
        self.refused = 0

    def move(self, room: Room, index_code: str, wait: int) -> list[bytes]:
        store = self.store
        room.version += 1
        now = time.time()
        snapshot = room.version == 1 or room.version % self.snapshot_every == 0
        commit_keys, commit_args = _COMMIT_ROOM.bound(
            {"room": store._room_key(room.code), "chat": store._chat_key(room.code)},
            {
                "expected": str(room.version - 1),
                "version": str(room.version),
                "data": self.data if snapshot else self.move_data,
                "step": "0" if snapshot else "1",
                "ttl": str(TTL),
                "keep": str(TTL + TTL // TTL_SLACK),
                "now": repr(now),
                "publish": "SPUBLISH",
                "channel": store.channel_of(room.code),
                "code": room.code,
            },
        )
        index_keys, index_args = _INDEX.bound(
            store._index_keys(index_code),
            {
                "code": index_code,
                "version": str(room.version),
                "wake_at": repr(now + 60),
                "listing": "",
                "expires_at": repr(now + TTL),
                "waiting": "0",
                "ttl": str(TTL),
            },
        )
        commit = encode(
            "EVALSHA", _COMMIT_ROOM.sha, str(len(commit_keys)), *commit_keys, *map(str, commit_args)
        )
        index = encode(
            "EVALSHA", _INDEX.sha, str(len(index_keys)), *index_keys, *map(str, index_args)
        )
        commands = [commit, index]
        if wait:
            commands.append(encode("WAIT", str(wait), "100"))
        return commands

    async def connection(
        self, port: int, rooms: list[Room], depth: int, until: float, wait: int
    ) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        parser = hiredis.Reader()
        rng = random.Random(port + len(rooms))
        try:
            while time.monotonic() < until:
                batch = rng.sample(rooms, min(depth, len(rooms)))
                frames = [
                    frame
                    for room in batch
                    for frame in self.move(room, rng.choice(self.bucket_codes), wait)
                ]
                writer.write(b"".join(frames))
                replies: list[Any] = []
                while len(replies) < len(frames):
                    parser.feed(await reader.read(1 << 16))
                    while (reply := parser.gets()) is not False:
                        replies.append(reply)
                step = 3 if wait else 2
                for reply in replies[::step]:
                    if reply == 1:
                        self.moves += 1
                    else:
                        self.refused += 1
        finally:
            writer.close()


async def subscriber(port: int, channels: list[str], ready: asyncio.Event) -> None:
    """The serving process's side: subscribed to every room's channel, reading what comes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    # One command per channel: the rooms' channels are in different slots.
    writer.write(b"".join(encode("SSUBSCRIBE", channel) for channel in channels))
    parser = hiredis.Reader()
    confirmed = 0
    try:
        while True:
            parser.feed(await reader.read(1 << 16))
            while (reply := parser.gets()) is not False:
                if isinstance(reply, list) and reply and reply[0] == b"ssubscribe":
                    confirmed += 1
                    if confirmed == len(channels):
                        ready.set()
    finally:
        writer.close()


def cpu_of(port: int) -> float:
    with redis.Redis(port=port) as client:
        info = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def codes_on(slots: set[int], count: int, rng: random.Random) -> list[str]:
    codes: list[str] = []
    while len(codes) < count:
        code = "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if key_slot(code.encode()) in slots:
            codes.append(code)
    return codes


def pin(pid: int, core: int) -> None:
    if len(CORES) > 1:
        os.sched_setaffinity(pid, {CORES[core % len(CORES)]})


async def measure(args: argparse.Namespace, cluster: RedisCluster) -> None:
    primary = cluster.primaries()[0]
    for node in cluster.nodes:
        assert node.process is not None
        pin(node.process.pid, 0 if node.port == primary else 1)
    pin(0, 1)
    slots = next(entry.slots for entry in cluster.view() if entry.port == primary)
    store = RedisRoomStore(cluster.url, cluster=True)
    rng = random.Random(23)
    rooms = [Room(code) for code in codes_on(set(slots), args.rooms, rng)]
    # For each bucket whose tag is on this primary, a code whose index entries go there.
    held = [n for n in range(BUCKETS) if key_slot(store._bucket(n).encode()) in slots]
    bucket_codes: dict[int, str] = {}
    while len(bucket_codes) < len(held):
        code = "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if bucket_of(code) in held:
            bucket_codes.setdefault(bucket_of(code), code)
    with redis.Redis(port=primary) as client:
        client.script_load(_COMMIT_ROOM.text)
        client.script_load(_INDEX.text)
    driver = Driver(
        store,
        rooms,
        list(bucket_codes.values()),
        b"x" * args.data_bytes,
        b"x" * args.move_bytes,
        args.snapshot_every,
    )
    ready = asyncio.Event()
    listening = asyncio.create_task(
        subscriber(primary, [store.channel_of(room.code) for room in rooms], ready)
    )
    await asyncio.wait_for(ready.wait(), 10)
    share = len(rooms) // args.connections
    groups = [rooms[n * share : (n + 1) * share] for n in range(args.connections)]
    # A short warm-up writes every room once, then the measured stretch.
    await asyncio.gather(
        *(
            driver.connection(primary, group, args.depth, time.monotonic() + 1, 0)
            for group in groups
        )
    )
    driver.moves = driver.refused = 0
    cpu_before, started = cpu_of(primary), time.monotonic()
    await asyncio.gather(
        *(
            driver.connection(
                primary, group, args.depth, started + args.seconds, args.wait_replicas
            )
            for group in groups
        )
    )
    elapsed = time.monotonic() - started
    cpu = cpu_of(primary) - cpu_before
    listening.cancel()
    print(
        f"one primary, {len(bucket_codes)} of {BUCKETS} buckets, {len(rooms)} rooms,"
        f" {args.data_bytes} B per snapshot every {args.snapshot_every} moves,"
        f" {args.move_bytes} B per move, {args.connections} connections x {args.depth} moves"
        f" in flight{f', WAIT {args.wait_replicas}' if args.wait_replicas else ''}:"
    )
    print(
        f"  {driver.moves / elapsed:,.0f} moves/s (commit + index), refused {driver.refused};"
        f" the primary at {cpu / elapsed:.0%} of its core,"
        f" {1e6 * cpu / max(driver.moves, 1):.1f} us of CPU per move"
        f" (at a whole core: {driver.moves / max(cpu, 1e-9):,.0f} moves/s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--data-bytes", type=int, default=8000, help="a room's snapshot")
    parser.add_argument("--move-bytes", type=int, default=250, help="a move's stored text")
    parser.add_argument("--snapshot-every", type=int, default=SNAPSHOT_EVERY)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--depth", type=int, default=32, help="moves in flight per connection")
    parser.add_argument("--wait-replicas", type=int, default=0)
    args = parser.parse_args()
    if not 0 < args.seconds <= MAX_SECONDS or not 1 <= args.connections <= 64:
        raise SystemExit(f"keep to at most {MAX_SECONDS:.0f} s and 1-64 connections")
    problem = cluster_tools_problem()
    if problem is not None:
        raise SystemExit(problem)
    with RedisCluster() as cluster:
        asyncio.run(measure(args, cluster))


if __name__ == "__main__":
    main()

"""Redis clients: the CPU one commit and one announcement heard cost the server's process.

Compares, in one run and in turns, the store's own client (``app/resp/nodes.py`` over
``app/resp/connection.py`` for commands, ``app/store/channels.py`` for the subscription) with
redis-py's: ``redis.asyncio.Redis`` on one node and ``redis.asyncio.cluster.RedisCluster`` on
the tests' local Redis Cluster (three primaries with a replica each), for the two paths a move
takes through the store:

- **commit**: the store's own commit scripts (``app/store/redis.py``), with its keys and
  arguments, for ``--rooms`` rooms committing at once, each its next version, ``--data-bytes``
  of room data each. On a cluster a commit is the room's script then its bucket's index
  script, as the store sends them.
- **announcement**: the process subscribed to ``--rooms`` rooms' channels (sharded on the
  cluster) while another process publishes ``commit`` events on them at ``--rate`` a second,
  a few per millisecond, as a loaded server's commits come.

The figure is this process's CPU time (user and system) per commit or per announcement heard;
Redis and the publisher run in other processes. Each client plays ``--repeats`` steps in
turns and the medians are reported, with each step's ratio to the store's own client. Uses
the Redis at ``CASH_STASH_BENCH_REDIS_URL`` (default ``redis://127.0.0.1:6379/14``) under a
key prefix of its own, deleted afterwards, and starts and stops its cluster itself::

    python bench/redis_client.py --commits 4000 --rate 2000 --seconds 4 --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis
import redis.asyncio
import redis.asyncio.cluster

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as ``python bench/redis_client.py``: the repository's root

from app.resp.nodes import Nodes  # noqa: E402
from app.store.base import StoreEvent  # noqa: E402
from app.store.channels import RoomChannels  # noqa: E402
from app.store.redis import (  # noqa: E402
    _COMMIT_ONE_NODE,
    _COMMIT_ROOM,
    _INDEX,
    TTL_SLACK,
    RedisRoomStore,
)
from tests.redis_cluster import RedisCluster, cluster_tools_problem  # noqa: E402

TTL = "3600"
KEEP = int(TTL) + int(TTL) // TTL_SLACK

# The publisher: another process, so that its CPU is not this one's. Each millisecond it
# publishes what is due by then, one command per announcement, round the rooms' channels.
_PUBLISHER = r"""
import sys, time, redis, redis.cluster
url, cluster, rate, seconds, *channels = sys.argv[1:]
client = (redis.cluster.RedisCluster.from_url(url) if cluster == "1" else redis.Redis.from_url(url))
command = "SPUBLISH" if cluster == "1" else "PUBLISH"
start, sent, total = time.monotonic(), 0, int(float(rate) * float(seconds))
while sent < total:
    due = min(total, int((time.monotonic() - start) * float(rate)) + 1)
    while sent < due:
        channel = channels[sent % len(channels)]
        code = channel.split("{", 1)[1].split("}", 1)[0]
        client.execute_command(command, channel, f"commit\n{code}\n{sent + 1}")
        sent += 1
    time.sleep(0.001)
"""


def cpu() -> float:
    times = os.times()
    return times.user + times.system


class Rooms:
    """Keys and arguments of the store's commit scripts, as ``RedisRoomStore.commit`` makes
    them, for a set of rooms and their next versions."""

    def __init__(self, store: RedisRoomStore, count: int, data: str) -> None:
        self.store = store
        self.codes = [f"B{uuid.uuid4().hex[:7].upper()}" for _ in range(count)]
        self.versions = dict.fromkeys(self.codes, 0)
        self.data = data

    def commit(self, code: str) -> list[tuple[Any, ...]]:
        """The commands of the room's next commit, snapshot data without wake time or listing:
        one script on one node; on a cluster the room's, then its bucket's."""
        store, version, now = self.store, self.versions[code] + 1, time.time()
        room_keys = {"room": store._room_key(code), "chat": store._chat_key(code)}
        room_args = {
            "expected": str(version - 1),
            "version": str(version),
            "data": self.data,
            "step": "0",
            "ttl": TTL,
            "keep": str(KEEP),
            "now": repr(now),
            "publish": store._publish,
            "channel": store.channel_of(code),
            "code": code,
        }
        index_keys = store._index_keys(code)
        if not store.cluster:
            del index_keys["indexed"]
            keys, args = _COMMIT_ONE_NODE.bound(
                room_keys | index_keys, room_args | {"wake_at": "", "listing": "", "waiting": "0"}
            )
            return [("EVALSHA", _COMMIT_ONE_NODE.sha, len(keys), *keys, *args)]
        keys, args = _COMMIT_ROOM.bound(room_keys, room_args)
        index, index_args = _INDEX.bound(
            index_keys,
            {
                "code": code,
                "version": str(version),
                "wake_at": "",
                "listing": "",
                "expires_at": "+inf",
                "waiting": "0",
                "ttl": TTL,
            },
        )
        return [
            ("EVALSHA", _COMMIT_ROOM.sha, len(keys), *keys, *args),
            ("EVALSHA", _INDEX.sha, len(index), *index, *index_args),
        ]


Commit = Callable[[str], Awaitable[None]]


def handmade_commit(nodes: Nodes, rooms: Rooms) -> Commit:
    async def commit(code: str) -> None:
        room, *index = rooms.commit(code)
        (written,), _ = await nodes.calls_asked(str(room[3]), [room], retry=False)
        for call in index:
            await nodes.calls(str(call[3]), [call], retry=True)
        assert written == 1
        rooms.versions[code] += 1

    return commit


def redis_py_commit(client: Any, rooms: Rooms) -> Commit:
    async def commit(code: str) -> None:
        room, *index = rooms.commit(code)
        written = await client.evalsha(*room[1:])
        for call in index:
            await client.evalsha(*call[1:])
        assert written == 1
        rooms.versions[code] += 1

    return commit


async def commits_step(commit: Commit, rooms: Rooms, total: int) -> float:
    """CPU seconds per commit: every room commits its next version, one after another, until
    ``total`` commits are done."""
    per_room = max(1, total // len(rooms.codes))

    async def play(code: str) -> None:
        for _ in range(per_room):
            await commit(code)

    await asyncio.gather(*(commit(code) for code in rooms.codes))  # connections made
    start = cpu()
    await asyncio.gather(*(play(code) for code in rooms.codes))
    return (cpu() - start) / (per_room * len(rooms.codes))


Listen = Callable[[int], Awaitable[None]]


async def handmade_listener(nodes: Nodes, store: RedisRoomStore, codes: list[str]) -> Any:
    queue: asyncio.Queue[StoreEvent] = asyncio.Queue()
    channels = RoomChannels(nodes, channel_of=store.channel_of, queue=queue, deadline_seconds=15.0)
    for code in codes:
        await channels.watch(code)

    async def listen(count: int) -> None:
        for _ in range(count):
            await queue.get()

    def close() -> None:
        for code in codes:
            channels.unwatch(code)
        channels.close()

    return listen, close


async def redis_py_listener(client: Any, store: RedisRoomStore, codes: list[str]) -> Any:
    channels = [store.channel_of(code) for code in codes]
    if isinstance(client, redis.asyncio.cluster.RedisCluster):
        sharded = client.pubsub()
        for channel in channels:
            await sharded.ssubscribe(channel)
        nodes = [client.get_node_from_key(channel) for channel in channels]
        nodes = list({node.name: node for node in nodes}.values())
        heard: asyncio.Queue[Any] = asyncio.Queue()

        async def read(node: Any) -> None:
            while True:
                message = await sharded.get_sharded_message(
                    ignore_subscribe_messages=True, timeout=1.0, target_node=node
                )
                if message is not None and message["type"] == "smessage":
                    heard.put_nowait(message)

        readers = [asyncio.create_task(read(node)) for node in nodes]

        async def listen(count: int) -> None:
            for _ in range(count):
                await heard.get()

        async def close() -> None:
            for reader in readers:
                reader.cancel()
            await sharded.aclose()

        return listen, close

    plain = client.pubsub(ignore_subscribe_messages=True)
    await plain.subscribe(*channels)

    async def listen_plain(count: int) -> None:
        got = 0
        while got < count:
            message = await plain.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None and message["type"] == "message":
                got += 1

    return listen_plain, plain.aclose


async def announcements_step(
    listen: Listen, url: str, cluster: bool, channels: list[str], rate: float, seconds: float
) -> float:
    """CPU seconds per announcement heard while another process publishes them."""
    total = int(rate * seconds)
    publisher = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _PUBLISHER,
        url,
        "1" if cluster else "0",
        str(rate),
        str(seconds),
        *channels,
    )
    try:
        start = cpu()
        async with asyncio.timeout(seconds * 4 + 10):
            await listen(total)
        return (cpu() - start) / total
    finally:
        await publisher.wait()


async def measure(url: str, cluster: bool, options: argparse.Namespace) -> dict[str, Any]:
    prefix = f"bench_client_{uuid.uuid4().hex[:6]}:"
    store = RedisRoomStore(url, prefix=prefix, cluster=cluster)
    rooms = Rooms(store, options.rooms, "x" * options.data_bytes)
    nodes = Nodes(url, cluster=cluster, name="bench", reply_seconds=15.0, deadline_seconds=15.0)
    await nodes.start()
    client: Any = (
        redis.asyncio.cluster.RedisCluster.from_url(url)
        if cluster
        else redis.asyncio.Redis.from_url(url)
    )
    await client.initialize() if cluster else await client.ping()
    for script in (_COMMIT_ONE_NODE, _COMMIT_ROOM, _INDEX):
        await client.script_load(script.text)  # every primary, on a cluster
    clients = {
        "own": handmade_commit(nodes, rooms),
        "redis-py": redis_py_commit(client, rooms),
    }
    results: dict[str, Any] = {"commit": {name: [] for name in clients}}
    for _ in range(options.repeats):
        for name, commit in clients.items():
            results["commit"][name].append(await commits_step(commit, rooms, options.commits))

    listeners = {
        "own": lambda: handmade_listener(nodes, store, rooms.codes),
        "redis-py": lambda: redis_py_listener(client, store, rooms.codes),
    }
    channels = [store.channel_of(code) for code in rooms.codes]
    results["announcement"] = {name: [] for name in listeners}
    for _ in range(options.repeats):
        for name, subscribe in listeners.items():
            # One subscription at a time: another would read the same announcements.
            listen, close = await subscribe()
            step = await announcements_step(
                listen, url, cluster, channels, options.rate, options.seconds
            )
            results["announcement"][name].append(step)
            closed = close()
            if closed is not None:
                await closed
            await asyncio.sleep(0.2)

    await cleanup(client, prefix, cluster)
    await client.aclose()
    nodes.close()
    return results


async def cleanup(client: Any, prefix: str, cluster: bool) -> None:
    if cluster:
        return  # the cluster is stopped and removed
    async for key in client.scan_iter(match=f"{prefix}*", count=1000):
        await client.delete(key)


def report(title: str, results: dict[str, Any]) -> None:
    print(f"\n{title}")
    for path, by_client in results.items():
        own = by_client["own"]
        for name, steps in by_client.items():
            ratios = [mine / theirs for mine, theirs in zip(steps, own, strict=True)]
            print(
                f"  {path:<13} {name:<9} {statistics.median(steps) * 1e6:7.1f} µs "
                f"(steps {', '.join(f'{s * 1e6:.1f}' for s in steps)}) "
                f"ratio to own: median {statistics.median(ratios):.2f} "
                f"({', '.join(f'{r:.2f}' for r in ratios)})"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rooms", type=int, default=32, help="rooms committing at once")
    parser.add_argument("--commits", type=int, default=4000, help="commits per step")
    parser.add_argument("--data-bytes", type=int, default=5000, help="a room's data")
    parser.add_argument("--rate", type=float, default=2000.0, help="announcements a second")
    parser.add_argument("--seconds", type=float, default=4.0, help="per announcement step")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-cluster", action="store_true", help="one node only")
    options = parser.parse_args(argv)
    url = os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    print(
        f"redis-py {redis.__version__}; {options.rooms} rooms, {options.data_bytes} B of data, "
        f"{options.commits} commits and {int(options.rate * options.seconds)} announcements "
        f"({options.rate:g}/s) per step, {options.repeats} steps per client in turns"
    )
    report(f"One node ({url})", asyncio.run(measure(url, False, options)))
    if not options.no_cluster:
        problem = cluster_tools_problem()
        if problem is not None:
            print(f"\nCluster skipped: {problem}")
            return 0
        with RedisCluster() as cluster:
            report(
                "Redis Cluster (3 primaries, 3 replicas)",
                asyncio.run(measure(cluster.url, True, options)),
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A room's memory in Redis and the bytes a move sends it: moves appended against whole rooms.

Plays seeded random 4-player advanced games through the room service on the Redis at
``CASH_STASH_BENCH_REDIS_URL`` (default ``redis://127.0.0.1:6379/14``), under a key prefix of
its own deleted afterwards. After each move it takes the room's ``MEMORY USAGE`` as stored (a
snapshot and the moves since, ``app/rooms/moves.py``) and that of the same room stored whole
(its JSON under a key of the same shape: the plain layout the snapshots are measured
against, ``docs/performance.md``, "What a move sends to Redis"), and the room data
the move's commit sent (the move's text, or when a snapshot was due the room's, compressed as
the store writes it) against the room's whole text. Reported per stretch of the game and over
all its moves::

    python bench/room_memory.py --games 3

With ``--levels 1,3,6`` it also times compressing and decompressing the snapshots the games
wrote at each zlib level, and their mean size as the store would write them
(``app/store/snapshots.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import statistics
import sys
import timeit
import uuid
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

import redis.asyncio

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as ``python bench/room_memory.py``: the repository's root

import engine  # noqa: E402
from app.rooms.ai import AiRunner  # noqa: E402
from app.rooms.credentials import hash_token  # noqa: E402
from app.rooms.model import RoomOptions, room_text  # noqa: E402
from app.rooms.recording import FinishedGame  # noqa: E402
from app.rooms.service import RoomService  # noqa: E402
from app.rooms.tables import Tables  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.store import snapshots  # noqa: E402
from app.store.base import Commit  # noqa: E402
from app.store.redis import RedisRoomStore  # noqa: E402

STRETCHES = ((1, 10), (11, 30), (31, 60), (61, 100), (101, 10_000))


class Recorder:
    async def record(self, game: FinishedGame) -> None:
        return None


class SentStore(RedisRoomStore):
    """Keeps the size of the room data each commit sent, and the snapshots' texts."""

    sent: dict[int, tuple[int, bool]]
    snapshots: list[str]

    async def commit(self, commit: Commit) -> bool:
        written = await super().commit(commit)
        if written:
            data = commit.data if commit.step else snapshots.packed(commit.data)
            self.sent[commit.version] = (len(data.encode()), commit.step)
            if not commit.step:
                self.snapshots.append(commit.data)
        return written


async def play(
    url: str, prefix: str, seed: int, written: list[str]
) -> list[tuple[int, int, int, int, int]]:
    """Per move: its number, the room's memory as stored and stored whole, the bytes its
    commit sent and the room's whole text. The snapshots the game wrote go in ``written``."""
    store = SentStore(url, prefix=prefix)
    store.sent, store.snapshots = {}, written
    await store.start()
    settings = Settings(redis_url=url, redis_prefix=prefix)
    service = RoomService(store=store, settings=settings, recorder=Recorder(), ai=AiRunner(0))
    rng = random.Random(seed)
    client = redis.asyncio.Redis.from_url(url)
    rows = []
    try:
        room, host = await Tables(service).create(
            name="Ann", player_id=None, options=RoomOptions(room_name="Bench", seats=4)
        )
        tokens = [host]
        for name in ("Bob", "Cy", "Di"):
            tokens.append((await Tables(service).join(room.code, name=name, player_id=None))[2])
        room = await Tables(service).start(room.code, token=host)
        whole_key = f"{prefix}{{{room.code}}}:whole"
        move = 0
        while room.status == "playing":
            state = room.engine_state()
            seat = engine.to_act(state)[0]
            legal = [a for a in engine.legal_actions(state) if a["seat"] == seat]
            action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
            acted = await service.act(
                room.code,
                token_hash=hash_token(tokens[seat]),
                ref=f"r{move}",
                version=room.version,
                action={key: value for key, value in action.items() if key != "seat"},
            )
            room, move = acted.room, move + 1
            text = room_text(room)
            await client.hset(whole_key, mapping={"v": room.version, "data": text})
            stored = await client.memory_usage(store._room_key(room.code), samples=0)
            whole = await client.memory_usage(whole_key, samples=0)
            sent, _ = store.sent[room.version]
            rows.append((move, int(stored or 0), int(whole or 0), sent, len(text.encode())))
    finally:
        async for key in client.scan_iter(match=f"{prefix}*", count=1000):
            await client.delete(key)
        await client.aclose()
        await store.close()
    return rows


def report_levels(texts: list[str], levels: list[int]) -> None:
    """Per zlib level: the snapshots' mean size as the store would write them (in base64,
    after its marker), and the best of five timings of compressing and decompressing one."""
    raw = [text.encode() for text in texts]
    json_bytes = statistics.mean(map(len, raw))
    print(f"{len(raw)} snapshots, {json_bytes:.0f} B of JSON on average")
    print("level  stored B  of JSON  compress us  decompress us")
    for level in levels:
        packed = [zlib.compress(data, level) for data in raw]
        stored = statistics.mean(
            len(snapshots.COMPRESSED) + len(base64.b64encode(data)) for data in packed
        )
        compress = _microseconds(partial(_compress_all, raw, level), len(raw))
        decompress = _microseconds(partial(_decompress_all, packed), len(raw))
        print(
            f"{level:5}  {stored:8.0f}  {stored / json_bytes:7.3f}"
            f"  {compress:11.0f}  {decompress:13.0f}"
        )


def _compress_all(raw: list[bytes], level: int) -> None:
    for data in raw:
        zlib.compress(data, level)


def _decompress_all(packed: list[bytes]) -> None:
    for data in packed:
        zlib.decompress(data)


def _microseconds(work: Callable[[], None], count: int) -> float:
    """The best of five timings of ``work``, per one of the ``count`` snapshots it handles."""
    rounds = max(1, 2000 // count)
    return min(timeit.repeat(work, number=rounds, repeat=5)) / rounds / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--levels", help="zlib levels to time on the games' snapshots: 1,3,6")
    args = parser.parse_args()
    url = os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    rows = []
    written: list[str] = []
    for game in range(args.games):
        prefix = f"bench_memory_{uuid.uuid4().hex[:6]}:"
        rows.extend(asyncio.run(play(url, prefix, args.seed + game, written)))
    print(f"{args.games} games, {len(rows)} moves; means per stretch of the game")
    print("moves     room KiB: appended  whole   ratio   sent B per move: appended  whole")
    for first, last in (*STRETCHES, (1, 10_000)):
        here = [row for row in rows if first <= row[0] <= last]
        if not here:
            continue
        name = (
            "all"
            if (first, last) == (1, 10_000)
            else f"{first}-{min(last, max(r[0] for r in here))}"
        )
        stored = statistics.median(row[1] for row in here) / 1024
        whole = statistics.median(row[2] for row in here) / 1024
        sent = statistics.mean(row[3] for row in here)
        sent_whole = statistics.mean(row[4] for row in here)
        print(
            f"{name:>8}  {stored:18.1f}  {whole:5.1f}  {stored / whole:6.2f}"
            f"  {sent:24.0f}  {sent_whole:5.0f}"
        )
    if args.levels:
        report_levels(written, [int(level) for level in args.levels.split(",")])


if __name__ == "__main__":
    main()

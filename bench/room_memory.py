"""A room's memory in Redis and the bytes a move sends it: moves appended against whole rooms.

Plays seeded random 4-player advanced games through the room service on the Redis at
``CASH_STASH_BENCH_REDIS_URL`` (default ``redis://127.0.0.1:6379/14``), under a key prefix of
its own deleted afterwards. After each move it takes the room's ``MEMORY USAGE`` as stored (a
snapshot and the moves since, ``app/rooms/moves.py``) and that of the same room stored whole,
as the release before did (its JSON under a key of the same shape), and the bytes the move's
commit sent (the move's text, or the room's when a snapshot was due) against the room's whole
text. Reported per stretch of the game and over all its moves::

    python bench/room_memory.py --games 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import uuid
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
from app.settings import Settings  # noqa: E402
from app.store.base import Commit  # noqa: E402
from app.store.redis import RedisRoomStore  # noqa: E402

STRETCHES = ((1, 10), (11, 30), (31, 60), (61, 100), (101, 10_000))


class Recorder:
    async def record(self, game: FinishedGame) -> None:
        return None


class SentStore(RedisRoomStore):
    """Keeps the size of what each commit sent."""

    sent: dict[int, tuple[int, bool]]

    async def commit(self, commit: Commit) -> bool:
        written = await super().commit(commit)
        if written:
            self.sent[commit.version] = (len(commit.data.encode()), commit.step)
        return written


async def play(url: str, prefix: str, seed: int) -> list[tuple[int, int, int, int, int]]:
    """Per move: its number, the room's memory as stored and stored whole, the bytes its
    commit sent and the room's whole text."""
    store = SentStore(url, prefix=prefix)
    store.sent = {}
    await store.start()
    settings = Settings(redis_url=url, redis_prefix=prefix)
    service = RoomService(store=store, settings=settings, recorder=Recorder(), ai=AiRunner(0))
    rng = random.Random(seed)
    client = redis.asyncio.Redis.from_url(url)
    rows = []
    try:
        room, host = await service.create(
            name="Ann", player_id=None, options=RoomOptions(room_name="Bench", seats=4)
        )
        tokens = [host]
        for name in ("Bob", "Cy", "Di"):
            tokens.append((await service.join(room.code, name=name, player_id=None))[1])
        room = await service.start(room.code, token=host)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    url = os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    rows = []
    for game in range(args.games):
        prefix = f"bench_memory_{uuid.uuid4().hex[:6]}:"
        rows.extend(asyncio.run(play(url, prefix, args.seed + game)))
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


if __name__ == "__main__":
    main()

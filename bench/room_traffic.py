"""What a whole game of people sends Redis per move: commands (those run inside scripts
counted, as Redis counts them) and bytes in.

Plays seeded random four-seat games of people from the deal to the end through the room
service on a Redis of the run's own (``bench/load_redis.py``: a ``redis-server`` started for
the run, or ``--cluster`` the local Redis Cluster of six nodes), so that every node's ``INFO``
counts this game's traffic and nothing else's. The counters are read before the first move and
after the last; what the reading itself costs (two reads with nothing between) is taken off.
Reported per game and over all of them, with the commands by name::

    python bench/room_traffic.py --games 5
    python bench/room_traffic.py --games 3 --cluster
    python bench/room_traffic.py --games 3 --cluster --turn-based

Its people are never connected, so a live table's clocks wait and a move in play seldom moves
the room's wake time; a turn-based table's clock runs with nobody here, and each turn moves it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as ``python bench/room_traffic.py``: the repository's root

import engine  # noqa: E402
from app.rooms.ai import AiRunner  # noqa: E402
from app.rooms.credentials import hash_token  # noqa: E402
from app.rooms.model import RoomMode, RoomOptions  # noqa: E402
from app.rooms.recording import FinishedGame  # noqa: E402
from app.rooms.service import RoomService  # noqa: E402
from app.rooms.tables import Tables  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.store.redis import RedisRoomStore  # noqa: E402
from bench.load_redis import Backing, RedisStep, redis_counters, redis_for_run  # noqa: E402
from bench.load_redis import redis_step as step_of  # noqa: E402


class Recorder:
    async def record(self, game: FinishedGame) -> None:
        return None


def _difference(a: RedisStep, b: RedisStep) -> RedisStep:
    """``a`` less ``b``, both per one move."""
    names = set(a.commands) | set(b.commands)
    return RedisStep(
        commands={n: a.commands.get(n, 0.0) - b.commands.get(n, 0.0) for n in names},
        bytes_in=a.bytes_in - b.bytes_in,
        bytes_out=a.bytes_out - b.bytes_out,
        replicated=a.replicated - b.replicated,
        cpu_share=0.0,
    )


async def play(backing: Backing, seed: int, mode: RoomMode) -> tuple[int, RedisStep]:
    """One game from the deal to its end: its moves, and Redis's work per move."""
    prefix = f"bench_traffic_{seed}:"
    store = RedisRoomStore(backing.url, prefix=prefix, cluster=backing.cluster)
    await store.start()
    settings = Settings(redis_url=backing.url, redis_prefix=prefix, redis_cluster=backing.cluster)
    service = RoomService(store=store, settings=settings, recorder=Recorder(), ai=AiRunner(0))
    rng = random.Random(seed)
    try:
        room, host = await Tables(service).create(
            name="Ann",
            player_id=None,
            options=RoomOptions(room_name="Bench", seats=4, mode=mode),
        )
        tokens = [host]
        for name in ("Bob", "Cy", "Di"):
            tokens.append((await Tables(service).join(room.code, name=name, player_id=None))[2])
        room = await Tables(service).start(room.code, token=host)
        idle_before = redis_counters(backing.nodes)
        before = redis_counters(backing.nodes)
        moves = 0
        while room.status == "playing":
            state = room.engine_state()
            seat = engine.to_act(state)[0]
            legal = [a for a in engine.legal_actions(state) if a["seat"] == seat]
            action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
            acted = await service.act(
                room.code,
                token_hash=hash_token(tokens[seat]),
                ref=f"r{moves}",
                version=room.version,
                action={key: value for key, value in action.items() if key != "seat"},
            )
            room, moves = acted.room, moves + 1
        after = redis_counters(backing.nodes)
    finally:
        await store.close()
    per_move = step_of(before, after, moves, 1.0)
    idle_per_move = step_of(idle_before, before, moves, 1.0)
    return moves, _difference(per_move, idle_per_move)


def _line(name: str, moves: int, step: RedisStep) -> str:
    commands = sum(step.commands.values())
    return f"{name:>6}  {moves:5}  {commands:8.2f}  {step.bytes_in:8.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--cluster", action="store_true", help="a local Redis Cluster")
    parser.add_argument("--turn-based", action="store_true", help="turn-based tables")
    args = parser.parse_args()
    results: list[tuple[int, RedisStep]] = []
    with redis_for_run(args) as backing:
        for game in range(args.games):
            mode: RoomMode = "turn" if args.turn_based else "live"
            results.append(asyncio.run(play(backing, args.seed + game, mode)))
    print(f"{'game':>6}  {'moves':>5}  {'commands':>8}  {'bytes in':>8}  (per move)")
    for number, (moves, step) in enumerate(results, 1):
        print(_line(str(number), moves, step))
    total_moves = sum(moves for moves, _ in results)
    commands: dict[str, float] = {}
    for moves, step in results:
        for name, calls in step.commands.items():
            commands[name] = commands.get(name, 0.0) + calls * moves / total_moves
    bytes_in = sum(step.bytes_in * moves / total_moves for moves, step in results)
    all_games = RedisStep(commands, bytes_in, 0.0, 0.0, 0.0)
    print(_line("all", total_moves, all_games))
    print("commands per move, by name:")
    for name, calls in sorted(all_games.commands.items(), key=lambda item: -item[1]):
        if calls >= 0.005:
            print(f"  {name:16} {calls:6.2f}")


if __name__ == "__main__":
    main()

"""Move cost: the server's own work for one move, early and late in a game, without a network.

Plays a seeded random 4-player advanced game through the room layer and, at a few points,
times what the server does for each move: apply it to the room (``play.apply``: the engine,
the room copy and the state's text), what the store is sent (the room's text, or the move's:
``play.Move.text``), what a process that holds the room does with a move another made
(replays it) and what it did before moves were appended (read the whole room), and every seat's
``state`` message as sent to a connection that was sent the version before (views, legal and
blocked actions, JSON; the log entries of that one move). The sizes are seat 0's state as
sent then and as sent whole (a connection's first, with the whole log). Medians of
``--repeats`` runs of ``--loops`` each::

    python bench/moves.py --at 5,40,80

``--cold MB`` writes a byte in every cache line of that many megabytes before each call (not
timed), as other work between two moves of a server leaves the caches: each call then starts
with its data and the interpreter's out of them, as a move in a server does.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The project, not this folder's engine.py, is what ``import engine`` must find.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from app.rooms import lobby, play  # noqa: E402
from app.rooms.model import (  # noqa: E402
    Room,
    RoomOptions,
    Seat,
    load_engine_state,
    room_of_text,
    room_text,
)
from app.rooms.play import Move, replay  # noqa: E402
from app.transport.deflate import SharedCompression  # noqa: E402
from app.ws.snapshot import LogMark, Snapshot  # noqa: E402


def started(seed: int) -> Room:
    host = Seat(name="Ann", token_hash="a" * 64)
    room = lobby.new_room(
        code="ABCDE", options=RoomOptions(room_name="Bench", seats=4), host=host, now=1.0
    )
    for number in range(1, 4):
        room, _ = lobby.take_seat(room, Seat(name=f"P{number}", token_hash=str(number) * 64))
    return play.start(room, seed=seed, game_id="bench", now=1.0)


CACHE_LINE = 64


def micros(
    work: Callable[[], object], loops: int, repeats: int, cold: bytearray | None = None
) -> float:
    """Median over ``repeats`` of the mean time of one call, in microseconds; with ``cold``,
    each call timed alone after a write to every cache line of ``cold``."""
    runs = []
    for _ in range(repeats):
        spent = 0.0
        for _ in range(loops):
            if cold is not None:
                for line in range(0, len(cold), CACHE_LINE):
                    cold[line] ^= 1
            started_at = time.perf_counter()
            work()
            spent += time.perf_counter() - started_at
        runs.append(spent / loops * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", default="5,40,80", help="moves into the game to measure at")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--loops", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--cold", type=int, default=0, metavar="MB", help="evict the caches before each call"
    )
    args = parser.parse_args()
    cold = bytearray(args.cold * 2**20) if args.cold else None
    points = sorted(int(point) for point in args.at.split(","))
    room, rng, moves = started(args.seed), random.Random(args.seed), 0
    previous = room
    compression = SharedCompression()
    print(
        "move  room KB  state KB  whole KB  apply us  room JSON us  move JSON us"
        "  replay us  read room us  decode state us  4 seats' states us"
    )
    while room.status == "playing" and points:
        state = room.engine_state()
        legal = engine.legal_actions(state)
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        if moves == points[0]:
            points.pop(0)
            before = room
            assert before.game is not None
            text = before.game.state

            def apply(before: Room = before, action: dict[str, Any] = action) -> Room:
                seat = action["seat"]
                return play.apply(before, seat=seat, action=action, now=2.0, mover="player")

            def decode(text: str = text) -> Any:
                return load_engine_state(text)

            def stored(before: Room = before) -> str:
                return room_text(before)

            move = Move(action["seat"], action, "player", None, 2.0)
            after = move.apply(before)
            after.version = before.version + 1
            after_text = room_text(after)

            def move_text(move: Move = move) -> str:
                return move.text(ai_pause=1.0)

            def replayed(before: Room = before, text: str = move_text()) -> Room:
                return replay(before, text)

            def read_room(text: str = after_text) -> Any:
                room = room_of_text(text)
                assert room.game is not None
                return load_engine_state(room.game.state)

            sent = Snapshot(previous)
            marks = [state[1] if (state := sent.state_text(seat)) else None for seat in range(4)]

            def states(
                before: Room = before, marks: list[LogMark | None] = marks
            ) -> list[tuple[bytes, LogMark] | None]:
                # Told to a compression as the server's are, for the same work.
                snapshot = Snapshot(before, compression)
                return [snapshot.state_text(seat, marks[seat]) for seat in range(4)]

            state = Snapshot(before).state_text(0, marks[0])
            whole = Snapshot(before).state_text(0)
            assert state is not None and whole is not None
            print(
                f"{moves:4d}  {len(stored()) / 1024:7.1f}"
                f"  {len(state[0]) / 1024:8.1f}  {len(whole[0]) / 1024:8.1f}"
                f"  {micros(apply, args.loops, args.repeats, cold):8.0f}"
                f"  {micros(stored, args.loops, args.repeats, cold):12.0f}"
                f"  {micros(move_text, args.loops, args.repeats, cold):12.0f}"
                f"  {micros(replayed, args.loops, args.repeats, cold):9.0f}"
                f"  {micros(read_room, args.loops, args.repeats, cold):12.0f}"
                f"  {micros(decode, args.loops, args.repeats, cold):15.0f}"
                f"  {micros(states, args.loops, args.repeats, cold):18.0f}"
            )
        previous = room
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1
        moves += 1
    if points:
        print(f"(the game ended after {moves} moves)")


if __name__ == "__main__":
    main()

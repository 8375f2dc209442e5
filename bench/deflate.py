"""Deflate: what compressing a move's states costs, and what it saves, at each zlib level.

Plays seeded random 4-player advanced games through the room layer and, at every move, renders
each seat's ``state`` as a connection that was sent the version before gets it
(``Snapshot.state_text``), then compresses those four texts as the server does
(``app/transport/deflate.py``: each text's pieces on their own, the tail they share once) at
every level asked for. Reports, per level, the CPU time of compressing one move's states
(the median over ``--repeats`` passes over all the games' moves) and the mean bytes of a state
on the wire, against the server's level. The server's choice is a trade of its cores against
players' bytes (``docs/scaling.md``: the bytes are most of the bill)::

    python bench/deflate.py --games 3 --levels 1,3,6,9

``--compare`` instead compresses every move at the server's level with zlib-ng (what the server
uses) and with the standard library's zlib, in turns, and reports each one's time and bytes
and the median ratio of the pairs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

# The project, not this folder's engine.py, is what ``import engine`` must find.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from app.rooms import play  # noqa: E402
from app.transport import deflate  # noqa: E402
from app.ws.snapshot import LogMark, Snapshot  # noqa: E402
from bench.moves import started  # noqa: E402

MAX_GAMES = 20
MAX_REPEATS = 15


def moves_pieces(games: int) -> list[list[tuple[bytes, ...]]]:
    """Every move's four states, each as the pieces the server compresses one by one (a piece
    shared by several states is the same object in each)."""
    moves: list[list[tuple[bytes, ...]]] = []
    compression = deflate.SharedCompression()
    for seed in range(1, games + 1):
        room, rng = started(seed), random.Random(seed)
        marks: list[LogMark | None] = [None] * 4
        while room.status == "playing":
            legal = engine.legal_actions(room.engine_state())
            action = rng.choice([each for each in legal if each["type"] != "concede"] or legal)
            room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
            room.version += 1
            snapshot = Snapshot(room, compression)
            states = []
            for seat in range(4):
                rendered = snapshot.state_text(seat, marks[seat])
                assert rendered is not None
                text, marks[seat] = rendered
                states.append(compression.pieces_of(text) or (text,))
            moves.append(states)
    return moves


def stdlib_compressed(data: bytes, level: int) -> bytes:
    """``deflate._compressed`` by the standard library's zlib: the same settings."""
    encoder = zlib.compressobj(level, wbits=-deflate.WINDOW_BITS, memLevel=deflate._MEM_LEVEL)
    return encoder.compress(data) + encoder.flush(zlib.Z_SYNC_FLUSH)


def compress_move(
    states: list[tuple[bytes, ...]],
    level: int,
    compress: Callable[[bytes, int], bytes] = deflate._compressed,
) -> int:
    """Compress one move's states as the server does, at ``level``; their bytes on the wire."""
    done: dict[int, bytes] = {}
    size = 0
    for pieces in states:
        for piece in pieces:
            compressed = done.get(id(piece))
            if compressed is None:
                compressed = done[id(piece)] = compress(piece, level)
            size += len(compressed)
        size -= 4  # the empty block that ends the last sync flush is not sent
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--levels", default="1,3,6,9", help="zlib levels, 1-9")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--compare", action="store_true", help="zlib-ng against the standard library's zlib"
    )
    args = parser.parse_args()
    levels = sorted({int(level) for level in args.levels.split(",")} | {deflate.LEVEL})
    if not 1 <= args.games <= MAX_GAMES or not 1 <= args.repeats <= MAX_REPEATS:
        raise SystemExit(f"keep to 1-{MAX_GAMES} games and 1-{MAX_REPEATS} repeats")
    if not all(1 <= level <= 9 for level in levels):
        raise SystemExit("zlib levels are 1-9")
    moves = moves_pieces(args.games)
    if args.compare:
        compare(moves, args.repeats)
        return
    results: dict[int, tuple[float, float]] = {}
    for level in levels:
        passes = []
        for _ in range(args.repeats):
            started_at = time.process_time()
            size = sum(compress_move(states, level) for states in moves)
            passes.append((time.process_time() - started_at) / len(moves))
        results[level] = (statistics.median(passes) * 1e6, size / len(moves) / 4)
    ours_us, ours_bytes = results[deflate.LEVEL]
    print(
        f"{len(moves)} moves of {args.games} 4-player games; the server's level is {deflate.LEVEL}"
    )
    print("level  us per move  vs server  B per state  vs server")
    for level, (micros, size) in results.items():
        print(
            f"{level:5d}  {micros:11.1f}  {micros / ours_us - 1:+9.0%}"
            f"  {size:11.0f}  {size / ours_bytes - 1:+9.0%}"
        )


def compare(moves: list[list[tuple[bytes, ...]]], repeats: int) -> None:
    """Each move at the server's level by zlib-ng and by the standard library, in turns."""
    compressors = {"zlib-ng": deflate._compressed, "zlib": stdlib_compressed}
    passes: dict[str, list[float]] = {name: [] for name in compressors}
    sizes: dict[str, int] = {}
    for _ in range(repeats):
        for name, compress in compressors.items():
            started_at = time.process_time()
            sizes[name] = sum(compress_move(states, deflate.LEVEL, compress) for states in moves)
            passes[name].append((time.process_time() - started_at) / len(moves))
    print(f"{len(moves)} moves of 4-player games at level {deflate.LEVEL}, {repeats} passes each")
    print("compressor  us per move  B per state")
    for name in compressors:
        micros = statistics.median(passes[name]) * 1e6
        print(f"{name:10}  {micros:11.1f}  {sizes[name] / len(moves) / 4:11.0f}")
    ratio = statistics.median(
        ng / std for ng, std in zip(passes["zlib-ng"], passes["zlib"], strict=True)
    )
    print(f"zlib-ng / zlib, median of the pairs: {ratio:.2f}")


if __name__ == "__main__":
    main()

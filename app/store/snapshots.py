"""A room's snapshot as Redis stores it: its JSON compressed, as text.

A snapshot is the room's whole JSON (5-20 KB, most of it the game's log) and the biggest share
of the bytes a move sends Redis; zlib makes it a fifth of that. Level 3 is the smallest of
zlib's fast levels (1-3) for the same CPU, about 50 µs a snapshot against 90 µs at level 6
for a tenth fewer bytes (``bench/room_memory.py --levels``; ``docs/performance.md``, "What a
move sends to Redis"). The compressed bytes go in base64: the store's client reads every
reply as UTF-8 text (``app/resp/connection.py``), and a third more bytes on a fifth of the JSON
still pays.
A move (120-250 B, ``app/rooms/moves.py``) is stored as it is: compressed and in base64 it
would come out no smaller.

Only the store's own process reads a snapshot: the scripts in Redis pass it through whole."""

from __future__ import annotations

import base64
import zlib

COMPRESSED = "zlib:"
"""What a snapshot starts with: anything else in its place was not written by the store."""
LEVEL = 3


def packed(text: str) -> str:
    """The snapshot ``text`` (the room's JSON) as the store writes it."""
    compressed = zlib.compress(text.encode(), LEVEL)
    return COMPRESSED + base64.b64encode(compressed).decode("ascii")


def unpacked(stored: str) -> str:
    """The room's JSON from a snapshot as the store holds it (``ValueError`` for anything
    the store did not write)."""
    if not stored.startswith(COMPRESSED):
        raise ValueError("a stored room's snapshot is not one the store wrote")
    return zlib.decompress(base64.b64decode(stored[len(COMPRESSED) :])).decode()

"""A room's snapshot as Redis stores it (``app/store/snapshots.py``): compressed, and read back
as the very text it was made from; anything else in its place is refused."""

from __future__ import annotations

import pytest

from app.rooms.model import Seat, room_text
from app.store import snapshots
from tests.app.tables import people, started_room


def _room_text() -> str:
    """A room with its game dealt, a name beyond ASCII at its table."""
    seats = [Seat(name="Zoë 李", token_hash="a" * 64), *people(4)[1:]]
    return room_text(started_room(seats, seed=7))


def test_a_compressed_snapshot_reads_back_as_the_rooms_text() -> None:
    text = _room_text()
    stored = snapshots.packed(text)
    assert stored.startswith(snapshots.COMPRESSED)
    assert stored.isascii(), "text, as the store's client reads every reply"
    assert len(stored) < len(text.encode())
    assert snapshots.unpacked(stored) == text


def test_a_snapshot_the_store_did_not_write_is_refused() -> None:
    text = _room_text()
    assert not text.startswith(snapshots.COMPRESSED), "a room's JSON starts with {"
    with pytest.raises(ValueError, match="not one the store wrote"):
        snapshots.unpacked(text)

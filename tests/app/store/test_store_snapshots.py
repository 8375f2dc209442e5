"""A room's snapshot as Redis stores it (``app/store/snapshots.py``): compressed, and read back
as the very text it was made from; one stored before snapshots were compressed reads as is."""

from __future__ import annotations

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


def test_a_snapshot_stored_before_compression_reads_as_it_is() -> None:
    text = _room_text()
    assert not text.startswith(snapshots.COMPRESSED), "a room's JSON starts with {"
    assert snapshots.unpacked(text) == text

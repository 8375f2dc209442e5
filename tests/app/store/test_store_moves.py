"""A room stored as a snapshot and the moves since: every reader makes the very room the mover
made, whether it holds the room (and replays the new moves on it) or not (and replays them on
the snapshot)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from app.rooms import moves, play
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.model import Room, RoomOptions, room_text
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.base import Commit
from app.store.memory import MemoryRoomStore
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder

MAX_MOVES = 600


class CountingStore(MemoryRoomStore):
    """Counts the commits written, by kind."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.snapshots: list[int] = []
        """The version of each snapshot written."""

    async def commit(self, commit: Commit) -> bool:
        written = await super().commit(commit)
        if written and commit.step:
            self.steps += 1
        elif written:
            self.snapshots.append(commit.version)
        return written


def _service(store: MemoryRoomStore) -> RoomService:
    return RoomService(
        store=store, settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )


def _move(room: Room, turn: int) -> tuple[int, dict[str, Any]]:
    """The seat to act and one of its legal actions (without the seat), varied by ``turn``."""
    state = room.engine_state()
    seat = engine.to_act(state)[0]
    legal = [a for a in engine.legal_actions(state) if a["seat"] == seat]
    action = legal[turn % len(legal)]
    return seat, {key: value for key, value in action.items() if key != "seat"}


async def test_every_reader_makes_the_movers_room_from_the_moves_appended() -> None:
    store = CountingStore()
    movers = [_service(store), _service(store)]
    follower = _service(store)
    """Holds the room and reads each new move as a process serving the room would."""
    room, host = await Tables(movers[0]).create(
        name="Ann",
        player_id=None,
        options=RoomOptions(room_name="Moves", seats=3, turn_seconds=60, rounds=3),
    )
    tokens = [host]
    for name in ("Bob", "Cy"):
        tokens.append((await Tables(movers[0]).join(room.code, name=name, player_id=None))[2])
    await Tables(movers[0]).start(room.code, token=host)
    first = store.steps
    latest = await follower.load(room.code)
    assert latest is not None
    for turn in range(MAX_MOVES):
        if latest.status != "playing":
            break
        seat, action = _move(latest, turn)
        acted = await movers[turn % 2].act(  # the two processes in turns: each holds a stale copy
            room.code,
            token_hash=hash_token(tokens[seat]),
            ref=f"r{turn}",
            version=latest.version,
            action=action,
        )
        assert not acted.repeated
        followed = await follower.load(room.code)
        cold = await _service(store).load(room.code)
        assert followed is not None and cold is not None
        assert room_text(followed) == room_text(acted.room), f"held copy at move {turn}"
        assert room_text(cold) == room_text(acted.room), f"snapshot and moves at move {turn}"
        latest = acted.room
    assert latest.status == "finished", "the game ends"
    assert store.steps - first > 0.8 * (latest.version - 1), "most moves are appended"
    last_snapshot = 0
    for version in store.snapshots:
        assert version - last_snapshot <= moves.SNAPSHOT_EVERY
        last_snapshot = version
    assert store.snapshots[-1] == latest.version, "the game's end is a snapshot"


def test_a_move_the_clock_made_replays_with_its_stand_in_lines_and_clocks() -> None:
    """The clock's move hands a seat to the AI after two timeouts: the log lines, the seat's
    count and the next deadline come out the same when the move is replayed."""
    from app.rooms.model import Seat

    room = Room(
        code="CLOCKS01",
        options=RoomOptions(room_name="Clocks", seats=2, turn_seconds=30),
        seats=[Seat(name="Ann", token_hash="a"), Seat(name="Bob", token_hash="b")],
        created_at=1.0,
    )
    room = play.start(room, seed=5, game_id="g", now=10.0)
    room.version = 4
    for turn, mover in enumerate(("clock", "clock", "player", "ai")):
        seat, action = _move(room, turn)
        move = play.Move(seat, action, mover, None, 20.0 + turn)
        made = move.apply(room)
        made.version = made.game_version = room.version + 1
        play.schedule(made, now=move.now, ai_pause=0.5)
        replayed = play.replay(room, move.text(ai_pause=0.5))
        assert room_text(replayed) == room_text(made)
        room = made
    assert "away" in room.game.log if room.game is not None else False


async def test_a_copy_held_from_before_a_failover_is_read_again_whole() -> None:
    """A failover can lose a process's acknowledged commit while another process goes on from
    the version before it: the moves after the lost version do not apply to the copy that
    process holds. Once its subscription says events were missed, it reads the room whole."""
    import copy

    store = MemoryRoomStore()
    lost, other = _service(store), _service(store)
    room, host = await Tables(lost).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Lost", seats=2)
    )
    _, _, guest = await Tables(lost).join(room.code, name="Bob", player_id=None)
    tokens = [host, guest]
    room = await Tables(lost).start(room.code, token=host)
    before = copy.deepcopy(store._rooms[room.code])

    async def act(service: RoomService, room: Room, turn: int) -> Room:
        seat, action = _move(room, turn)
        token_hash = hash_token(tokens[seat])
        ref = f"r{turn}"
        acted = await service.act(
            room.code, token_hash=token_hash, ref=ref, version=room.version, action=action
        )
        return acted.room

    held = await act(lost, room, 0)
    store._rooms[room.code] = before  # the failover: the commit above is gone
    latest = await act(other, room, 1)
    latest = await act(other, latest, 2)
    assert room_text(held) != room_text(room) and held.version == room.version + 1
    lost.distrust(room.code)
    read = await lost.load(room.code)
    assert read is not None and room_text(read) == room_text(latest)


async def test_moves_that_do_not_apply_to_the_held_copy_have_the_room_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = MemoryRoomStore()
    holder, other = _service(store), _service(store)
    room, host = await Tables(holder).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Held", seats=2)
    )
    _, _, guest = await Tables(holder).join(room.code, name="Bob", player_id=None)
    held = await Tables(holder).start(room.code, token=host)
    seat, action = _move(held, 0)
    acted = await other.act(
        room.code,
        token_hash=hash_token([host, guest][seat]),
        ref="r",
        version=held.version,
        action=action,
    )
    replay = play.replay

    def refused_on_the_held_copy(room: Room, text: str) -> Room:
        if room is held:
            raise ValueError("not this room's move")
        return replay(room, text)

    monkeypatch.setattr(play, "replay", refused_on_the_held_copy)
    read = await holder.load(room.code)
    assert read is not None and room_text(read) == room_text(acted.room)

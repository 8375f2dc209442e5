"""The rules of a turn-based table (``RoomOptions.mode == "turn"``): its options, its clock,
which plays one late move at a time and never takes the seat, and a game that goes on with
nobody connected."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app.rooms import lobby, play
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.due import DueWork
from app.rooms.errors import RoomError
from app.rooms.model import RoomOptions, Seat
from app.rooms.public import room_listing
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.base import RoomStore
from tests.app.clock import Clock
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder
from tests.app.tables import people, started_room
from tests.app.turn_play import challenged, chosen, legal_for, played_until

HOUR = 3600


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch, now=1_800_000_000.0)


class LevelsAsked(AiRunner):
    """The AI workers (threads), noting the level each decision was asked of."""

    def __init__(self) -> None:
        super().__init__(0)
        self.levels: list[str] = []

    async def decide(
        self, level: str, view: dict[str, Any], legal: list[dict[str, Any]], seed: int
    ) -> dict[str, Any]:
        self.levels.append(level)
        return await super().decide(level, view, legal, seed)


def service_on(store: RoomStore, ai: AiRunner | None = None, **settings: Any) -> RoomService:
    return RoomService(
        store=store,
        settings=base_settings(**settings),
        recorder=ListRecorder(),
        ai=ai or AiRunner(0),
    )


def turn_options(**options: Any) -> RoomOptions:
    return RoomOptions(room_name="Table", mode="turn", **options)


def test_a_turn_based_table_may_go_without_a_time_limit_only_in_private() -> None:
    lobby.check_options(turn_options(move_seconds=None))
    with pytest.raises(RoomError) as refused:
        lobby.check_options(turn_options(move_seconds=None, visibility="public"))
    assert refused.value.code == "move_limit_needed" and refused.value.status == 422
    lobby.check_options(turn_options(move_seconds=HOUR, visibility="public"))
    lobby.check_options(RoomOptions(room_name="Live", visibility="public", move_seconds=None))


def test_a_public_turn_based_table_lists_its_mode_and_time_to_move() -> None:
    host = Seat(name="Ann", token_hash="a" * 64)
    room = lobby.new_room(
        code="ABCDE",
        options=turn_options(visibility="public", move_seconds=28_800),
        host=host,
        now=1.0,
    )
    listing = room_listing(room)
    assert listing is not None
    entry = orjson.loads(listing)
    assert entry["mode"] == "turn" and entry["move_seconds"] == 28_800


def test_the_clock_plays_each_late_move_and_never_takes_a_turn_based_seat() -> None:
    """At a live table two timeouts in a row hand the seat to the AI; at a turn-based one,
    however many there are, the seat stays its person's, who plays it when back."""
    rng = random.Random(7)
    for mode, away_after in (("live", 2), ("turn", None)):
        room = started_room(people(2), seed=11, mode=mode, move_seconds=HOUR)
        assert room.game is not None
        timeouts = 0
        while timeouts < 6 and room.status == "playing":
            seat = room.game.to_act[0]
            room = play.apply(
                room, seat=seat, action=rng.choice(legal_for(room, seat)), now=2.0, mover="clock"
            )
            assert room.game is not None
            timeouts = max(s.timeouts for s in room.seats if s is not None)
            away = [s.away for s in room.seats if s is not None]
            if away_after is not None and timeouts >= away_after:
                assert any(away), "a live table hands the seat to the AI"
                break
            assert not any(away), f"{mode}: a seat was handed to the AI"
        assert timeouts >= 2
        if mode == "turn":
            seat = room.game.to_act[0]
            back = play.apply(
                room, seat=seat, action=legal_for(room, seat)[0], now=3.0, mover="player"
            )
            player = back.seats[seat]
            assert player is not None and player.timeouts == 0 and not player.away


def test_a_challenges_answer_gets_the_time_to_move() -> None:
    room = started_room(people(3), seed=5, mode="turn", move_seconds=28_800)
    room = played_until(room, lambda r: challenged(r) is not None, rng=random.Random(3), now=50.0)
    assert room.game is not None
    assert room.game.deadline == 50.0 + 28_800, "the defender has the whole time to move"


def test_no_time_limit_leaves_a_turn_based_game_waiting_for_its_person() -> None:
    room = started_room(people(2), seed=5, mode="turn", move_seconds=None)
    assert room.game is not None
    play.schedule(room, now=10.0, ai_pause=0.8)
    assert room.game.deadline is None
    assert room.wake_at(600.0, 600.0) is None


async def test_the_clock_plays_a_late_persons_move_with_the_fair_ai_at_the_deadline(
    store: RoomStore, clock: Clock
) -> None:
    ai = LevelsAsked()
    service = service_on(store, ai, timeout_level="easy", disconnect_grace_seconds=0.0)
    room, ann = await Tables(service).create(
        name="Ann", player_id=None, options=turn_options(seats=2, move_seconds=HOUR)
    )
    _, _, bea = await Tables(service).join(room.code, name="Bea", player_id=None)
    await Tables(service).start(room.code, token=ann)
    dealt = await service.load(room.code)
    assert dealt is not None and dealt.game is not None
    late = dealt.game.to_act[0]
    assert dealt.game.deadline == clock.now + HOUR

    clock.advance(HOUR - 1)
    assert (await DueWork(service).wake(room.code)).room is None, "not due yet"
    clock.advance(1)
    woken = await DueWork(service).wake(room.code)
    assert woken.room is not None and woken.room.game is not None
    assert ai.levels == ["easy"], "the fair AI (timeout_level) played the late move"
    log = orjson.loads(woken.room.game.log)
    assert any(e.get("event") == "timeout" and e.get("seat") == late for e in log)
    player = woken.room.seats[late]
    assert player is not None and player.timeouts == 1 and not player.away

    # Back, the person plays their own seat when it is theirs to play again (the other's
    # late moves are played at their deadlines meanwhile).
    token = (ann, bea)[late]
    await service.set_presence(room.code, hash_token(token), connected=True)
    latest = await service.load(room.code)
    assert latest is not None and latest.game is not None
    while late not in latest.game.to_act:
        assert latest.game.deadline is not None
        clock.advance(latest.game.deadline - clock.now)
        woken = await DueWork(service).wake(room.code)
        assert woken.room is not None and woken.room.game is not None
        latest = woken.room
    action = chosen(legal_for(latest, late), random.Random(1))
    acted = await service.act(
        room.code, token_hash=hash_token(token), ref="r1", version=latest.version, action=action
    )
    player = acted.room.seats[late]
    assert not acted.repeated and player is not None
    assert player.timeouts == 0 and not player.away


async def test_nobody_connected_ai_seats_move_after_their_pause_and_nobody_is_marked_away(
    store: RoomStore, clock: Clock
) -> None:
    """With nobody connected, a turn-based game goes on: the AI's seat moves after its pause,
    the person's moves are played at each deadline, and a person who left (their grace long
    spent) is never marked away."""
    service = service_on(store, ai_pause_seconds=30.0, disconnect_grace_seconds=5.0)
    room, ann = await Tables(service).create(
        name="Ann", player_id=None, options=turn_options(seats=2, move_seconds=HOUR)
    )
    await Tables(service).add_bot(room.code, token=ann, level="easy")
    await service.set_presence(room.code, hash_token(ann), connected=True)
    await Tables(service).start(room.code, token=ann)
    await service.set_presence(room.code, hash_token(ann), connected=False)
    ai_moves = clock_moves = 0
    while ai_moves < 3 or clock_moves < 3:
        latest = await service.load(room.code)
        assert latest is not None and latest.game is not None
        assert latest.status == "playing", "the game ended before it was seen going on"
        person = latest.seats[0]
        assert person is not None and not person.away
        ai_turn = 1 in latest.game.to_act
        due = latest.wake_at(5.0, 600.0)
        assert due == (latest.game.ai_due if ai_turn else latest.game.deadline)
        assert due is not None and due > clock.now
        clock.advance(due - clock.now)
        woken = await DueWork(service).wake(room.code)
        assert woken.room is not None, "the due move was made with nobody connected"
        ai_moves += ai_turn
        clock_moves += not ai_turn
    assert service.ttl_of(woken.room) == service.settings.room_ttl_seconds


async def test_a_turn_based_game_in_play_keeps_the_whole_ttl(store: RoomStore) -> None:
    """A live game everybody left expires as soon as a waiting room; a turn-based one is
    played with nobody there and keeps the TTL of a game in play."""
    service = service_on(store, room_ttl_seconds=6 * HOUR, waiting_room_ttl_seconds=1800)
    for mode, ttl in (("live", 1800), ("turn", 6 * HOUR)):
        gone = [seat.model_copy(update={"disconnected_at": 1.0}) for seat in people(2)]
        room = started_room(gone, seed=3, mode=mode)
        assert not room.someone_here()
        assert service.ttl_of(room) == ttl, mode

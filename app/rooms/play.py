"""Game changes: start, apply an action, finish; the clocks that follow every change; and a move
as the store appends it to a room (``Move.text``, ``replay``).

A room in the store is a snapshot of its JSON and the moves committed since (``RoomStore``;
when a snapshot is due: ``app/rooms/moves.py``). A move's text holds what ``apply`` and
``schedule`` were given, so any process holding the room before it makes the same room after
it: the engine is deterministic, and the clocks are set from the moment the move was made, not
from when it is replayed. A move's text holds nothing hidden that the room's snapshot does not
already hold (the seat's own action, by card ids)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import orjson

import engine
from app.rooms.errors import RoomError
from app.rooms.lobby import engine_config
from app.rooms.model import (
    MAX_REMEMBERED_REFS,
    Game,
    Room,
    dump_engine_state,
    extended_log,
    log_text,
)
from app.rooms.recording import FinishedGame, PlayerRecord
from app.rooms.stand_ins import stand_in_entry

Mover = Literal["player", "ai", "clock"]
"""Who made a move: the seat's person, the AI playing the seat, or the clock for a late person."""

AWAY_AFTER_TIMEOUTS = 2
"""A live table's timeouts in a row that hand the seat to the AI until its person is back. A
turn-based table's seat is never handed over: the clock plays each late move at its deadline
and the person plays the next one if they are back by then."""


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's action, as ``apply`` takes it."""

    seat: int
    action: dict[str, Any]
    mover: Mover
    ref: str | int | None
    """The person's ``act`` ref (None for the AI's and the clock's moves)."""
    now: float
    """When it was made: the clocks that follow it and a finished game's end are set from it."""

    def apply(self, room: Room) -> Room:
        return apply(
            room, seat=self.seat, action=self.action, now=self.now, mover=self.mover, ref=self.ref
        )

    def text(self, *, ai_pause: float) -> str:
        """The move as the store appends it, with the AI's pause its clocks were set with."""
        return orjson.dumps(
            {
                "seat": self.seat,
                "action": self.action,
                "mover": self.mover,
                "ref": self.ref,
                "now": self.now,
                "ai_pause": ai_pause,
            }
        ).decode()


def replay(room: Room, text: str) -> Room:
    """The room after the move ``text`` (``Move.text``), made on ``room``, its version before."""
    data = orjson.loads(text)
    move = Move(data["seat"], data["action"], data["mover"], data["ref"], data["now"])
    new = move.apply(room)
    new.version = new.game_version = room.version + 1
    schedule(new, now=move.now, ai_pause=data["ai_pause"])
    return new


def start(room: Room, *, seed: int, game_id: str, now: float) -> Room:
    """Deal a new game to the occupied seats (open seats are dropped, the others close up)."""
    if room.status == "playing":
        raise RoomError("already_started", "The game in this room has already started.")
    room = room.clone()
    seats = [seat for seat in room.seats if seat is not None]
    if len(seats) < 2:
        raise RoomError("not_enough_players", "A game needs at least two players.")
    for seat in seats:
        seat.away = False
        seat.timeouts = 0
        if seat.disconnected_at is not None:
            seat.disconnected_at = now
    room.host = sum(seat is not None for seat in room.seats[: room.host])
    room.seats = list(seats)
    room.options.seats = len(seats)
    config = engine_config(
        room.options, players=len(seats), seed=seed, names=[seat.name for seat in seats]
    )
    try:
        state = engine.new_game(config)
    except engine.InvalidConfig as error:
        raise RoomError(error.code, error.message, status=422) from error
    room.status = "playing"
    room.game = Game(
        id=game_id,
        seed=seed,
        state=dump_engine_state(state),
        log=log_text(engine.log_entries(state)),
        to_act=engine.to_act(state),
        started_at=now,
    )
    room.game.keep_engine_state(state)
    return room


def ref_key(seat: int, ref: str | int) -> str:
    """How a seat's act ref is remembered (JSON keeps ``7`` and ``"7"`` apart)."""
    return f"{seat}:{json.dumps(ref)}"


def remembered(room: Room, seat: int, ref: str | int) -> int | None:
    """The version an earlier act with this ref produced, if it was applied."""
    if room.game is None:
        return None
    return room.game.refs.get(ref_key(seat, ref))


def apply(
    room: Room,
    *,
    seat: int,
    action: dict[str, Any],
    now: float,
    mover: Mover,
    ref: str | int | None = None,
) -> Room:
    """The room after ``seat`` plays ``action``; raises ``engine.IllegalAction`` unchanged."""
    game = room.game
    if room.status != "playing" or game is None:
        raise RoomError("not_playing", "No game is being played in this room.")
    move = {**action, "seat": seat}
    before = room.engine_state()
    state = engine.apply_action(before, move)
    room = room.clone_for_move(seat)
    game = room.game
    player = room.seats[seat]
    assert game is not None and player is not None
    game.actions.append(move)
    if ref is not None:
        game.refs[ref_key(seat, ref)] = room.version + 1
        while len(game.refs) > MAX_REMEMBERED_REFS:
            del game.refs[next(iter(game.refs))]
    # Who made the move, when it was not the seat's person: told before the move it
    # explains; a seat handed to the AI, after it.
    explained: list[dict[str, Any]] = []
    handed: list[dict[str, Any]] = []
    if mover == "player":
        if player.away:
            explained.append(
                stand_in_entry("back", seat=seat, name=player.name, round=before.round)
            )
        player.timeouts = 0
        player.away = False
    elif mover == "clock":
        explained.append(stand_in_entry("timeout", seat=seat, name=player.name, round=before.round))
        player.timeouts += 1
        player.away = room.options.mode == "live" and player.timeouts >= AWAY_AFTER_TIMEOUTS
        if player.away:
            handed.append(stand_in_entry("away", seat=seat, name=player.name, round=state.round))
    game.state = dump_engine_state(state)
    game.log = extended_log(
        game.log, [*explained, *engine.log_entries(state, since=before), *handed]
    )
    game.keep_engine_state(state)
    game.to_act = engine.to_act(state)
    game.deadline = None
    game.ai_due = None
    if engine.is_over(state):
        _finish(room, state, now)
    return room


def _finish(room: Room, state: Any, now: float) -> None:
    game = room.game
    assert game is not None
    result = engine.result(state)
    room.status = "finished"
    game.ended_at = now
    game.to_act = []
    game.winners = list(result["winners"])
    game.totals = list(result["totals"])
    if game.practice:
        return
    players = [
        PlayerRecord(
            seat=index,
            name=seat.name,
            player_id=seat.player_id,
            ai_level=seat.level,
            hints=game.hints[index] if index < len(game.hints) else 0,
        )
        for index, seat in enumerate(room.seats)
        if seat is not None
    ]
    room.unrecorded.append(
        FinishedGame(
            game_id=game.id,
            room_code=room.code,
            config=engine_config(
                room.options,
                players=len(players),
                seed=game.seed,
                names=[player.name for player in players],
            ),
            players=players,
            actions=list(game.actions),
            rounds=[list(scores) for scores in result["rounds"]],
            totals=list(result["totals"]),
            winners=list(result["winners"]),
            started_at=datetime.fromtimestamp(game.started_at, UTC),
            ended_at=datetime.fromtimestamp(now, UTC),
            visibility=room.options.visibility,
        )
    )
    room.record_attempts = 0
    room.next_record_at = now


def schedule(room: Room, *, now: float, ai_pause: float) -> None:
    """Set the clocks for whoever must act now, keeping those already running."""
    game = room.game
    if room.status != "playing" or game is None:
        return
    acting = [room.seats[index] for index in game.to_act]
    if any(seat is not None and seat.played_by_ai for seat in acting):
        game.ai_due = game.ai_due if game.ai_due is not None else now + ai_pause
    else:
        game.ai_due = None
    options = room.options
    turn_seconds = options.move_seconds if options.mode == "turn" else options.turn_seconds
    if turn_seconds is not None and any(
        seat is not None and not seat.played_by_ai for seat in acting
    ):
        game.deadline = game.deadline if game.deadline is not None else now + turn_seconds
    else:
        game.deadline = None

"""Lobby changes: pure functions from a room to the next room, refusing with ``RoomError``."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

import engine
from app.rooms.errors import RoomError
from app.rooms.model import AiLevel, Room, RoomOptions, Seat
from app.rooms.stand_ins import log_stand_in
from app.text import folded_name

_BOT_NAMES = {"easy": "Easy Bot", "medium": "Medium Bot", "hard": "Hard Bot"}


def engine_config(
    options: RoomOptions, *, players: int, seed: int, names: list[str] | None = None
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "players": players,
        "rules": options.rules,
        "draft": options.draft,
        "rounds": options.rounds,
        "seed": seed,
    }
    if names is not None:
        config["names"] = names
    return config


def check_options(options: RoomOptions, *, players: int | None = None) -> None:
    """Refuse options no table may have: a turn-based table with no time to move unless it
    is private (strangers would wait on an absent player for ever); then ask the engine
    whether it can deal a game with them (it is the authority). A live table's
    ``move_seconds`` is not used, so not judged."""
    if options.mode == "turn" and options.move_seconds is None and options.visibility != "private":
        raise RoomError(
            "move_limit_needed",
            "Only a private table may have no time limit to move; choose one for a public table.",
            status=422,
        )
    try:
        engine.new_game(engine_config(options, players=players or options.seats, seed=0))
    except engine.InvalidConfig as error:
        raise RoomError(error.code, error.message, status=422) from error


def new_room(*, code: str, options: RoomOptions, host: Seat, now: float) -> Room:
    check_options(options)
    seats: list[Seat | None] = [host, *([None] * (options.seats - 1))]
    return Room(code=code, options=options, seats=seats, created_at=now)


def _waiting(room: Room) -> Room:
    if room.status != "waiting":
        raise RoomError("already_started", "The game in this room has already started.")
    return room.clone()


def _free_seat(room: Room) -> int:
    for index, seat in enumerate(room.seats):
        if seat is None:
            return index
    raise RoomError("room_full", "Every seat in this room is taken.")


def take_seat(room: Room, seat: Seat) -> tuple[Room, int]:
    """Seat a person or an AI in the first open seat. A person's name must not look like
    another seat's (``folded_name``): "Host" and "Host\u200b" cannot both sit."""
    room = _waiting(room)
    if not seat.is_ai:
        folded = folded_name(seat.name)
        if any(other is not None and folded_name(other.name) == folded for other in room.seats):
            raise RoomError(
                "name_taken", "Someone in this room already goes by that name; pick another."
            )
    index = _free_seat(room)
    room.seats[index] = seat
    return room, index


def bot_seat(room: Room, level: AiLevel) -> Seat:
    same_level = sum(1 for seat in room.seats if seat is not None and seat.level == level)
    name = _BOT_NAMES[level] if same_level == 0 else f"{_BOT_NAMES[level]} {same_level + 1}"
    return Seat(name=name, level=level)


def remove_seat(room: Room, index: int, *, ai: bool) -> Room:
    """Free a seat before the game starts: an AI seat, or a waiting person (never the host)."""
    room = _waiting(room)
    seat = room.seats[index] if 0 <= index < len(room.seats) else None
    if seat is None or seat.is_ai != ai:
        what = "an AI seat" if ai else "a player"
        raise RoomError("no_such_seat", f"Seat {index} is not {what}.", status=404)
    if index == room.host:
        raise RoomError("host_seat", "The host cannot remove their own seat.")
    room.seats[index] = None
    return room


def change_options(room: Room, changes: dict[str, Any]) -> Room:
    """New options before the start; fewer seats only if the seats given up are empty."""
    room = _waiting(room)
    try:
        options = RoomOptions.model_validate({**room.options.model_dump(), **changes})
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise RoomError("bad_options", f"{where}: {problem['msg']}", status=422) from error
    if options.seats < len(room.seats):
        dropped = room.seats[options.seats :]
        if any(seat is not None for seat in dropped):
            raise RoomError("seats_taken", "Remove the players in the seats to give up first.")
        room.seats = room.seats[: options.seats]
    else:
        room.seats.extend([None] * (options.seats - len(room.seats)))
    check_options(options)
    room.options = options
    return room


def set_connected(room: Room, index: int, *, connected: bool, now: float) -> Room | None:
    """Note a seat's player arriving or leaving; arriving hands an away seat back.

    Returns None when nothing changes, so presence costs no commit in the common case.
    """
    seat = room.seats[index] if 0 <= index < len(room.seats) else None
    if seat is None or seat.is_ai:
        return None
    if connected and seat.disconnected_at is None and not seat.away:
        return None
    if not connected and seat.disconnected_at is not None:
        return None
    room = room.clone()
    changed = room.seats[index]
    assert changed is not None
    if connected:
        if changed.away:
            log_stand_in(room, "back", index)
        changed.disconnected_at = None
        changed.unopened = False
        changed.away = False
        changed.timeouts = 0
    else:
        changed.disconnected_at = now
    return room

"""Log lines the room adds for moves a person did not make: the clock's timeouts, a seat
handed to the AI, its person back. The engine logs every move; these lines say who made it.

They go into the game's log (``Game.log``) beside the engine's entries, in the same shape
(``{"round", "event", "seat", "text"}``), and name no card: only a seat and its name.
"""

from __future__ import annotations

from typing import Any, Literal

from app.rooms.model import Room, extended_log

StandInEvent = Literal["timeout", "away", "back"]

_TEXTS: dict[StandInEvent, str] = {
    "timeout": "Time ran out: the AI played for {name}.",
    "away": "{name} is away: the AI plays for them.",
    "back": "{name} is back.",
}


def stand_in_entry(event: StandInEvent, *, seat: int, name: str, round: int) -> dict[str, Any]:
    """The log entry of ``event`` for ``seat``, whose person is called ``name``."""
    return {"round": round, "event": event, "seat": seat, "text": _TEXTS[event].format(name=name)}


def log_stand_in(room: Room, event: StandInEvent, seat: int) -> None:
    """Add ``event``'s line for ``seat`` at the end of the game's log, in the round being
    played. ``room`` is one being changed (a clone); a room with no game in play logs none."""
    game = room.game
    player = room.seats[seat]
    if room.status != "playing" or game is None or player is None:
        return
    entry = stand_in_entry(event, seat=seat, name=player.name, round=room.engine_state().round)
    game.log = extended_log(game.log, [entry])

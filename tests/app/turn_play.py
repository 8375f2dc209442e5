"""Playing a room's game on, move by move, as the service would: for tests of turn-based tables."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import engine
from app.rooms import play
from app.rooms.model import Room


def chosen(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A player who challenges whenever they can, answers when they can, else plays at random."""
    for wanted in ("challenge", "answer"):
        found = [action for action in legal if action["type"] == wanted]
        if found:
            return rng.choice(found)
    return rng.choice(legal)


def legal_for(room: Room, seat: int) -> list[dict[str, Any]]:
    return [
        action for action in engine.legal_actions(room.engine_state()) if action["seat"] == seat
    ]


def next_room(room: Room, *, rng: random.Random, now: float = 1.0) -> Room:
    """The room after the seat to act plays ``chosen``, committed as ``RoomService.commit``
    would (its version, its clocks)."""
    assert room.game is not None and room.status == "playing", "the game is over"
    seat = room.game.to_act[0]
    move = play.Move(seat, chosen(legal_for(room, seat), rng), "player", None, now)
    new = move.apply(room)
    new.version = new.game_version = room.version + 1
    play.schedule(new, now=now, ai_pause=0.0)
    return new


def played_until(
    room: Room, stop: Callable[[Room], bool], *, rng: random.Random, now: float = 1.0
) -> Room:
    """The room once ``stop`` holds, played on by ``next_room``; fails if the game ends first."""
    while not stop(room):
        room = next_room(room, rng=rng, now=now)
    return room


def challenged(room: Room) -> int | None:
    """The seat whose set is challenged and who must answer now, if any."""
    if room.game is None or room.status != "playing":
        return None
    challenge = engine.view_for(room.engine_state(), None)["challenge"]
    if challenge is None or challenge["target"] is None or not challenge["plays"]:
        return None
    defender: int = challenge["defender"]
    return defender if challenge["to_answer"] == defender else None

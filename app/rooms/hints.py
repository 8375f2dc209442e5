"""Hints during play: the review's search, asked by a seated player for their own move.

A hint is judged from the asking seat's own view (``engine.ai.review.Reviewer``, in the AI
workers), exactly as a review judges a decision, and goes back to that connection only. A
room offers hints only with its ``hints`` option on; each seat may take
``CASH_STASH_HINTS_PER_SEAT`` a game and ask ``CASH_STASH_HINTS_PER_MINUTE`` times a minute.
A hint taken is counted in the room (``Game.hints``) before it is computed, and the finished
game's record carries the counts: a game in which any seat took one is not rated.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from typing import Any

import engine
from app.rooms.errors import RoomError, room_not_found
from app.rooms.model import Room
from app.rooms.service import RoomService
from app.settings import Settings
from engine.ai.review import FORCED, Reviewer


def hint_for(
    view: Mapping[str, Any], legal: dict[str, Any], rounds: int, seed: int
) -> dict[str, Any]:
    """The best move found for the view's seat, its win chance and the moves compared (best
    first). ``legal`` is any action the seat may take now (the search compares it too). With
    one distinct choice the hint is that move, without a win chance."""
    judgement = Reviewer(rounds).judge(view, legal, random.Random(seed))
    if judgement.verdict == FORCED:
        return {"action": judgement.played, "win_chance": None, "alternatives": []}
    alternatives = [
        {"action": item.action, "win_chance": round(item.win_chance, 4)}
        for item in judgement.alternatives
    ]
    return {
        "action": alternatives[0]["action"],
        "win_chance": alternatives[0]["win_chance"],
        "alternatives": alternatives,
    }


async def ask_hint(service: RoomService, *, code: str, token_hash: str) -> dict[str, Any]:
    """The ``hint`` message for the seat the token holds, or a ``RoomError`` saying why not:
    ``not_seated``, ``hints_off``, ``not_playing``, ``not_your_turn``, ``no_hints_left``,
    ``hints_too_fast``."""
    settings = service.settings
    room = await service.load(code)
    if room is None:
        raise room_not_found()
    seat = _seat_of(room, token_hash)
    _check(room, seat, settings)
    allowed = await service.store.hit(
        f"hint:{code}:{seat}", limit=settings.hints_per_minute, window_seconds=60
    )
    if not allowed:
        raise RoomError("hints_too_fast", "Too many hints asked; wait a minute.", status=429)

    def count_hint(latest: Room) -> Room:
        _check(latest, _seat_of(latest, token_hash), settings)
        assert latest.game is not None
        new = latest.clone()
        assert new.game is not None
        used = new.game.hints + [0] * (len(new.seats) - len(new.game.hints))
        used[seat] += 1
        new.game.hints = used
        return new

    counted = await service.update(code, count_hint)
    legal = engine.legal_actions(counted.engine_state())
    mine = next(action for action in legal if action["seat"] == seat)
    hint = await service.ai.run(
        hint_for, counted.view_for(seat), mine, settings.review_rounds, secrets.randbits(32)
    )
    return {"type": "hint", "version": counted.version, **hint}


def _seat_of(room: Room, token_hash: str) -> int:
    seat = room.seat_of(token_hash)
    if seat is None:
        raise RoomError("not_seated", "Your seat is no longer in this room.", status=403)
    return seat


def _check(room: Room, seat: int, settings: Settings) -> None:
    if not room.options.hints:
        raise RoomError("hints_off", "This room does not offer hints.")
    game = room.game
    if room.status != "playing" or game is None:
        raise RoomError("not_playing", "No game is being played in this room.")
    if seat not in game.to_act:
        raise RoomError("not_your_turn", "A hint is for your own move, when it is yours.")
    used = game.hints[seat] if seat < len(game.hints) else 0
    if used >= settings.hints_per_seat:
        raise RoomError(
            "no_hints_left", f"You have used all {settings.hints_per_seat} hints of this game."
        )

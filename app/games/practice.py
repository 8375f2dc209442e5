"""Practice tables: "Try again" from a reviewed decision, as an ordinary room in play.

The table starts at the decision, seen from the deciding seat: that seat's own hand and every
public zone as they were, and every card the seat could not see dealt afresh from the cards it
had not seen (``engine.determinize`` of its view, with a new secret generator). So the table
reveals nothing the seat did not know: not the other hands, not the deck's order, not the
game's seed (the practice has a seed of its own). The person plays the deciding seat; every
other seat is an AI: an AI seat at its own level, a person's seat at ``STAND_IN_LEVEL``.

A practice game is unrated and never recorded: it did not start from a deal, so it has no
replay of its own (its room summary never calls it recorded; the table draws its chart from
the states it was sent, and knows the game by the practice note that opens its log).
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import engine
from app.rooms.errors import RoomError
from app.rooms.model import AiLevel, Game, Room, RoomOptions, Seat, dump_engine_state, log_text

STAND_IN_LEVEL: AiLevel = "medium"
"""The AI that plays a seat a person held in the reviewed game."""

PRACTICE_NOTE = (
    "Practice from a reviewed game: unrated. The cards you could not see are dealt afresh."
)


def practice_state(
    config: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], step: int
) -> tuple[engine.State, int]:
    """The table at decision ``step`` from its seat's view, hidden cards dealt afresh; and
    that seat. Refused (``400 no_such_decision``) for a step the game does not have."""
    if not 0 <= step < len(actions):
        raise RoomError("no_such_decision", "This game has no decision at that step.", status=400)
    state = engine.new_game(dict(config))
    for action in actions[:step]:
        state = engine.apply_action(state, dict(action))
    seat = int(actions[step]["seat"])
    view = engine.view_for(state, seat)
    fresh = engine.determinize(view, random.Random(secrets.randbits(64)))
    fresh.log_enabled = True
    return fresh, seat


def practice_room(
    *,
    code: str,
    state: engine.State,
    seat: int,
    levels: Sequence[AiLevel | None],
    name: str,
    token_hash: str,
    player_id: str | None,
    now: float,
) -> Room:
    """A room in play at ``state``: the person in ``seat`` (as host), AI everywhere else.

    ``levels`` are the reviewed game's seats' AI levels (None for a person)."""
    names = list(state.config.names or [f"Seat {index + 1}" for index in range(len(levels))])
    seats: list[Seat | None] = []
    for index, level in enumerate(levels):
        if index == seat:
            seats.append(
                Seat(name=name, token_hash=token_hash, player_id=player_id, disconnected_at=now)
            )
        else:
            seats.append(Seat(name=names[index], level=level or STAND_IN_LEVEL))
    config = state.config
    options = RoomOptions(
        room_name="Practice (unrated)",
        rules=config.rules,
        draft=config.draft,
        seats=len(levels),
        visibility="private",
        rounds=config.rounds,
        hints=True,
    )
    game = Game(
        id=str(uuid.uuid4()),
        seed=secrets.randbits(63),
        state=dump_engine_state(state),
        log=log_text([{"event": "practice", "text": PRACTICE_NOTE}]),
        to_act=engine.to_act(state),
        started_at=now,
        practice=True,
    )
    return Room(
        code=code,
        host=seat,
        status="playing",
        options=options,
        seats=seats,
        game=game,
        created_at=now,
    )

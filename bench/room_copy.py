"""A move's copy of the room, three ways: ``Room.clone_for_move`` as the server does it
(pydantic's ``model_copy``), the same copy written by hand past pydantic's attributes, and the
same copy of plain slotted dataclasses with the room's fields (what the copy would cost were
the room dataclasses; the room's models are not changed to measure it).

Plays a seeded random four-seat advanced game through the room layer and, at a few points,
times each copy of the room before a move by its mover. Medians of ``--repeats`` runs of
``--loops`` each, the three in turns, in microseconds::

    python bench/room_copy.py --at 5,40,80
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
from pathlib import Path
from typing import Any

# The project, not this folder's engine.py, is what ``import engine`` must find.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from app.rooms import play  # noqa: E402
from app.rooms.model import Game, Room, Seat  # noqa: E402
from bench.moves import micros, started  # noqa: E402


def _plain_class(model: type[Any]) -> type[Any]:
    """A slotted dataclass with ``model``'s fields (and its private ones), no validation."""
    names = [*model.model_fields, *getattr(model, "__private_attributes__", {})]
    return dataclasses.make_dataclass(f"Plain{model.__name__}", names, slots=True)


PlainSeat, PlainGame, PlainRoom = (_plain_class(model) for model in (Seat, Game, Room))


def plain(room: Room) -> Any:
    """``room`` as plain dataclasses, sharing its leaves."""
    seats = [
        None if seat is None else PlainSeat(**dict(seat), **seat.__pydantic_private__ or {})
        for seat in room.seats
    ]
    game = room.game
    plain_game = None if game is None else PlainGame(**dict(game), **game.__pydantic_private__)
    fields = dict(room) | {"seats": seats, "game": plain_game}
    return PlainRoom(**fields, **room.__pydantic_private__ or {})


def plain_clone_for_move(room: Any, seat: int) -> Any:
    """``Room.clone_for_move`` on the dataclasses, by ``dataclasses.replace`` (``copy.copy``
    of a slotted dataclass was slower still: 40 µs): the same fields copied, the rest shared."""
    seats = list(room.seats)
    mover = seats[seat]
    seats[seat] = None if mover is None else dataclasses.replace(mover)
    game = room.game
    moved = dataclasses.replace(game, actions=list(game.actions), refs=dict(game.refs))
    return dataclasses.replace(room, seats=seats, game=moved, unrecorded=list(room.unrecorded))


def _by_hand(model: Any, update: dict[str, Any]) -> Any:
    """``model.model_copy(update=update)`` written past pydantic: its ``__dict__`` copied."""
    new = object.__new__(type(model))
    object.__setattr__(new, "__dict__", model.__dict__ | update)
    object.__setattr__(new, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(new, "__pydantic_extra__", None)
    private = model.__pydantic_private__
    object.__setattr__(new, "__pydantic_private__", None if private is None else dict(private))
    return new


def hand_clone_for_move(room: Room, seat: int) -> Room:
    """``Room.clone_for_move`` with ``_by_hand`` in place of ``model_copy``."""
    game = room.game
    assert game is not None
    seats = list(room.seats)
    mover = seats[seat]
    seats[seat] = None if mover is None else _by_hand(mover, {})
    moved = _by_hand(game, {"actions": list(game.actions), "refs": dict(game.refs)})
    result: Room = _by_hand(
        room, {"seats": seats, "game": moved, "unrecorded": list(room.unrecorded)}
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", default="5,40,80", help="moves into the game to measure at")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--loops", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    points = sorted(int(point) for point in args.at.split(","))
    room, rng, moves = started(args.seed), random.Random(args.seed), 0
    print("move  model_copy us  by hand us  dataclasses us")
    while room.status == "playing" and points:
        state = room.engine_state()
        legal = engine.legal_actions(state)
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        seat = action["seat"]
        if moves == points[0]:
            points.pop(0)
            as_plain = plain(room)
            assert hand_clone_for_move(room, seat) == room.clone_for_move(seat)
            copies = (
                lambda room=room, seat=seat: room.clone_for_move(seat),
                lambda room=room, seat=seat: hand_clone_for_move(room, seat),
                lambda room=as_plain, seat=seat: plain_clone_for_move(room, seat),
            )
            # In turns, one run of each at a time: a loaded machine's drift touches all three.
            runs = [[micros(work, args.loops, 1) for work in copies] for _ in range(args.repeats)]
            timings = [statistics.median(column) for column in zip(*runs, strict=True)]
            print(f"{moves:4d}  {timings[0]:13.1f}  {timings[1]:10.1f}  {timings[2]:14.1f}")
        room = play.apply(room, seat=seat, action=action, now=2.0, mover="player")
        room.version += 1
        moves += 1
    if points:
        print(f"(the game ended after {moves} moves)")


if __name__ == "__main__":
    main()

"""The notices a turn-based table's commit calls for, and their sending from the move path.

Every commit passes ``RoomService.commit``; once the store has taken a version, the process
that committed it calls ``send`` with the room before and after, so each notice is queued once,
by one process. A person is told only when the version newly needs them (their seat joined
``to_act``: a move, or an answer to a challenge), when they leave the table while it needs
them (their last connection gone: ``set_presence``), and when the game ends, and only if they
have no connection to the room (``Seat.disconnected_at``): a player at the table sees it there.
A move or an answer is told once per game version (``game_version``: a presence change keeps
it), however often its person comes and goes: the notice's ``once`` key names the room, the
version and the player.

What a notice says is read from the engine's public view (``engine.view_for(state, None)``,
a spectator's), and the notice types hold public facts only (``app/push/notices.py``).
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import engine
from app.db.repository import public_player_id
from app.push.notices import Challenged, GameOver, Notice, YourMove
from app.rooms.model import Room, Seat
from engine.cards import Kind

logger = logging.getLogger(__name__)


class Notifier(Protocol):
    """Where notices go: ``PushSender.notify``, which queues and never waits."""

    async def notify(self, player_id: str, notice: Notice, *, once: str | None = None) -> bool: ...


async def send(notifier: Notifier, previous: Room | None, new: Room) -> None:
    """Queue the notices the commit of ``new`` over ``previous`` calls for. It never raises:
    the commit is made, and a notice that could not be worked out is logged and left out."""
    try:
        for player_id, notice in notices_after(previous, new):
            once = None if isinstance(notice, GameOver) else once_key(new, player_id)
            await notifier.notify(player_id, notice, once=once)
    except Exception:
        logger.exception("push notices not worked out", extra={"room": new.code})


def notices_after(previous: Room | None, new: Room) -> list[tuple[str, Notice]]:
    """Who to tell what, by public player id, when ``new`` follows ``previous``: nobody but
    at a turn-based table."""
    game = new.game
    if new.options.mode != "turn" or game is None:
        return []
    was_playing = previous is not None and previous.status == "playing"
    if new.status == "finished":
        return _game_over(new) if was_playing else []
    if new.status != "playing":
        return []
    before = previous.game if previous is not None else None
    acting = set(before.to_act) if was_playing and before is not None else set()
    gained = [seat for seat in game.to_act if seat not in acting or _left(previous, new, seat)]
    told = [(seat, player) for seat in gained if (player := _absent(new, seat)) is not None]
    if not told:
        return []
    challenge = engine.view_for(new.engine_state(), None)["challenge"]
    return [(player, _needed(new, seat, challenge)) for seat, player in told]


def once_key(room: Room, player_id: str) -> str:
    """What makes a move's notice the same news: the room, its game version, the player."""
    return f"{room.code}:{room.game_version}:{player_id}"


def _left(previous: Room | None, new: Room, index: int) -> bool:
    """Whether the person at seat ``index`` was connected before ``new`` and is not now."""
    before = previous.seats[index] if previous is not None else None
    after = new.seats[index]
    return (
        before is not None
        and after is not None
        and before.disconnected_at is None
        and after.disconnected_at is not None
    )


def _absent(room: Room, index: int) -> str | None:
    """The public player id of the person at seat ``index`` if they have no connection to
    the room; None for an AI seat, a connected person or one without a player id."""
    seat = room.seats[index]
    if seat is None or seat.is_ai or seat.disconnected_at is None or seat.player_id is None:
        return None
    return public_player_id(seat.player_id)


def _needed(room: Room, index: int, challenge: dict[str, Any] | None) -> Notice:
    """What seat ``index`` is needed for: to answer a challenge to a set of theirs (the
    challenger has played), else a move (a turn, a contest, a choice)."""
    if (
        challenge is not None
        and challenge["to_answer"] == index
        and challenge["defender"] == index
        and challenge["target"] is not None
        and challenge["plays"]
    ):
        return Challenged(
            by=_seat(room, challenge["challenger"]).name,
            set_kind=Kind(challenge["kind"]),
            room_code=room.code,
        )
    return YourMove(host=_seat(room, room.host).name, room_code=room.code)


def _game_over(room: Room) -> list[tuple[str, Notice]]:
    places = final_places(engine.result(room.engine_state()), two_round_wins=_two_wins(room))
    return [
        (player, GameOver(place=places[index], room_code=room.code))
        for index in range(len(room.seats))
        if (player := _absent(room, index)) is not None
    ]


def final_places(result: dict[str, Any], *, two_round_wins: bool) -> list[int]:
    """Each seat's place from the engine's final ``result``: the winners first (1st), then by
    round wins when those decide the game, then by total; seats tied share a place."""
    winners = set(result["winners"])
    totals: list[int] = result["totals"]
    wins: list[int] = result["round_wins"] if two_round_wins else [0] * len(totals)
    ranks = [(seat in winners, wins[seat], total) for seat, total in enumerate(totals)]
    return [1 + sum(other > rank for other in ranks) for rank in ranks]


def _two_wins(room: Room) -> bool:
    return room.options.rounds == "two_round_wins"


def _seat(room: Room, index: int) -> Seat:
    seat = room.seats[index]
    assert seat is not None, "a game's seats are all occupied"
    return seat

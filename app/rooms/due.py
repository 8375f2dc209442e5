"""What a process does when a room falls due (``Room.wake_at``): record its finished games, hand
an absent person's seat to the AI, make AI and clock moves. The clock loop
(``app/rooms/scheduler.py``) finds the due rooms; each is committed through the room service."""

from __future__ import annotations

import logging
import random
import secrets
import time
from dataclasses import dataclass

import engine
from app.rooms import play
from app.rooms.model import Room, Seat
from app.rooms.service import RoomService
from app.rooms.stand_ins import log_stand_in
from app.turns.archive import DATABASE_ERRORS

logger = logging.getLogger(__name__)

CLAIM_SECONDS = 30.0
"""How long a process owns a due room; another takes over if it dies meanwhile."""
RECORD_BACKOFF_SECONDS = (1.0, 2.0, 5.0, 15.0, 60.0, 300.0)


@dataclass(frozen=True, slots=True)
class Woken:
    """What ``DueWork.wake`` did: whether this process held the room's claim, and the
    room it committed (None: nothing was due, or its commit lost to another process's)."""

    claimed: bool
    room: Room | None = None


class DueWork:
    """The due work of the rooms of one room service; safe to run in any number of processes
    at once (each room's version is claimed by one)."""

    def __init__(self, rooms: RoomService) -> None:
        self._rooms = rooms

    async def wake(self, code: str) -> Woken:
        """Do what is due in a room: record finished games, start the AI for absent players,
        make AI and clock moves. Exactly one process does each, by claiming the room's version;
        not ``claimed`` when another process holds that claim. The room committed, if any, is
        handed back for its caller to send on (``Hub.committed``)."""
        room = await self._rooms.load(code)
        if room is None:
            await self._rooms.store.forget(code)
            return Woken(claimed=True)
        now = time.time()
        wake_at = room.wake_at(
            self._rooms.settings.disconnect_grace_seconds, self._rooms.settings.seat_open_seconds
        )
        if wake_at is None or wake_at > now:
            # Woken early: the index held an earlier time than the room's (a commit that
            # brought its wake time forward did not happen, or its process died before it
            # wrote the index: ``app/store/redis.py``).
            await self._rooms.store.settle_wake(code, room.version, wake_at)
            return Woken(claimed=True)
        if not await self._rooms.store.claim(f"{code}:{room.version}", CLAIM_SECONDS):
            return Woken(claimed=False)
        return Woken(claimed=True, room=await self._do_due(room, now))

    async def _do_due(self, room: Room, now: float) -> Room | None:
        if room.unrecorded and (room.next_record_at or 0.0) <= now:
            return await self._record(room)
        game = room.game
        if room.status != "playing" or game is None:
            return None
        grace = self._rooms.settings.disconnect_grace_seconds
        open_seconds = self._rooms.settings.seat_open_seconds
        gone = [
            index
            for index, seat in enumerate(room.seats)
            if room.options.mode == "live"
            and seat is not None
            and not seat.played_by_ai
            and seat.disconnected_at is not None
            and seat.disconnected_at + seat.grace(grace, open_seconds) <= now
        ]
        if gone:
            away = _mark_away(room, gone)
            return away if await self._rooms.commit(away, previous=room) else None
        ai_seat = next((i for i in game.to_act if _seat(room, i).played_by_ai), None)
        late_seat = next((i for i in game.to_act if not _seat(room, i).played_by_ai), None)
        if game.ai_due is not None and game.ai_due <= now and ai_seat is not None:
            level = _seat(room, ai_seat).level or self._rooms.settings.timeout_level
            return await self._ai_move(room, ai_seat, level=level, mover="ai")
        if game.deadline is not None and game.deadline <= now and late_seat is not None:
            return await self._ai_move(
                room, late_seat, level=self._rooms.settings.timeout_level, mover="clock"
            )
        return None

    async def _ai_move(
        self, room: Room, seat: int, *, level: str, mover: play.Mover
    ) -> Room | None:
        assert room.game is not None
        legal = [
            action for action in engine.legal_actions(room.engine_state()) if action["seat"] == seat
        ]
        if not legal:
            logger.error(
                "seat must act but has no legal action", extra={"room": room.code, "seat": seat}
            )
            return None
        view = room.view_for(seat)
        try:
            with self._rooms.metrics.ai_decision_seconds.labels(level).time():
                action = await self._rooms.ai.decide(level, view, legal, secrets.randbits(32))
            move = play.Move(seat, action, mover, None, time.time())
            new = move.apply(room)
        except Exception:
            # A failing AI must not stall the table: the seat still moves, legally.
            logger.exception(
                "the %s AI failed; a random legal move instead",
                level,
                extra={"room": room.code, "seat": seat},
            )
            fallback = random.Random(secrets.randbits(32)).choice(legal)
            move = play.Move(seat, fallback, mover, None, time.time())
            new = move.apply(room)
        if not await self._rooms.commit(new, previous=room, move=move):
            return None
        self._rooms.metrics.actions_by[mover].inc()
        if new.status == "finished":
            logger.info("game over", extra={"room": room.code})
        return new

    async def _record(self, room: Room) -> Room:
        recorded: set[str] = set()
        failed = False
        for game in room.unrecorded:
            try:
                await self._rooms.recorder.record(game)
            except DATABASE_ERRORS as error:
                # An outage the room outlasts: it keeps the game and tries again later, so a
                # line a try, not a traceback (a stopped Postgres made a thousand of them).
                logger.warning(
                    "recording game %s failed, the database is unavailable (%s); tried again later",
                    game.game_id,
                    type(error).__name__,
                    extra={"room": room.code},
                )
                failed = True
                break
            except Exception:
                logger.exception(
                    "recording game %s failed", game.game_id, extra={"room": room.code}
                )
                failed = True
                break
            recorded.add(game.game_id)

        def settle(latest: Room) -> Room:
            latest = latest.clone()
            latest.unrecorded = [g for g in latest.unrecorded if g.game_id not in recorded]
            if failed:
                delay = RECORD_BACKOFF_SECONDS[
                    min(latest.record_attempts, len(RECORD_BACKOFF_SECONDS) - 1)
                ]
                latest.record_attempts += 1
                latest.next_record_at = time.time() + delay
            else:
                latest.record_attempts = 0
                latest.next_record_at = None
            return latest

        return await self._rooms.update(room.code, settle)


def _seat(room: Room, index: int) -> Seat:
    seat = room.seats[index]
    assert seat is not None, "a game's seats are all occupied"
    return seat


def _mark_away(room: Room, seats: list[int]) -> Room:
    room = room.clone()
    for index in seats:
        _seat(room, index).away = True
        log_stand_in(room, "away", index)
    return room

"""The room service: the rooms held here, read from the store, and every change to one
committed by compare-and-set; a person's move (``act``). The lobby's use cases are in
``app.rooms.tables``, the work that falls due in ``app.rooms.due``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from app.metrics import Metrics
from app.push import turns as turn_notices
from app.rooms import lobby, moves, play
from app.rooms.ai import AiRunner
from app.rooms.errors import RoomError, room_not_found
from app.rooms.model import (
    Room,
    room_of_text,
    room_text,
)
from app.rooms.public import room_listing
from app.rooms.recording import GameRecorder
from app.settings import Settings
from app.store.base import STORE_ERRORS, Commit, RoomStore, StoredRoom
from app.turns.archive import DATABASE_ERRORS, TurnArchive
from app.turns.records import kept, turn_record

logger = logging.getLogger(__name__)

_UPDATE_ATTEMPTS = 50
GAMES_IN_PLAY = "games_in_play"
"""The store's set of rooms with a game in play that count toward ``max_games_in_play``, over
every process: each held only while a person is at it (``_count_toward_ceiling``)."""
_COUNTED_ROOMS = 10_000
"""Rooms remembered as counted here before the spent ones are let go."""
HELD_ROOMS = 4096
"""Rooms this process keeps as last committed or seen, so that a move neither reads the room
back from the store nor decodes its own published commit again; each with its engine state
decoded (``Game.keep_engine_state``): past this many, the room that moved longest ago is read
and decoded again at its next move."""


@dataclass(frozen=True, slots=True)
class Acted:
    """An accepted ``act``: the room after it, the seat, and whether it had been applied before."""

    room: Room
    seat: int
    repeated: bool


@dataclass(slots=True)
class _Pending:
    """A commit this process is waiting on the store for: the text stored and the room."""

    text: str
    room: Room
    answered: asyncio.Future[None] | None = field(default=None)
    """Made only when someone waits for the store's answer (``RoomService.settled``)."""

    def settle(self) -> None:
        if self.answered is not None and not self.answered.done():
            self.answered.set_result(None)


class RoomService:
    """Rooms as the store holds them; safe to run in any number of processes at once."""

    def __init__(
        self,
        *,
        store: RoomStore,
        settings: Settings,
        recorder: GameRecorder,
        ai: AiRunner,
        metrics: Metrics | None = None,
        turns: TurnArchive | None = None,
    ) -> None:
        self.store = store
        self.turns = turns
        """Where turn-based games are kept while nobody looks at them (``app/turns``); None:
        in the store only."""
        self.settings = settings
        self.metrics = metrics or Metrics()
        self._recorder = recorder
        self._ai = ai
        self._held: OrderedDict[str, Room] = OrderedDict()
        """Code → the room as last committed or read here. It may be behind the store: only a
        compare-and-set on its version may trust it. A read asks the store for the moves after
        it only, and replays them on it."""
        self._committing: dict[str, _Pending] = {}
        """Code → the commit this process is waiting on. Its announcement on the store's
        channel can arrive before the store's answer does; a read of the room then finds this
        very room (``_rebuilt``)."""
        self._counted: dict[str, float] = {}
        """Code → until when this process last held the room's place among the games in
        play for a person there (``_count_toward_ceiling``)."""
        self.push: turn_notices.Notifier | None = None
        """Where a turn-based table's notices go (the app's ``PushSender``, set as the app
        starts); None: none are sent."""

    @property
    def ai(self) -> AiRunner:
        """The AI workers: decisions, and other searches (hints) that must not block."""
        return self._ai

    @property
    def recorder(self) -> GameRecorder:
        """Where finished games are recorded (``app.rooms.due``)."""
        return self._recorder

    def committing(self, code: str) -> int | None:
        """The version of this process's commit to the room now waiting on the store, if any:
        its announcement on the store's channel can arrive before the store's answer."""
        pending = self._committing.get(code)
        return None if pending is None else pending.room.version

    async def settled(self, code: str) -> None:
        """Wait until the store has answered this process's commit to the room now waiting
        on it (at once if none waits): whoever skipped its announcement then knows whether
        the room it holds is the one stored."""
        pending = self._committing.get(code)
        if pending is None:
            return
        if pending.answered is None:
            pending.answered = asyncio.get_running_loop().create_future()
        await pending.answered

    def _hold(self, room: Room) -> None:
        self._held[room.code] = room
        self._held.move_to_end(room.code)
        if len(self._held) > HELD_ROOMS:
            self._held.popitem(last=False)

    def distrust(self, code: str | None = None) -> None:
        """Read the room (None: every room) whole at its next read, not as the moves after
        the copy held here: its announcements were missed, as when a Redis primary failed,
        and a failover may have lost the commits that made the copy."""
        if code is None:
            self._held.clear()
        else:
            self._held.pop(code, None)

    async def load(self, code: str) -> Room | None:
        """The room, from the store; a turn-based game the store does not hold is brought
        back into it from the database (``_unparked``)."""
        room = await self._stored(code)
        return room if room is not None else await self._unparked(code)

    async def peek(self, code: str) -> Room | None:
        """The room to read, not to change: from the store, or a turn-based game's database
        copy left where it is (a player's list of their games reads many, and ``load`` would
        bring each parked one back into the store)."""
        room = await self._stored(code)
        if room is not None or self.turns is None:
            return room
        try:
            archived = await self.turns.room(code)
        except DATABASE_ERRORS as error:
            logger.warning("parked room not read (%s)", type(error).__name__, extra={"room": code})
            return None
        return None if archived is None else room_of_text(archived.text)

    async def _stored(self, code: str) -> Room | None:
        held = self._held.get(code)
        stored = await self.store.load(code, after=0 if held is None else held.version)
        if stored is not None and stored.snapshot is None:
            try:
                room = self._rebuilt(code, stored, held)
            except ValueError:
                # The moves do not apply to the copy held here: read the room whole.
                logger.warning("held room left behind", extra={"room": code})
                stored = await self.store.load(code)
            else:
                self._hold(room)
                return room
        if stored is None:
            self._held.pop(code, None)
            return None
        room = self._rebuilt(code, stored, None)
        self._hold(room)
        return room

    async def _unparked(self, code: str) -> Room | None:
        """The room the store does not hold, brought back from the database (a turn-based
        game parked, or lost by the store): written to the store unless another process did
        it first (then read from there)."""
        if self.turns is None:
            return None
        try:
            archived = await self.turns.room(code)
        except DATABASE_ERRORS as error:
            logger.warning("parked room not read (%s)", type(error).__name__, extra={"room": code})
            return None
        if archived is None:
            return None
        room = room_of_text(archived.text)
        settings = self.settings
        if await self.store.restore(
            code,
            version=archived.version,
            data=archived.text,
            wake_at=room.wake_at(settings.disconnect_grace_seconds, settings.seat_open_seconds),
            ttl_seconds=self.ttl_of(room),
            chat=archived.chat,
        ):
            logger.info("room brought back from the database", extra={"room": code})
        else:
            stored = await self.store.load(code)
            if stored is None:
                return None
            room = self._rebuilt(code, stored, None)
        self._hold(room)
        return room

    def _rebuilt(self, code: str, stored: StoredRoom, held: Room | None) -> Room:
        """The room at ``stored.version``: its snapshot (or the held room, when the store sent
        only the moves after it) with the moves since replayed on it. ``ValueError`` when the
        stored room is not one."""
        committing = self._committing.get(code)
        if stored.snapshot is None:
            if held is None or held.version != stored.base:
                raise ValueError("the store sent moves after a version not held here")
            room = held
        elif committing is not None and committing.text == stored.snapshot:
            room = committing.room
        else:
            room = room_of_text(stored.snapshot)
            if room.version != stored.base:
                raise ValueError("a stored room's snapshot is not at its version")
        for step in stored.steps:
            mine = committing is not None and committing.room.version == room.version + 1
            if mine and committing is not None and committing.text == step:
                room = committing.room
            else:
                room = play.replay(room, step)
        return room

    async def existing(self, code: str) -> Room:
        """The room (``load``), or ``404 room_not_found``."""
        room = await self.load(code)
        if room is None:
            raise room_not_found()
        return room

    async def commit(
        self,
        new: Room,
        *,
        previous: Room | None,
        move: play.Move | None = None,
        presence: bool = False,
    ) -> bool:
        """Compare-and-set ``new`` over ``previous`` (None: a new room), with its clocks and
        indexes. ``new`` made by ``move`` is stored as that move, appended (unless a snapshot
        is due: ``moves.snapshot_due``); any other change as a snapshot of the room.
        ``presence``: only who is connected changed, so ``game_version`` stays. True when
        written; the caller hands the room on (``Hub.committed``). A turn-based table's
        commit written here queues its notices here (``turn_notices.send``), so once."""
        grace = self.settings.disconnect_grace_seconds
        open_seconds = self.settings.seat_open_seconds
        ai_pause = self.settings.ai_pause_seconds
        new.version = 1 if previous is None else previous.version + 1
        if presence and previous is not None:
            new.game_version = previous.game_version or previous.version
        else:
            new.game_version = new.version
        play.schedule(new, now=time.time() if move is None else move.now, ai_pause=ai_pause)
        step = move is not None and previous is not None and not moves.snapshot_due(previous, new)
        commit = Commit(
            code=new.code,
            version=new.version,
            data=move.text(ai_pause=ai_pause) if step and move is not None else room_text(new),
            step=step,
            wake_at=new.wake_at(grace, open_seconds),
            previous_wake_at=None if previous is None else previous.wake_at(grace, open_seconds),
            listing=room_listing(new),
            ttl_seconds=self.ttl_of(new),
            waiting=new.status == "waiting",
        )
        pending = _Pending(commit.data, new)
        self._committing[new.code] = pending
        try:
            written = await self.store.commit(commit)
            if written:
                self._hold(new)
                await self.keep_turn(
                    new, text=None if step else commit.data, wake_at=commit.wake_at
                )
                try:
                    await self._count_toward_ceiling(new, previous)
                except STORE_ERRORS as error:
                    # The commit stands: the ceiling is a bound on load, and a count missed
                    # here is set right at the room's next deal or presence change.
                    logger.warning("games in play not counted (%s)", type(error).__name__)
                if self.push is not None and new.options.mode == "turn":
                    await turn_notices.send(self.push, previous, new)
            else:
                self.metrics.commit_conflicts.inc()
        finally:
            if self._committing.get(new.code) is pending:
                del self._committing[new.code]
            pending.settle()
        return written

    async def keep_turn(
        self, room: Room, *, text: str | None = None, wake_at: float | None = None
    ) -> None:
        """Write a turn-based room's version, committed to the store, to the database before
        it is answered (``text``: its ``room_text``, and ``wake_at`` its wake time, if worked
        out already); a game over and recorded is let go. A database that does not answer is
        logged: the game goes on from the store, and its next commit (or its parking) writes
        the newest version."""
        if self.turns is None or room.options.mode != "turn" or room.status == "waiting":
            return
        try:
            if kept(room):
                if wake_at is None:
                    settings = self.settings
                    wake_at = room.wake_at(
                        settings.disconnect_grace_seconds, settings.seat_open_seconds
                    )
                text = room_text(room) if text is None else text
                await self.turns.save(turn_record(room, text=text, wake_at=wake_at))
            else:
                await self.turns.forget(room.code, version=room.version)
        except DATABASE_ERRORS as error:
            logger.warning(
                "turn-based room not written to the database (%s)",
                type(error).__name__,
                extra={"room": room.code},
            )

    async def _count_toward_ceiling(self, new: Room, previous: Room | None) -> None:
        """Keep the room's place among the games in play (``max_games_in_play``) as long as
        a person is connected at it, and ``table_join_seconds`` after it was dealt or its last
        person left: a table nobody opens soon stops counting. Written to the store only when
        that changes (a deal, the first person in, the last out, the end) and when a long hold
        is half spent, never per move."""
        code = new.code
        was_playing = previous is not None and previous.status == "playing"
        if new.status != "playing":
            if was_playing:
                self._counted.pop(code, None)
                await self.store.free_place(GAMES_IN_PLAY, code)
            return
        here = new.someone_here()
        was_here = was_playing and previous is not None and previous.someone_here()
        now = time.time()
        if here:
            seconds = float(self.settings.room_ttl_seconds)
            if was_here and self._counted.get(code, 0.0) > now + seconds / 2:
                return
            self._counted[code] = now + seconds
            if len(self._counted) > _COUNTED_ROOMS:
                self._counted = {c: t for c, t in self._counted.items() if t > now}
        elif was_here or not was_playing:
            self._counted.pop(code, None)
            seconds = self.settings.table_join_seconds
        else:
            return
        await self.store.hold_place(GAMES_IN_PLAY, code, seconds=seconds)

    def ttl_of(self, room: Room) -> int | None:
        """How long the room may stay untouched: never expires while a finished game waits
        for the database; a room waiting for its first game, or whose live game everybody
        left, sooner than one in play. A turn-based game goes on with nobody there: in play,
        it keeps the whole TTL, renewed by each move."""
        if room.unrecorded:
            return None
        everybody_left = room.options.mode == "live" and not room.someone_here()
        if room.status == "waiting" or (room.status == "playing" and everybody_left):
            # A game everybody left waits for them no longer than a room waits to start.
            return min(self.settings.waiting_room_ttl_seconds, self.settings.room_ttl_seconds)
        return self.settings.room_ttl_seconds

    async def update(
        self, code: str, change: Callable[[Room], Room | None], *, presence: bool = False
    ) -> Room:
        """Apply ``change`` to the latest room until a commit wins; None from it means no change.
        ``presence``: the change is only to who is connected (``Room.game_version``)."""
        for _ in range(_UPDATE_ATTEMPTS):
            room = await self.existing(code)
            new = change(room)
            if new is None:
                return room
            if await self.commit(new, previous=room, presence=presence):
                return new
        raise RoomError("busy", "The room is too busy right now; try again.", status=503)

    async def set_presence(self, code: str, token_hash: str, *, connected: bool) -> Room:
        """Note a person's connection arriving or leaving (arriving hands an away seat back);
        the room as it is then."""

        def note(room: Room) -> Room | None:
            seat = room.seat_of(token_hash)
            if seat is None:
                return None
            return lobby.set_connected(room, seat, connected=connected, now=time.time())

        return await self.update(code, note, presence=True)

    async def act(
        self, code: str, *, token_hash: str, ref: str | int, version: int, action: dict[str, Any]
    ) -> Acted:
        """Apply a person's action, or say why not (``RoomError``).

        Checks in order: seat, game on, ref not seen (a repeat is answered, not applied), seat
        must act now, version current; then the engine's own checks, then the compare-and-set
        (a lost race is a stale version too).

        The room as this process last saw it is tried first: when the compare-and-set wins, it
        was the latest. Any other outcome (a refusal, a repeat, a lost race) is decided again
        on the room read from the store, so a stale copy can never refuse or answer an act.
        """
        held = self._held.get(code)
        if held is not None:
            room = held
            with contextlib.suppress(RoomError):
                new, seat, move = _checked_move(
                    room, token_hash, ref=ref, version=version, action=action
                )
                if new is not None and await self.commit(new, previous=room, move=move):
                    return self._applied(new, seat, action)
        room = await self.existing(code)
        new, seat, move = _checked_move(room, token_hash, ref=ref, version=version, action=action)
        if new is None:
            return Acted(room, seat, repeated=True)
        if await self.commit(new, previous=room, move=move):
            return self._applied(new, seat, action)
        latest = await self.existing(code)
        if play.remembered(latest, seat, ref) is not None:
            return Acted(latest, seat, repeated=True)
        raise RoomError("stale_version", "The game moved on; here is the current state.")

    def _applied(self, new: Room, seat: int, action: dict[str, Any]) -> Acted:
        self.metrics.actions_by["player"].inc()
        logger.debug("action %s", action.get("type"), extra={"room": new.code, "seat": seat})
        if new.status == "finished":
            logger.info("game over", extra={"room": new.code})
        return Acted(new, seat, repeated=False)


def _checked_move(
    room: Room, token_hash: str, *, ref: str | int, version: int, action: dict[str, Any]
) -> tuple[Room | None, int, play.Move | None]:
    """The room after a person's act, their seat and the move; no room (nor move) for a ref
    applied before. Each refusal is a ``RoomError``, in the order ``RoomService.act`` gives."""
    seat = room.seat_of(token_hash)
    if seat is None:
        raise RoomError("not_seated", "Your seat is no longer in this room.", status=403)
    if "seat" in action and action["seat"] != seat:
        raise RoomError("wrong_seat", "You can only act for your own seat.", status=403)
    if play.remembered(room, seat, ref) is not None:
        return None, seat, None
    if room.status != "playing" or room.game is None:
        raise RoomError("not_playing", "No game is being played in this room.")
    if seat not in room.game.to_act:
        raise RoomError("not_your_turn", "It is not your turn to act.")
    if not room.acts_on(version):
        raise RoomError("stale_version", "The game moved on; here is the current state.")
    move = play.Move(seat, action, "player", ref, time.time())
    try:
        new = move.apply(room)
    except engine.IllegalAction as error:
        raise RoomError(error.code, _sentence(error), status=400) from error
    return new, seat, move


def _sentence(error: Exception) -> str:
    message = getattr(error, "message", None)
    return message if isinstance(message, str) else str(error)

"""This process's subscription to the rooms it serves, fanned out to its connections through
bounded queues."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Coroutine
from typing import Any, Protocol

from pydantic import ValidationError

from app.db.repository import public_player_id
from app.matchmaking.live import GameIndex
from app.rooms import live_seats
from app.rooms.errors import RoomError
from app.rooms.model import Room
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.store.base import STORE_ERRORS
from app.transport.deflate import SharedCompression
from app.transport.websocket import Text
from app.ws.limits import AddressBudget, ConnectionCaps, WholeStates
from app.ws.seat_presence import SeatPresence
from app.ws.snapshot import Snapshot

logger = logging.getLogger(__name__)

_RESTART_SECONDS = 1.0
_SAID_KEPT = 16
"""Chat lines remembered per room, to send each once (``Hub._said``)."""
_READ_RETRY_SECONDS = (0.05, 0.2, 0.5, 1.0)
"""Pauses between attempts to read a room whose commit was announced, when reading fails."""
_DEPARTURE_RETRY_SECONDS = (0.5, 2.0, 5.0, 15.0)
"""Pauses between attempts to record that a person left, while the store fails."""
_PRESENCE_KEPT = 10_000
"""Seats whose last presence commit time is kept before the old ones are swept out."""


class Listener(Protocol):
    """A connection as the hub sees it."""

    @property
    def seat(self) -> int | None:
        """The seat as of the last snapshot delivered (None: a spectator)."""
        ...

    @property
    def token_hash(self) -> str | None: ...

    def deliver(self, item: Snapshot | dict[str, Any] | Text) -> None:
        """Queue a snapshot, a message or its text at once (a full queue drops the client)."""
        ...


class Hub:
    """Routes each commit and room message to the connections of that room in this process.

    A room this process commits is handed here by whoever committed it (``committed``); a
    commit of another process is announced on the store's channel and read (``_announced``).
    """

    def __init__(
        self,
        service: RoomService,
        *,
        scheduler: Scheduler,
        index: GameIndex | None = None,
        compression: SharedCompression | None = None,
    ) -> None:
        self._service = service
        self.compression = compression
        """The process's compression (``app/transport/deflate.py``), told how each room
        snapshot's texts are joined; its connections' snapshots use it too."""
        self._scheduler = scheduler
        """Told each commit's wake time: this process's own as it hands them here, a poke
        for another's (its wake time is unknown here)."""
        self._index = index
        """The index of games in play, told each room this process commits (None: no lobby)."""
        self._rooms: dict[str, set[Listener]] = {}
        self._fanned: dict[str, int] = {}
        """Code → the version last fanned out to the room's connections here."""
        self._wanted: dict[str, int] = {}
        """Code → the newest version announced for a room being read from the store (one
        read at a time per room, however many commits are announced meanwhile)."""
        self._unknown: set[str] = set()
        """Rooms with a commit of unknown version announced (a commit here that missed, a
        subscription made again) since their read in progress began."""
        self._said: dict[str, list[str]] = {}
        """Code → the room's chat lines this process delivered last (``_SAID_KEPT``), as sent:
        after a subscription is made again, the lines said meanwhile are read from the store
        and sent (``_catch_up``), each once."""
        self._held_since: dict[str, float] = {}
        """Code → when (epoch seconds) this process's subscription to the room was first
        confirmed: lines said since then reach its connections live, not in their history."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._departing: dict[tuple[str, str], asyncio.Task[None]] = {}
        """(Code, token hash) → the departure waiting to be committed for that seat."""
        self._presence_at: dict[tuple[str, str], float] = {}
        """(Code, token hash) → when (monotonic) this process last committed the seat's
        presence: the next departure waits ``presence_seconds`` from then."""
        self.presence = SeatPresence(service.store)
        """This process's marks on the seats whose devices it serves: a departure here is not
        committed while another process serves a device of the seat."""
        settings = service.settings
        self.caps = ConnectionCaps(
            per_address=settings.ws_connections_per_address,
            per_room=settings.ws_connections_per_room,
        )
        """The connections this process lets open, per address and per room."""
        self.whole_states = WholeStates(
            rate=settings.ws_whole_states_per_second, burst=settings.ws_whole_states_burst
        )
        """The whole states this process sends each address (first states, resyncs)."""
        self.messages = AddressBudget(
            rate=settings.ws_messages_per_address_per_second,
            burst=settings.ws_messages_per_address_burst,
        )
        """The messages this process handles from each address, over all its connections."""

    def committed(self, room: Room) -> None:
        """A room this process has just committed: every seat connected here gets its view now
        (its announcement on the store's channel is then skipped), the scheduler its wake
        time, and the index of games in play its entry."""
        if room.code in self._rooms:
            self._fan_out(room)
        settings = self._service.settings
        self._scheduler.due(
            room.wake_at(settings.disconnect_grace_seconds, settings.seat_open_seconds)
        )
        if self._index is not None:
            self._index.committed(room)

    async def add(self, code: str, listener: Listener) -> None:
        """Take a connection to the room; the room's first here subscribes this process to
        its channel. Once this returns, every later commit reaches the connection: read the
        room after it, not before. On a store error the connection is not taken."""
        listeners = self._rooms.setdefault(code, set())
        listeners.add(listener)
        try:
            await self._service.store.watch(code)
        except BaseException:
            self.remove(code, listener)
            raise
        self._held_since.setdefault(code, time.time())

    def remove(self, code: str, listener: Listener) -> None:
        listeners = self._rooms.get(code)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self._rooms[code]
                self._fanned.pop(code, None)
                self._said.pop(code, None)
                self._held_since.pop(code, None)
                self._service.store.unwatch(code)

    @property
    def room_count(self) -> int:
        """Rooms with a connection in this process."""
        return len(self._rooms)

    @property
    def connection_count(self) -> int:
        return sum(len(listeners) for listeners in self._rooms.values())

    def holds(self, code: str, token_hash: str, seat: int | None = None) -> bool:
        """Whether a connection here holds the seat of this token: by the token itself, or
        by another of the person's devices (``Seat.devices``) connected to ``seat``."""
        return any(
            listener.token_hash == token_hash
            or (seat is not None and listener.token_hash is not None and listener.seat == seat)
            for listener in self._rooms.get(code, ())
        )

    async def run(self) -> None:
        """Fan events out for as long as the process runs, surviving any one failure."""
        while True:
            try:
                await self._listen()
            except Exception:
                logger.exception("room events: the subscription failed; starting it again")
                await asyncio.sleep(_RESTART_SECONDS)
                with contextlib.suppress(Exception):
                    await self._resync()

    async def _listen(self) -> None:
        heard = self._service.metrics.room_events_by
        async for event in self._service.store.events():
            heard[event.kind].inc()
            try:
                if event.kind == "commit":
                    if event.version > self._fanned.get(event.code, 0):
                        self._scheduler.poke()  # not this process's own (``committed`` has those)
                    self._announced(event.code, event.version)
                elif event.kind == "message":
                    # Checked once, then sent as it came: a room's message (a chat line) goes
                    # to each of its connections as the same text, never encoded again.
                    if not isinstance(json.loads(event.data), dict):
                        raise ValueError("a room message is a JSON object")
                    self._say(event.code, event.data)
                elif event.code:
                    self._scheduler.poke()
                    self._service.distrust(event.code)
                    self._announced(event.code, 0)
                    await self._catch_up(event.code)
                else:
                    await self._resync()
            except (ValidationError, ValueError):
                logger.exception("undecodable event dropped", extra={"room": event.code})

    async def _resync(self) -> None:
        """After a lost subscription: re-read every room this process serves, whole."""
        self._service.distrust()
        self._scheduler.poke()
        for code in list(self._rooms):
            room = await self._service.load(code)
            if room is not None:
                self._fan_out(room)
            await self._catch_up(code)

    def _say(self, code: str, text: str) -> None:
        """A chat line to the room's connections here, unless they have had it."""
        listeners = self._rooms.get(code)
        if not listeners:
            return
        said = self._said.setdefault(code, [])
        if text in said:
            return
        said.append(text)
        del said[:-_SAID_KEPT]
        for listener in list(listeners):
            listener.deliver(text)

    async def _catch_up(self, code: str) -> None:
        """The chat lines said while the room's subscription was being made again: kept in
        the store but never heard here, they follow the last line this process delivered
        (lines from before any delivered here came with each connection's history)."""
        since = self._held_since.get(code)
        if since is None:
            return
        said = self._said.get(code)
        try:
            lines = await self._service.store.chat_lines(code)
        except STORE_ERRORS as error:
            logger.warning("chat not caught up (%s)", type(error).__name__, extra={"room": code})
            return
        if said:
            after = next(
                (at + 1 for at in range(len(lines) - 1, -1, -1) if lines[at] == said[-1]), None
            )
            missed = lines[after:] if after is not None else []
        else:
            missed = [text for text in lines if _said_at(text) >= since]
        for text in missed:
            self._say(code, text)

    async def arrive(self, code: str, token_hash: str) -> None:
        """Record that a person is connected (a commit only if the room says they are not:
        a departure still waiting here is simply not committed, ``depart``)."""
        self._presence_at[(code, token_hash)] = time.monotonic()
        await self.presence.arrived(code, token_hash)
        room = await self._service.set_presence(code, token_hash, connected=True)
        self.committed(room)
        await self._list_live_seat(room, token_hash)

    async def _list_live_seat(self, room: Room, token_hash: str) -> None:
        """A person's device at a live table: their account's other devices list the table
        among "Your games" (``app/rooms/live_seats.py``) until its game ends."""
        index = room.seat_of(token_hash)
        seat = None if index is None else room.seats[index]
        if room.options.mode != "live" or room.status == "finished" or seat is None:
            return
        if seat.player_id is not None:
            await live_seats.note(self._service.store, room.code, public_player_id(seat.player_id))

    def depart(self, code: str, token_hash: str, *, seat: int | None) -> None:
        """Record, a moment later, that a person left the room, unless a connection here holds
        their seat again by then. Presence commits are coalesced and rate-limited per seat: a
        departure waits ``presence_seconds`` (and as long from the seat's last presence
        commit), so reconnecting in a loop commits nothing. While the store fails, try again in
        the background: a seat left marked as connected would never be played for (another
        process serving the person marks them back as soon as it fans out a move)."""
        key = (code, token_hash)
        if key in self._departing:
            return
        task = asyncio.create_task(self._depart_soon(code, token_hash, seat))
        self._departing[key] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _depart_soon(self, code: str, token_hash: str, seat: int | None) -> None:
        key = (code, token_hash)
        seconds = self._service.settings.presence_seconds
        try:
            last = self._presence_at.get(key)
            wait = seconds if last is None else max(seconds, last + seconds - time.monotonic())
            await asyncio.sleep(wait)
        finally:
            self._departing.pop(key, None)
        if not self.holds(code, token_hash, seat) and not await self._departed(
            code, token_hash, seat
        ):
            await self._depart_later(code, token_hash, seat)

    async def settle_departures(self, *, seconds: float) -> None:
        """Commit the departures still waiting, now (the process is stopping: nobody will
        come back to it), within ``seconds``."""
        waiting = list(self._departing.items())
        self._departing.clear()
        for _, task in waiting:
            task.cancel()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                for (code, token_hash), _ in waiting:
                    if not self.holds(code, token_hash):
                        await self._departed(code, token_hash, None)

    async def _departed(self, code: str, token_hash: str, seat: int | None) -> bool:
        """One attempt; False when the store failed (and it is worth another)."""
        self._presence_at[(code, token_hash)] = time.monotonic()
        if len(self._presence_at) > _PRESENCE_KEPT:
            since = time.monotonic() - self._service.settings.presence_seconds
            self._presence_at = {k: at for k, at in self._presence_at.items() if at > since}
        try:
            if await self.presence.served_elsewhere(code, token_hash):
                return True  # that process commits the departure once its device leaves
            room = await self._service.set_presence(code, token_hash, connected=False)
        except RoomError:
            return True  # the seat or the room is gone: nobody to mark away
        except STORE_ERRORS as error:
            logger.warning(
                "departure not recorded (%s)",
                type(error).__name__,
                extra={"room": code, "seat": seat},
            )
            return False
        self.committed(room)
        return True

    async def _depart_later(self, code: str, token_hash: str, seat: int | None) -> None:
        for pause in _DEPARTURE_RETRY_SECONDS:
            await asyncio.sleep(pause)
            if self.holds(code, token_hash, seat) or await self._departed(code, token_hash, seat):
                return
        logger.warning("departure given up on", extra={"room": code, "seat": seat})

    def _announced(self, code: str, version: int) -> None:
        """A commit in any process (version 0: unknown): the room's connections here get it
        read from the store, unless they have it already (this process's own commits)."""
        fanned = self._fanned.get(code, 0)
        if code not in self._rooms or 0 < version <= fanned:
            return
        if version == self._service.committing(code):
            # This process's own commit, announced before the store answered: the answer
            # brings it (``committed``), or the commit missed and the room is read then.
            self._start(self._after_answer(code, version))
            return
        if version == 0:
            self._unknown.add(code)
        reading = code in self._wanted
        self._wanted[code] = max(self._wanted.get(code, 0), version)
        if not reading:
            self._start(self._read(code))

    async def _read(self, code: str) -> None:
        """Read a room until its connections here have the newest version announced, and
        have read it once more since the last announcement of an unknown version: a read that
        was already on its way may have left before that commit was made."""
        failures = 0
        try:
            while code in self._rooms:
                wanted = self._wanted[code]
                if code not in self._unknown and wanted <= self._fanned.get(code, 0):
                    return
                self._unknown.discard(code)
                try:
                    room = await self._service.load(code)
                except STORE_ERRORS as error:
                    if failures == len(_READ_RETRY_SECONDS):
                        logger.warning("room not read: %s", error, extra={"room": code})
                        return
                    await asyncio.sleep(_READ_RETRY_SECONDS[failures])
                    failures += 1
                    continue
                except ValueError as error:
                    # Not the error's text: a validation error quotes the room's JSON, whose
                    # engine state holds every hand and the seed.
                    logger.error(
                        "undecodable room not sent (%s)", type(error).__name__, extra={"room": code}
                    )
                    return
                if room is None:
                    return
                self._fan_out(room)
                if room.version < wanted and code not in self._unknown:
                    return  # the store has nothing newer than what was announced
        finally:
            self._wanted.pop(code, None)
            self._unknown.discard(code)

    async def _after_answer(self, code: str, version: int) -> None:
        """Once the store has answered this process's commit of ``version``, announced before
        the answer: read the room unless the commit was handed here (it lost to another
        process's commit of the same version, or its outcome is unknown)."""
        await self._service.settled(code)
        self._announced(code, version)

    def _fan_out(self, room: Room) -> None:
        if room.version <= self._fanned.get(room.code, 0):
            return
        self._fanned[room.code] = room.version
        snapshot = Snapshot(room, self.compression)
        listeners = list(self._rooms.get(room.code, ()))
        for listener in listeners:
            listener.deliver(snapshot)
        # Another process may have marked a seat gone while it is still connected here.
        if all(seat is None or seat.disconnected_at is None for seat in room.seats):
            return
        for token_hash in {listener.token_hash for listener in listeners}:
            index = None if token_hash is None else snapshot.seat_of(token_hash)
            seat = None if index is None else room.seats[index]
            if token_hash is not None and seat is not None and seat.disconnected_at is not None:
                self._spawn(self._mark_back(room.code, token_hash))

    async def _mark_back(self, code: str, token_hash: str) -> None:
        self.committed(await self._service.set_presence(code, token_hash, connected=True))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        async def guarded() -> None:
            try:
                await work
            except RoomError as error:
                logger.info("presence update skipped: %s", error.code)
            except STORE_ERRORS as error:
                logger.warning("presence update failed: %s", error)

        self._start(guarded())

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _said_at(text: str) -> float:
    """When a stored chat line was said (0 if it does not say)."""
    try:
        at = json.loads(text).get("at")
    except (ValueError, AttributeError):
        return 0.0
    return float(at) if isinstance(at, int | float) else 0.0

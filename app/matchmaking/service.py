"""This process's side of Play now: its waiting players, and the loop that matches queues.

Every process that holds a waiting player's socket looks at that player's queue a few times a
second: it reads who waits (``MatchStore.snapshot``), groups them (``matching.groups``), and for
each group tries to take it. Whoever takes a group makes its room through the room service
(a public room, the players seated with the tokens their own processes made, AI in the other
seats, the game dealt) and writes where each one sits; each player's own process reads that at
its next heartbeat and sends the player there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge

from app.matchmaking.matching import Group, Window, groups
from app.matchmaking.model import TURN_MOVE_SECONDS, Choice, Placement, TicketId, Waiting
from app.matchmaking.store import MatchStore
from app.rooms import lobby, play
from app.rooms.credentials import hash_token, new_seat_token
from app.rooms.errors import RoomError
from app.rooms.model import MAX_SEATS, MIN_SEATS, Room, RoomOptions, Seat
from app.rooms.tables import Tables
from app.settings import Settings
from app.store.base import STORE_ERRORS

logger = logging.getLogger(__name__)

RatingOf = Callable[[str], Awaitable[float]]
"""A player's rating (OpenSkill ordinal) by their guest id; a new player's is 0."""

LEASE_SECONDS = 15.0
"""How long a process has to seat a group it took before the group goes back to the queue."""
ROOM_NAME = "Play now"


class QueueError(Exception):
    """A refused queue request: a stable ``code`` and a sentence for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Status:
    """What a waiting player is told."""

    position: int
    """1 for the player who has waited longest in this queue."""
    found: int
    """Players (this one included) whose ratings fit with this one's now, up to the table."""
    waiting: int
    """Players in this queue."""


@dataclass(eq=False)
class Ticket:
    """A player waiting in a queue through this process; ``token`` is the seat's secret."""

    id: TicketId
    choice: Choice
    player_id: str
    token: str
    address: str | None = None
    """The client address the player queued from."""
    placed: asyncio.Future[Placement] = field(default_factory=asyncio.Future)
    status: Status | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class QueueMetrics:
    """Play now's counts in this process, on the process's ``/metrics`` registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.waiting = Gauge(
            "cash_stash_play_now_waiting",
            "Players waiting for Play now through this process.",
            registry=registry,
        )
        self.tables = Counter(
            "cash_stash_play_now_tables",
            "Play now tables this process made (rooms dealt).",
            registry=registry,
        )
        self.ai_seats = Counter(
            "cash_stash_play_now_ai_seats",
            "AI seats in the Play now tables this process made.",
            registry=registry,
        )
        self.held = Counter(
            "cash_stash_play_now_held",
            "Complete Play now groups held back because the games in play are at the ceiling.",
            registry=registry,
        )


class Dealt(Protocol):
    """Where a table this matcher deals goes once committed: the process's hub
    (``app/ws/hub.py``), which fans it out and tells the index of games in play. Named here, so
    that matchmaking does not import the WebSocket layer that imports it."""

    def committed(self, room: Room) -> None: ...


class Matchmaker:
    def __init__(
        self,
        *,
        store: MatchStore,
        tables: Tables,
        hub: Dealt,
        settings: Settings,
        rating_of: RatingOf,
        metrics: QueueMetrics | None = None,
    ) -> None:
        self.store = store
        self._tables = tables
        self._hub = hub
        """Where the tables this matcher deals go, to reach the index of games in play."""
        self._settings = settings
        self._rating_of = rating_of
        self._tickets: dict[TicketId, Ticket] = {}
        self._window = Window(
            start=settings.queue_window,
            per_second=settings.queue_window_per_second,
            widest=settings.queue_window_widest,
        )
        self.metrics = metrics or QueueMetrics(CollectorRegistry())
        self.metrics.waiting.set_function(lambda: len(self._tickets))
        self._arrived = asyncio.Event()
        """Set when a player joins or asks for AI here: their queue is matched at once, not
        at the next tick."""

    @property
    def waiting_here(self) -> int:
        return len(self._tickets)

    @property
    def _stale_seconds(self) -> float:
        return max(3.0, 10 * self._settings.queue_tick_seconds)

    def check(self, choice: Choice) -> None:
        """Refuse (``QueueError``, ``RoomError``) a table that cannot be dealt."""
        if choice.seats is None and choice.draft:
            raise QueueError(
                "draft_needs_table_size",
                "Draft piles are played at a table of 2 or 3: choose the table size.",
            )
        lobby.check_options(
            _options(choice, seats=choice.seats or MIN_SEATS),
            players=choice.seats or MIN_SEATS,
        )

    async def join(
        self, *, choice: Choice, name: str, player_id: str, address: str | None = None
    ) -> Ticket:
        """Queue a player. Refused (``429 too_many_games``) when the games in play at which
        their client ``address`` has a seat, and its players already waiting here, make
        ``games_per_address``: a Play now table is a game from each address seated at it."""
        self.check(choice)
        queued_here = sum(1 for t in self._tickets.values() if t.address == address)
        if address is not None and not await self._tables.games_to_spare(
            address, besides=queued_here
        ):
            raise RoomError(
                "too_many_games",
                "Too many games are in play from your address; finish one or try again later.",
                status=429,
            )
        rating = await self._rating_of(player_id)
        now = time.time()
        ticket = Ticket(
            id=secrets.token_urlsafe(12),
            choice=choice,
            player_id=player_id,
            token=new_seat_token(),
            address=address,
        )
        waiting = Waiting(
            ticket=ticket.id,
            name=name,
            player_id=player_id,
            token_hash=hash_token(ticket.token),
            rating=rating,
            joined_at=now,
            address=address,
        )
        if not await self.store.join(
            choice.key, waiting, now=now, hold_seconds=self._stale_seconds
        ):
            raise QueueError("already_queued", "You are already waiting for a game elsewhere.")
        self._tickets[ticket.id] = ticket
        self._arrived.set()
        return ticket

    async def leave(self, ticket: Ticket) -> None:
        """Out of the queue (unless already taken for a room: the seat then stays theirs)."""
        self._tickets.pop(ticket.id, None)
        if not ticket.placed.done():
            ticket.placed.cancel()
        await self.store.leave(ticket.choice.key, ticket.id, ticket.player_id)

    async def fill_with_ai(self, ticket: Ticket) -> None:
        await self.store.ask_ai(ticket.choice.key, ticket.id)
        self._arrived.set()

    async def run(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.tick()
            except STORE_ERRORS as error:
                logger.warning("matching skipped a round: store unavailable (%s)", error)
            except Exception:
                # Whatever went wrong, the loop must go on: players taken for a room that was
                # not made come back when their lease runs out.
                logger.exception("matching failed a round")
            pause = self._settings.queue_tick_seconds - (time.monotonic() - started)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), max(0.01, pause))
            self._arrived.clear()

    async def tick(self) -> None:
        """Match every queue this process has players in, and hear where its players sit."""
        by_queue: dict[str, list[Ticket]] = {}
        for ticket in self._tickets.values():
            by_queue.setdefault(ticket.choice.key, []).append(ticket)
        for queue, tickets in by_queue.items():
            await self._match(queue, tickets[0].choice, tickets)

    async def _match(self, queue: str, choice: Choice, tickets: list[Ticket]) -> None:
        now = time.time()
        waiting = await self.store.snapshot(queue, now=now, stale_before=now - self._stale_seconds)
        for group in groups(
            waiting,
            seats=choice.seats,
            now=now,
            window=self._window,
            ai_wait=self._settings.queue_ai_wait_seconds,
        ):
            await self._seat(queue, choice, group)
        placed = await self.store.heartbeat(
            queue,
            ((ticket.id, ticket.player_id) for ticket in tickets),
            now=time.time(),
            hold_seconds=self._stale_seconds,
        )
        for ticket_id, placement in placed.items():
            ticket = self._tickets.pop(ticket_id, None)
            if ticket is not None and not ticket.placed.done():
                ticket.placed.set_result(placement)
        self._tell(tickets, waiting, now)

    def _tell(self, tickets: list[Ticket], waiting: list[Waiting], now: float) -> None:
        by_age = sorted(waiting, key=lambda p: (p.joined_at, p.ticket))
        for ticket in tickets:
            me = next((p for p in by_age if p.ticket == ticket.id), None)
            if me is None or ticket.placed.done():
                continue
            mine = self._window.of(me, now)
            fitting = sum(
                1
                for p in waiting
                if abs(p.rating - me.rating) <= min(mine, self._window.of(p, now))
            )
            status = Status(
                position=by_age.index(me) + 1,
                found=min(ticket.choice.seats or MAX_SEATS, fitting),
                waiting=len(waiting),
            )
            if status != ticket.status:
                ticket.status = status
                ticket.changed.set()

    async def _seat(self, queue: str, choice: Choice, group: Group) -> None:
        """Take the group, seat them in a new room, say where, then deal.

        The order makes a process that dies part way lose nobody and rate no game nobody
        played: before the placements are written, its players come back to the queue when the
        lease runs out (the room, never dealt, expires); after, they reach a waiting room whose
        host, the first of them, can start it."""
        if await self._tables.games_in_play_at_ceiling():
            # The players wait on: a table is made once a game in play ends.
            self.metrics.held.inc()
            return
        tickets = [player.ticket for player in group.players]
        if not await self.store.take(queue, tickets, lease_until=time.time() + LEASE_SECONDS):
            return
        try:
            room = await self._seated_room(choice, group)
        except (RoomError, *STORE_ERRORS) as error:  # type: ignore[misc]
            logger.warning("a Play now room could not be made (%s)", error)
            await self.store.release(queue, tickets, now=time.time())
            return
        await self.store.place(
            queue,
            {
                player.ticket: Placement(code=room.code, seat=seat)
                for seat, player in enumerate(group.players)
            },
        )
        self._hub.committed(await self._tables.rooms.update(room.code, _deal))
        await self._tables.hold_games(room.code, (player.address for player in group.players))
        self.metrics.tables.inc()
        self.metrics.ai_seats.inc(len(group.bots))
        logger.info(
            "play now room made",
            extra={"room": room.code, "people": len(group.players), "ai": len(group.bots)},
        )

    async def _seated_room(self, choice: Choice, group: Group) -> Room:
        """A new public room with the group in its seats (the first as host) and AI in the
        rest, not dealt yet."""
        first = group.players[0]
        options = _options(choice, seats=len(group.players) + len(group.bots))
        created, _ = await self._tables.create(
            name=first.name, player_id=first.player_id, options=options
        )
        now = time.time()

        def seat(room: Room) -> Room:
            room = room.clone()
            for index, player in enumerate(group.players):
                room.seats[index] = Seat(
                    name=player.name,
                    token_hash=player.token_hash,
                    player_id=player.player_id,
                    disconnected_at=now,
                    unopened=True,
                )
            for level in group.bots:
                room, _ = lobby.take_seat(room, lobby.bot_seat(room, level))
            return room

        return await self._tables.rooms.update(created.code, seat)


def _options(choice: Choice, *, seats: int) -> RoomOptions:
    """A Play now table's options: public, as asked, a turn-based one with a day to move."""
    return RoomOptions(
        room_name=ROOM_NAME,
        rules=choice.rules,
        draft=choice.draft,
        seats=seats,
        visibility="public",
        mode=choice.mode,
        move_seconds=TURN_MOVE_SECONDS,
    )


def _deal(room: Room) -> Room | None:
    """The game dealt, unless it already is (the host started it first)."""
    if room.status != "waiting":
        return None
    return play.start(room, seed=secrets.randbits(63), game_id=str(uuid.uuid4()), now=time.time())

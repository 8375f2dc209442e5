"""The lobby's index of games in play, kept from the rooms this process commits."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from typing import Literal

from pydantic import BaseModel

import engine
from app.db.repository import public_player_id
from app.matchmaking.store import GameEntry, MatchStore
from app.rooms.model import AiLevel, Room, RuleSet
from app.store.base import STORE_ERRORS

logger = logging.getLogger(__name__)

NOTE_EVERY_SECONDS = 2.0
"""A public room in play is written to the index at most this often (and at once when it
starts or ends): its stage line may lag a couple of moves; the store is spared a write per
move."""
KEEP_SECONDS = 60.0
"""A room that is not listed (a private one) is only counted: it is written when it starts
and ends, and this often in between so that it is not taken for abandoned."""
LIVE_SECONDS = 300.0
"""A game nothing happened in for this long is no longer listed as in play."""


class LivePlayer(BaseModel):
    name: str
    kind: Literal["person", "ai"]
    level: AiLevel | None = None
    player: str | None = None
    """The person's public player id (never the guest id), when they have one."""
    rating: float | None = None
    """Filled in when the list is read: the person's rating (0 for a new player; None while the
    database cannot be read), or the AI level's fixed one."""


class LiveGame(BaseModel):
    """A public game in play, as ``GET /api/lobby`` lists it."""

    code: str
    rules: RuleSet
    draft: bool
    round: int
    """1 for the first round."""
    cards_left: int
    """Cards in the deck."""
    players: list[LivePlayer]


def live_game(room: Room) -> LiveGame:
    view = engine.view_for(room.engine_state(), None)
    return LiveGame(
        code=room.code,
        rules=room.options.rules,
        draft=room.options.draft,
        round=int(view["round"]) + 1,
        cards_left=int(view["deck_size"]),
        players=[
            LivePlayer(
                name=seat.name,
                kind="ai" if seat.is_ai else "person",
                level=seat.level,
                player=None if seat.player_id is None else public_player_id(seat.player_id),
            )
            for seat in room.seats
            if seat is not None
        ],
    )


def _listed(room: Room) -> bool:
    """Shown in the lobby's list of games to watch: public, and open to spectators."""
    return room.options.visibility == "public" and room.options.spectators


def game_entry(room: Room) -> GameEntry:
    playing = room.status == "playing" and room.game is not None
    listing = live_game(room).model_dump_json() if playing and _listed(room) else None
    return GameEntry(code=room.code, version=room.version, listing=listing, playing=playing)


class GameIndex:
    """Hears every commit this process makes and keeps the store's index of games in play up
    to date: a public room at most every ``NOTE_EVERY_SECONDS`` while its status stays the
    same, any other every ``KEEP_SECONDS``.

    A room waiting for its time is in a heap by when it is due, so that a look finds the due
    ones without going over every room this process plays (it looked at all of them four times
    a second: 2% of the process's Python time at 1,000 rooms, ``docs/performance.md``)."""

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        self._pending: dict[str, Room] = {}
        """Code → the room as last committed here, not yet written."""
        self._changed: set[str] = set()
        """Pending rooms to write at the next look: new here, or their status changed."""
        self._due: list[tuple[float, str]] = []
        """Heap of (when due, code) for the other pending rooms; an entry whose time is not
        ``_due_at``'s for its code is stale."""
        self._due_at: dict[str, float] = {}
        self._noted: dict[str, tuple[float, str]] = {}
        """Code → when it was last written and its status then."""
        self._forgotten_at = 0.0
        self._wake = asyncio.Event()

    def committed(self, room: Room) -> None:
        code = room.code
        noted = self._noted.get(code)
        # A finished game is written even when this process never wrote it as playing: its
        # last move may be committed by another process than the ones that noted it.
        if noted is None and room.status == "waiting":
            return
        self._pending[code] = room
        if noted is None or noted[1] != room.status:
            self._changed.add(code)
            self._wake.set()
        elif code not in self._due_at and code not in self._changed:
            self._wait(code, noted[0] + _every(room))

    def _wait(self, code: str, due_at: float) -> None:
        self._due_at[code] = due_at
        heapq.heappush(self._due, (due_at, code))

    async def run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), NOTE_EVERY_SECONDS / 4)
            self._wake.clear()
            await self.flush()

    async def flush(self, *, everything: bool = False) -> None:
        now = time.time()
        self._forget(now)
        if everything:
            codes = list(self._pending)
            self._due.clear()
            self._due_at.clear()
        else:
            codes = list(self._changed)
            while self._due and self._due[0][0] <= now:
                due_at, code = heapq.heappop(self._due)
                if self._due_at.get(code) == due_at:
                    del self._due_at[code]
                    codes.append(code)
        self._changed.clear()
        for code in codes:
            room = self._pending.get(code)
            if room is None:
                continue
            noted = self._noted.get(code)
            changed = noted is None or noted[1] != room.status
            if not (everything or changed) and noted is not None:
                due_at = noted[0] + _every(room)  # the room may have been listed since
                if due_at > now:
                    self._wait(code, due_at)
                    continue
            del self._pending[code]
            self._due_at.pop(code, None)
            try:
                await self._store.note_game(game_entry(room), now=now)
            except STORE_ERRORS as error:
                logger.warning("live game index not written (%s)", type(error).__name__)
                continue
            if room.status == "playing":
                self._noted[code] = (now, room.status)
            else:
                self._noted.pop(code, None)

    def _forget(self, now: float) -> None:
        """A room that stopped committing here (it ended or moved to another process) is
        forgotten once the index would have dropped it too; looked for now and then."""
        if now - self._forgotten_at < LIVE_SECONDS / 10:
            return
        self._forgotten_at = now
        self._noted = {
            code: noted for code, noted in self._noted.items() if now - noted[0] < LIVE_SECONDS
        }


def _every(room: Room) -> float:
    """How often a room whose status stays the same is written."""
    return NOTE_EVERY_SECONDS if _listed(room) else KEEP_SECONDS

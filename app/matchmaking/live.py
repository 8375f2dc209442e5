"""The lobby's index of games in play, kept from the rooms this process commits."""

from __future__ import annotations

import asyncio
import contextlib
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
    same, any other every ``KEEP_SECONDS``."""

    def __init__(self, store: MatchStore) -> None:
        self._store = store
        self._pending: dict[str, Room] = {}
        self._noted: dict[str, tuple[float, str]] = {}
        """Code → when it was last written and its status then."""
        self._wake = asyncio.Event()

    def committed(self, room: Room) -> None:
        noted = self._noted.get(room.code)
        # A finished game is written even when this process never wrote it as playing: its
        # last move may be committed by another process than the ones that noted it.
        if noted is None and room.status == "waiting":
            return
        self._pending[room.code] = room
        if noted is None or noted[1] != room.status:
            self._wake.set()

    async def run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), NOTE_EVERY_SECONDS / 4)
            self._wake.clear()
            await self.flush()

    async def flush(self, *, everything: bool = False) -> None:
        now = time.time()
        # A room that stopped committing here (it ended or moved to another process) is
        # forgotten once the index would have dropped it too.
        self._noted = {
            code: noted for code, noted in self._noted.items() if now - noted[0] < LIVE_SECONDS
        }
        for code, room in list(self._pending.items()):
            noted = self._noted.get(code)
            changed = noted is None or noted[1] != room.status
            every = NOTE_EVERY_SECONDS if _listed(room) else KEEP_SECONDS
            due = noted is None or now - noted[0] >= every
            if not (everything or changed or due):
                continue
            del self._pending[code]
            try:
                await self._store.note_game(game_entry(room), now=now)
            except STORE_ERRORS as error:
                logger.warning("live game index not written (%s)", type(error).__name__)
                continue
            if room.status == "playing":
                self._noted[code] = (now, room.status)
            else:
                self._noted.pop(code, None)

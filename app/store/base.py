"""The RoomStore interface shared by the memory and Redis implementations."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from redis.exceptions import RedisError

EventKind = Literal["commit", "message", "resync"]

STORE_ERRORS: tuple[type[Exception], ...] = (RedisError, OSError)
"""What a store's call raises when the store is down, slow or gone: redis-py's errors, and
``OSError`` (refused connections and timeouts, ``TimeoutError`` included). Not a refusal of
the request itself: the same request may succeed when sent again."""


def wall_clock() -> float:
    """``time.time()``, looked up at each call, so that a test which moves ``time.time`` moves
    every store's clock with it (a default of ``time.time`` itself would keep the real one)."""
    return time.time()


@dataclass(frozen=True, slots=True)
class StoreEvent:
    """What the process's subscription delivers."""

    kind: EventKind
    """``commit``: a room has a new version (read it from the store: the event does not carry
    the room); ``message``: an ephemeral room message (chat); ``resync``: the room's
    subscription (no code: every room's) was lost and is back, so the room must be re-read."""
    code: str = ""
    data: str = ""
    """A message's text."""
    version: int = 0
    """A commit's version."""


@dataclass(frozen=True, slots=True)
class Commit:
    """A room's next version with the indexes that follow it: a new snapshot of the room, or
    one move appended to the snapshot's tail."""

    code: str
    version: int
    """The new version: one more than the stored one (1 for a new room)."""
    data: str
    """The room's JSON (a new snapshot), or with ``step`` the move that makes this version
    from the one before (its readers replay it: the engine is deterministic)."""
    wake_at: float | None
    """When some process must look at the room again (clocks, AI turn, recording)."""
    listing: str | None
    """The room's entry in the public list of rooms waiting for players (its JSON), or None
    when it is not listed."""
    ttl_seconds: int | None
    """Expire the room after this long untouched (Redis may keep it up to an eighth longer,
    never less: ``app.store.redis.TTL_SLACK``); None keeps it (unrecorded games)."""
    previous_wake_at: float | None = None
    """The wake time of the version this one replaces (None: it had none, or a new room)."""
    waiting: bool = False
    """Waiting for its first game: counted by ``waiting_rooms`` until it starts or expires."""
    step: bool = False
    """``data`` is a move appended to the room's tail, not a snapshot (never for version 1)."""


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """A room as the store holds it: a snapshot and the moves committed since, in order."""

    version: int
    """The room's newest version: ``base`` plus one per step."""
    snapshot: str | None
    """The snapshot's JSON; None when the reader's own copy (at ``base``) is the base."""
    base: int
    """The version the steps start after: the snapshot's, or the reader's own copy's."""
    steps: list[str]
    """The moves after ``base``, oldest first (``Commit.data`` of each step commit)."""


class RoomStore(Protocol):
    """Rooms by code, each with a version; a commit is a compare-and-set that also publishes."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def load(self, code: str, *, after: int = 0) -> StoredRoom | None:
        """The room's snapshot and the steps since; only the steps after ``after`` when the
        caller holds that version of the room and it is not older than the snapshot. None if
        there is no such room (or it expired)."""
        ...

    async def commit(self, commit: Commit) -> bool:
        """Write the room (a snapshot, dropping the tail; or a step, appended to the tail) if
        its stored version is one less than ``commit.version`` (version 1: it must not exist
        yet); refresh its TTL and indexes and announce its code and version
        on the room's channel (to this store's own subscription too). False when the version
        moved."""
        ...

    async def restore(
        self,
        code: str,
        *,
        version: int,
        data: str,
        wake_at: float | None,
        ttl_seconds: int | None,
        chat: Sequence[str] = (),
    ) -> bool:
        """Write a room brought back from the database (``app/turns``) as a snapshot of
        ``data`` at ``version``, with its wake time indexed and the chat lines it was parked
        with (``chat_lines``, oldest first), in one step and only if the store holds no room
        under ``code``: of two processes bringing it back, one writes it and the other finds
        it there. Nothing is announced (nothing changed). False when a room was there."""
        ...

    async def drop(self, code: str, *, version: int, chat: Sequence[str] = ()) -> bool:
        """Take a parked room (its database copy is current, with ``chat``, its chat lines as
        read before) out of the store with its chat and index entries, only if it is still at
        ``version`` and its newest chat line is still ``chat``'s: a move committed since, or a
        line said since, keeps it. False when it was not dropped."""
        ...

    async def publish(self, code: str, message: str) -> None:
        """Send an ephemeral message to the room's connections in every process."""
        ...

    async def chat(self, code: str, message: str, *, keep: int) -> bool:
        """``publish`` a chat message and keep it as the newest of the room's last ``keep``,
        expiring with the room. False, with nothing kept or sent, when there is no such room."""
        ...

    async def chat_lines(self, code: str) -> list[str]:
        """The chat messages the room keeps, oldest first; none once the room is gone."""
        ...

    async def watch(self, code: str) -> None:
        """Hear about the room's commits and messages (``events``) from now on: once this
        returns, nothing committed later is missed. Called when the process takes the room's
        first connection."""
        ...

    def unwatch(self, code: str) -> None:
        """Stop hearing about the room (its last connection here has gone)."""
        ...

    def events(self) -> AsyncIterator[StoreEvent]:
        """This process's subscription: the commits and messages of the rooms it watches, and
        ``resync`` for a room (or, with no code, for all) whose events may have been missed."""
        ...

    async def due(self, now: float) -> tuple[list[str], float | None]:
        """Rooms whose wake time has come, and the earliest wake time of any room."""
        ...

    async def settle_wake(self, code: str, version: int, wake_at: float | None) -> None:
        """Put the room's true wake time (as of ``version``) back in the index after it was
        woken early, unless a newer version's is there already."""
        ...

    async def forget(self, code: str) -> None:
        """Drop an expired room from the indexes."""
        ...

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        """A page of the public list (the ``listing`` entries, most recently changed room
        first), and how many entries the list holds. Read from an index, never by scanning
        rooms; an expired room's entry is dropped."""
        ...

    async def waiting_rooms(self) -> int:
        """How many rooms (not expired) wait for their first game."""
        ...

    async def claim(self, key: str, seconds: float) -> bool:
        """True for exactly one caller per key until ``seconds`` pass."""
        ...

    async def hit(self, key: str, *, limit: int, window_seconds: int) -> bool:
        """Count one attempt under ``key``; False once ``limit`` is passed in the window."""
        ...

    async def hold_place(self, key: str, member: str, *, seconds: float) -> None:
        """Keep ``member`` in the set under ``key`` for ``seconds`` (from now, even if it was
        held longer before), across processes: what one client address has open (rooms
        waiting, games in play), the games counted toward the ceiling."""
        ...

    async def free_place(self, key: str, member: str) -> None:
        """Take ``member`` out of the set under ``key`` before its time runs out."""
        ...

    async def places(self, key: str) -> list[str]:
        """The members of the set under ``key`` whose time has not run out."""
        ...

    async def count_places(self, key: str) -> int:
        """How many members of the set under ``key`` are held still: one count in the store,
        whatever their number (the ceiling of games in play is asked at every start)."""
        ...

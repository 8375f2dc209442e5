"""Rooms in this process's memory: the embedded default for a single server process."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from app.store.base import Commit, StoredRoom, StoreEvent, wall_clock
from app.store.expiring import Sweeper

_MAX_HIT_KEYS = 10_000
"""Rate-limit counters kept before ended windows are swept out, between two sweeps."""
SWEEP_SECONDS = 30.0
"""How often expired rooms, with their chat and index entries, are freed: a room nobody asks
about again would otherwise stay in memory for good."""


@dataclass(slots=True)
class _Entry:
    version: int
    snapshot: str
    """The room's JSON as of ``snapshot_version``; ``steps`` make the versions after it."""
    expires_at: float | None
    snapshot_version: int
    steps: list[str] = field(default_factory=list)


class MemoryRoomStore:
    """The RoomStore contract with dicts; one event queue stands in for the subscription.

    Every entry has a time after which ``sweep`` frees it (rooms, their chat and index
    entries, claims, counters, held places), whether or not anyone reads it again."""

    def __init__(
        self, *, sweep_seconds: float = SWEEP_SECONDS, clock: Callable[[], float] | None = None
    ) -> None:
        self._clock = clock or wall_clock
        self._sweeper = Sweeper(self.sweep, seconds=sweep_seconds)
        self._rooms: dict[str, _Entry] = {}
        self._wake: dict[str, float] = {}
        self._listed: dict[str, tuple[float, str]] = {}
        """Code → (when the room expires, its listing)."""
        self._waiting: dict[str, float] = {}
        """Code → when the room expires."""
        self._chats: dict[str, deque[str]] = {}
        self._claims: dict[str, float] = {}
        self._hits: dict[str, tuple[float, int]] = {}
        """Key → (when its window ends, attempts in it)."""
        self._held: dict[str, dict[str, float]] = {}
        """Key → member → until when it is held."""
        self._events: asyncio.Queue[StoreEvent] = asyncio.Queue()

    async def start(self) -> None:
        await self._sweeper.start()

    async def close(self) -> None:
        await self._sweeper.close()

    @property
    def rooms_in_memory(self) -> int:
        """Rooms held in memory, expired ones not yet swept included."""
        return len(self._rooms)

    @property
    def entries(self) -> int:
        """Everything held, over every structure: what the sweep keeps bounded."""
        return (
            len(self._rooms)
            + len(self._wake)
            + len(self._listed)
            + len(self._waiting)
            + len(self._chats)
            + len(self._claims)
            + len(self._hits)
            + sum(len(members) for members in self._held.values())
        )

    def sweep(self) -> None:
        """Free every expired room with its chat and index entries (also those of a room read
        after it expired), ended claims and counter windows, and places no longer held."""
        now = self._clock()
        expired = [
            code
            for code, entry in self._rooms.items()
            if entry.expires_at is not None and entry.expires_at <= now
        ]
        for code in expired:
            self._drop(code)
        self._listed = {code: entry for code, entry in self._listed.items() if entry[0] > now}
        self._waiting = {code: until for code, until in self._waiting.items() if until > now}
        self._wake = {code: when for code, when in self._wake.items() if code in self._rooms}
        self._chats = {code: lines for code, lines in self._chats.items() if code in self._rooms}
        self._claims = {key: until for key, until in self._claims.items() if until > now}
        self._hits = {key: hits for key, hits in self._hits.items() if hits[0] > now}
        for key in list(self._held):
            self._held_now(key, now)

    def _drop(self, code: str) -> None:
        del self._rooms[code]
        self._chats.pop(code, None)
        self._wake.pop(code, None)
        self._listed.pop(code, None)
        self._waiting.pop(code, None)

    def _entry(self, code: str) -> _Entry | None:
        entry = self._rooms.get(code)
        if entry is not None and entry.expires_at is not None and entry.expires_at <= self._clock():
            self._drop(code)
            return None
        return entry

    async def load(self, code: str, *, after: int = 0) -> StoredRoom | None:
        entry = self._entry(code)
        if entry is None:
            return None
        if entry.snapshot_version <= after <= entry.version:
            steps = entry.steps[after - entry.snapshot_version :]
            return StoredRoom(entry.version, None, after, steps)
        return StoredRoom(entry.version, entry.snapshot, entry.snapshot_version, list(entry.steps))

    async def commit(self, commit: Commit) -> bool:
        entry = self._entry(commit.code)
        current = 0 if entry is None else entry.version
        if current != commit.version - 1:
            return False
        expires_at = None if commit.ttl_seconds is None else self._clock() + commit.ttl_seconds
        if commit.step and entry is not None:
            entry.version, entry.expires_at = commit.version, expires_at
            entry.steps.append(commit.data)
        else:
            entry = _Entry(commit.version, commit.data, expires_at, commit.version)
            self._rooms[commit.code] = entry
        if commit.wake_at is None:
            self._wake.pop(commit.code, None)
        else:
            self._wake[commit.code] = commit.wake_at
        until = float("inf") if expires_at is None else expires_at
        if commit.listing is not None:
            self._listed[commit.code] = (until, commit.listing)
        else:
            self._listed.pop(commit.code, None)
        if commit.waiting:
            self._waiting[commit.code] = until
        else:
            self._waiting.pop(commit.code, None)
        self._events.put_nowait(StoreEvent("commit", commit.code, version=commit.version))
        return True

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
        if self._entry(code) is not None:
            return False
        expires_at = None if ttl_seconds is None else self._clock() + ttl_seconds
        self._rooms[code] = _Entry(version, data, expires_at, version)
        if wake_at is not None:
            self._wake[code] = wake_at
        self._chats.pop(code, None)
        if chat:
            self._chats[code] = deque(chat)
        return True

    async def drop(self, code: str, *, version: int, chat: Sequence[str] = ()) -> bool:
        entry = self._entry(code)
        if entry is None or entry.version != version:
            return False
        lines = self._chats.get(code)
        if (lines[-1] if lines else "") != (chat[-1] if chat else ""):
            return False
        self._drop(code)
        return True

    async def publish(self, code: str, message: str) -> None:
        self._events.put_nowait(StoreEvent("message", code, message))

    async def chat(self, code: str, message: str, *, keep: int) -> bool:
        if self._entry(code) is None:
            return False
        lines = self._chats.get(code)
        if lines is None or lines.maxlen != keep:
            lines = self._chats[code] = deque(lines or (), maxlen=keep)
        lines.append(message)
        await self.publish(code, message)
        return True

    async def chat_lines(self, code: str) -> list[str]:
        if self._entry(code) is None:
            return []
        return list(self._chats.get(code, ()))

    async def watch(self, code: str) -> None:
        return None  # one process: it hears every room

    def unwatch(self, code: str) -> None:
        return None

    async def events(self) -> AsyncIterator[StoreEvent]:
        while True:
            yield await self._events.get()

    async def due(self, now: float) -> tuple[list[str], float | None]:
        due = [code for code, when in self._wake.items() if when <= now]
        return due, min(self._wake.values(), default=None)

    async def settle_wake(self, code: str, version: int, wake_at: float | None) -> None:
        entry = self._entry(code)
        if entry is None or entry.version > version:
            return
        if wake_at is None:
            self._wake.pop(code, None)
        else:
            self._wake[code] = wake_at

    async def forget(self, code: str) -> None:
        if self._entry(code) is None:
            self._wake.pop(code, None)
            self._listed.pop(code, None)
            self._waiting.pop(code, None)

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        now = self._clock()
        self._listed = {code: entry for code, entry in self._listed.items() if entry[0] > now}
        newest_first = sorted(self._listed.items(), key=lambda item: (-item[1][0], item[0]))
        page = newest_first[offset : offset + limit]
        return [listing for _, (_, listing) in page], len(newest_first)

    async def waiting_rooms(self) -> int:
        now = self._clock()
        self._waiting = {code: until for code, until in self._waiting.items() if until > now}
        return len(self._waiting)

    async def claim(self, key: str, seconds: float) -> bool:
        now = self._clock()
        if self._claims.get(key, 0.0) > now:
            return False
        self._claims = {k: until for k, until in self._claims.items() if until > now}
        self._claims[key] = now + seconds
        return True

    async def hit(self, key: str, *, limit: int, window_seconds: int) -> bool:
        now = self._clock()
        if len(self._hits) > _MAX_HIT_KEYS:
            self._hits = {k: hits for k, hits in self._hits.items() if hits[0] > now}
        ends, count = self._hits.get(key, (now + window_seconds, 0))
        if ends <= now:
            ends, count = now + window_seconds, 0
        self._hits[key] = (ends, count + 1)
        return count < limit

    async def hold_place(self, key: str, member: str, *, seconds: float) -> None:
        self._held.setdefault(key, {})[member] = self._clock() + seconds

    async def free_place(self, key: str, member: str) -> None:
        members = self._held.get(key)
        if members is not None:
            members.pop(member, None)
            if not members:
                del self._held[key]

    async def places(self, key: str) -> list[str]:
        return list(self._held_now(key, self._clock()))

    async def count_places(self, key: str) -> int:
        return len(self._held_now(key, self._clock()))

    def _held_now(self, key: str, now: float) -> dict[str, float]:
        members = {m: until for m, until in self._held.get(key, {}).items() if until > now}
        if members:
            self._held[key] = members
        else:
            self._held.pop(key, None)
        return members

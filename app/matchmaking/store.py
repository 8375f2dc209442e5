"""Where the queues and the lobby's counters live: the ``MatchStore`` interface, in memory.

A queue (one per ``Choice``) holds waiting players; a group is *taken* from it by exactly one
process (``take``), under a lease: if that process dies before it has seated them
(``place``), the lease runs out and the next ``snapshot`` puts them back in the queue. A
waiting player's own process keeps them alive (``heartbeat``); one that stops (its process
died) is dropped. The lobby's counters are kept here too: players online per process, and
the index of games in play, from which the live list is paged."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from app.matchmaking.model import Placement, TicketId, Waiting
from app.store.base import wall_clock
from app.store.expiring import Sweeper

PLACEMENT_SECONDS = 120
"""How long a placement waits for its player's process to read it."""
SWEEP_SECONDS = 30.0
"""How often the memory store frees what no one will read again: placements never read,
holds and games whose time ran out, tickets no longer waiting."""
GAMES_KEPT_SECONDS = 300.0
"""A game not noted for this long leaves the memory index even if no one reads the lobby (the
lobby's own cut, ``app/matchmaking/live.py``'s ``LIVE_SECONDS``, is the same)."""


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A room's entry in the index of games in play."""

    code: str
    version: int
    listing: str | None
    """Its entry in the public list of live games (JSON), or None: not public, or over."""
    playing: bool


class MatchStore(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def join(self, queue: str, waiting: Waiting, *, now: float, hold_seconds: float) -> bool:
        """Queue ``waiting``; False (nothing queued) when their player id already waits in a
        queue (held for ``hold_seconds`` past each heartbeat)."""
        ...

    async def leave(self, queue: str, ticket: TicketId, player_id: str) -> bool:
        """Take a waiting ticket out of the queue; False when it was already taken for a room."""
        ...

    async def ask_ai(self, queue: str, ticket: TicketId) -> bool:
        """Mark a waiting ticket as wanting AI at once; False when it is no longer waiting."""
        ...

    async def snapshot(self, queue: str, *, now: float, stale_before: float) -> list[Waiting]:
        """The players waiting, after putting back those whose lease ran out and dropping those
        whose process has not kept them alive since ``stale_before``."""
        ...

    async def take(self, queue: str, tickets: Sequence[TicketId], *, lease_until: float) -> bool:
        """Take every ticket out of the queue, or none when any is no longer waiting (another
        process took it, or it left). Exactly one caller wins a ticket."""
        ...

    async def release(self, queue: str, tickets: Sequence[TicketId], *, now: float) -> None:
        """Put taken tickets back in the queue (their room could not be made)."""
        ...

    async def place(self, queue: str, placements: dict[TicketId, Placement]) -> None:
        """Say where taken tickets sit; their processes read it at their next ``heartbeat``."""
        ...

    async def heartbeat(
        self,
        queue: str,
        tickets: Iterable[tuple[TicketId, str]],
        *,
        now: float,
        hold_seconds: float,
    ) -> dict[TicketId, Placement]:
        """Keep this process's (ticket, player id) pairs alive; the placements found for them
        (each read once)."""
        ...

    async def report_online(self, process: str, count: int, *, now: float) -> None:
        """This process has ``count`` players connected."""
        ...

    async def online(self, *, since: float) -> int:
        """Players connected, over every process that reported since ``since``."""
        ...

    async def note_game(self, entry: GameEntry, *, now: float) -> None:
        """Index a room's game, unless a newer version of it is indexed already."""
        ...

    async def live_games(
        self, *, offset: int, limit: int, since: float
    ) -> tuple[list[str], int, int]:
        """A page of the public live games (most recently changed first), how many there are,
        and how many games are in play in all; games unchanged since ``since`` are dropped."""
        ...


class MemoryMatchStore:
    """``MatchStore`` in dicts, for one server process. Each entry leaves when its time runs out
    (``sweep``, on a clock while started), not only when someone reads it: 10,000 matched
    players left 10,000 entries behind, and games stayed indexed until the lobby was read."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] | None = None,
        sweep_seconds: float = SWEEP_SECONDS,
        games_kept_seconds: float = GAMES_KEPT_SECONDS,
    ) -> None:
        self._clock = clock or wall_clock
        self._games_kept_seconds = games_kept_seconds
        self._sweeper = Sweeper(self.sweep, seconds=sweep_seconds)
        self._waiting: dict[str, dict[TicketId, Waiting]] = {}
        self._seen: dict[TicketId, float] = {}
        self._taken: dict[str, dict[TicketId, tuple[float, Waiting]]] = {}
        self._placed: dict[TicketId, tuple[float, Placement]] = {}
        self._players: dict[str, tuple[TicketId, float]] = {}
        self._online: dict[str, tuple[int, float]] = {}
        self._games: dict[str, tuple[float, GameEntry]] = {}

    async def start(self) -> None:
        await self._sweeper.start()

    async def close(self) -> None:
        await self._sweeper.close()

    @property
    def entries(self) -> int:
        """Everything held, over every structure: what the sweep keeps bounded."""
        return (
            sum(len(queue) for queue in self._waiting.values())
            + sum(len(queue) for queue in self._taken.values())
            + len(self._seen)
            + len(self._placed)
            + len(self._players)
            + len(self._online)
            + len(self._games)
        )

    def sweep(self) -> None:
        """Drop placements never read, player holds and process reports whose time ran out,
        games not noted for ``games_kept_seconds``, and ``_seen`` times of tickets that no
        longer wait."""
        now = self._clock()
        self._placed = {t: placed for t, placed in self._placed.items() if placed[0] > now}
        self._players = {p: held for p, held in self._players.items() if held[1] > now}
        since = now - self._games_kept_seconds
        self._online = {p: report for p, report in self._online.items() if report[1] >= since}
        self._games = {code: known for code, known in self._games.items() if known[0] >= since}
        waiting = {ticket for queue in self._waiting.values() for ticket in queue}
        self._seen = {t: seen for t, seen in self._seen.items() if t in waiting}

    async def join(self, queue: str, waiting: Waiting, *, now: float, hold_seconds: float) -> bool:
        held = self._players.get(waiting.player_id)
        if held is not None and held[0] != waiting.ticket and held[1] > now:
            return False
        self._players[waiting.player_id] = (waiting.ticket, now + hold_seconds)
        self._waiting.setdefault(queue, {})[waiting.ticket] = waiting
        self._seen[waiting.ticket] = now
        return True

    async def leave(self, queue: str, ticket: TicketId, player_id: str) -> bool:
        held = self._players.get(player_id)
        if held is not None and held[0] == ticket:
            del self._players[player_id]
        self._seen.pop(ticket, None)
        return self._waiting.get(queue, {}).pop(ticket, None) is not None

    async def ask_ai(self, queue: str, ticket: TicketId) -> bool:
        waiting = self._waiting.get(queue, {})
        if ticket not in waiting:
            return False
        waiting[ticket] = waiting[ticket].model_copy(update={"ai_now": True})
        return True

    async def snapshot(self, queue: str, *, now: float, stale_before: float) -> list[Waiting]:
        waiting = self._waiting.setdefault(queue, {})
        taken = self._taken.setdefault(queue, {})
        for ticket, (lease_until, player) in list(taken.items()):
            if lease_until <= now:
                del taken[ticket]
                waiting[ticket] = player
                self._seen[ticket] = now
        for ticket in list(waiting):
            if self._seen.get(ticket, 0.0) < stale_before:
                del waiting[ticket]
                self._seen.pop(ticket, None)
        return list(waiting.values())

    async def take(self, queue: str, tickets: Sequence[TicketId], *, lease_until: float) -> bool:
        waiting = self._waiting.get(queue, {})
        if any(ticket not in waiting for ticket in tickets):
            return False
        taken = self._taken.setdefault(queue, {})
        for ticket in tickets:
            taken[ticket] = (lease_until, waiting.pop(ticket))
            self._seen.pop(ticket, None)  # a lease that runs out sets it again
        return True

    async def release(self, queue: str, tickets: Sequence[TicketId], *, now: float) -> None:
        taken = self._taken.get(queue, {})
        for ticket in tickets:
            entry = taken.pop(ticket, None)
            if entry is not None:
                self._waiting.setdefault(queue, {})[ticket] = entry[1]
                self._seen[ticket] = now

    async def place(self, queue: str, placements: dict[TicketId, Placement]) -> None:
        taken = self._taken.get(queue, {})
        until = self._clock() + PLACEMENT_SECONDS
        for ticket, placement in placements.items():
            taken.pop(ticket, None)
            self._placed[ticket] = (until, placement)

    async def heartbeat(
        self,
        queue: str,
        tickets: Iterable[tuple[TicketId, str]],
        *,
        now: float,
        hold_seconds: float,
    ) -> dict[TicketId, Placement]:
        found: dict[TicketId, Placement] = {}
        for ticket, player_id in tickets:
            if ticket in self._seen:
                self._seen[ticket] = now
            held = self._players.get(player_id)
            if held is not None and held[0] == ticket:
                self._players[player_id] = (ticket, now + hold_seconds)
            placed = self._placed.pop(ticket, None)
            if placed is not None and placed[0] > now:
                found[ticket] = placed[1]
                self._players.pop(player_id, None)
        return found

    async def report_online(self, process: str, count: int, *, now: float) -> None:
        self._online[process] = (count, now)

    async def online(self, *, since: float) -> int:
        return sum(count for count, at in self._online.values() if at >= since)

    async def note_game(self, entry: GameEntry, *, now: float) -> None:
        known = self._games.get(entry.code)
        if known is not None and known[1].version > entry.version:
            return
        if entry.playing:
            self._games[entry.code] = (now, entry)
        else:
            self._games.pop(entry.code, None)

    async def live_games(
        self, *, offset: int, limit: int, since: float
    ) -> tuple[list[str], int, int]:
        self._games = {code: known for code, known in self._games.items() if known[0] >= since}
        newest = sorted(self._games.values(), key=lambda known: (-known[0], known[1].code))
        listed = [entry.listing for _, entry in newest if entry.listing is not None]
        return listed[offset : offset + limit], len(listed), len(self._games)

"""``MatchStore`` in Redis (one node or a Redis Cluster), shared by every server process.

Each queue's keys share the queue's name as their hash tag (``cash_stash:{queue-4-advanced-
plain}:waiting``, ``…:seen``, ``…:taken``, ``…:leases``, ``…:placed``), so every change to a
queue is one Lua script in one slot: two processes that try to take the same player at once
cannot both succeed. Which player id waits where is kept under a tag of its own
(``{queue-players}``), and the lobby's counters under another (``{lobby}``).

On the server's own Redis client (``app/resp/``), as the rooms are: one client for the whole
server. Its scripts are in ``scripts/``, one file each, their keys and arguments named in its
header. A script whose answer is lost is sent again only when running it twice does no harm
(``retry``): taking players, handing over placements and leaving report what they did, and a
second run would report otherwise."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from app.matchmaking.model import Placement, TicketId, Waiting
from app.matchmaking.store import PLACEMENT_SECONDS, GameEntry
from app.resp.nodes import Nodes, Script

_COMMAND_SECONDS = 15.0
"""The longest any one call to Redis may take, its retries included (as the rooms' store)."""

_SCRIPTS = resources.files("app.matchmaking") / "scripts"


def _script(name: str) -> Script:
    return Script.from_files(_SCRIPTS / f"{name}.lua")


_JOIN = _script("join")
_LEAVE = _script("leave")
_ASK_AI = _script("ask_ai")
_SNAPSHOT = _script("snapshot")
_TAKE = _script("take")
_RELEASE = _script("release")
_PLACE = _script("place")
_HEARTBEAT = _script("heartbeat")
_HOLD = _script("hold")
_UNHOLD = _script("unhold")
_ONLINE = _script("online")
_NOTE_GAME = _script("note_game")
_LIVE_GAMES = _script("live_games")


class RedisMatchStore:
    """``MatchStore`` on Redis, through the server's own client (``app.resp.nodes.Nodes``)."""

    def __init__(self, url: str, *, prefix: str, cluster: bool) -> None:
        self._nodes = Nodes(
            url,
            cluster=cluster,
            name=f"{prefix.strip(':') or 'cash_stash'}-queue",
            reply_seconds=_COMMAND_SECONDS,
            deadline_seconds=_COMMAND_SECONDS,
        )
        self._prefix = prefix

    async def _run(
        self,
        script: Script,
        keys: Mapping[str, str],
        args: Mapping[str, Any],
        *,
        retry: bool = True,
    ) -> Any:
        return await self._nodes.run(script, keys, args, retry=retry)

    def _queue(self, queue: str, *names: str) -> dict[str, str]:
        return {name: f"{self._prefix}{{{queue}}}:{name}" for name in names}

    def _held(self) -> dict[str, str]:
        return {name: f"{self._prefix}{{queue-players}}:{name}" for name in ("held", "until")}

    def _lobby(self, *names: str) -> dict[str, str]:
        return {name: f"{self._prefix}{{lobby}}:{name}" for name in names}

    async def start(self) -> None:
        await self._nodes.start()

    async def close(self) -> None:
        self._nodes.close()

    async def join(self, queue: str, waiting: Waiting, *, now: float, hold_seconds: float) -> bool:
        held = await self._run(
            _HOLD,
            self._held(),
            {
                "now": now,
                "until": now + hold_seconds,
                "claim": 1,
                "pairs...": [waiting.player_id, waiting.ticket],
            },
        )
        if not int(held):
            return False
        await self._run(
            _JOIN,
            self._queue(queue, "waiting", "seen"),
            {"ticket": waiting.ticket, "player": waiting.model_dump_json(), "now": now},
        )
        return True

    async def leave(self, queue: str, ticket: TicketId, player_id: str) -> bool:
        await self._run(_UNHOLD, self._held(), {"player": player_id, "ticket": ticket})
        left = await self._run(
            _LEAVE, self._queue(queue, "waiting", "seen"), {"ticket": ticket}, retry=False
        )
        return bool(left)

    async def ask_ai(self, queue: str, ticket: TicketId) -> bool:
        return bool(await self._run(_ASK_AI, self._queue(queue, "waiting"), {"ticket": ticket}))

    async def snapshot(self, queue: str, *, now: float, stale_before: float) -> list[Waiting]:
        found = await self._run(
            _SNAPSHOT,
            self._queue(queue, "waiting", "seen", "taken", "leases"),
            {"now": now, "stale_before": stale_before},
        )
        return [Waiting.model_validate_json(text) for text in found]

    async def take(self, queue: str, tickets: Sequence[TicketId], *, lease_until: float) -> bool:
        keys = self._queue(queue, "waiting", "seen", "taken", "leases")
        args = {"lease_until": lease_until, "tickets...": list(tickets)}
        return bool(await self._run(_TAKE, keys, args, retry=False))

    async def release(self, queue: str, tickets: Sequence[TicketId], *, now: float) -> None:
        keys = self._queue(queue, "waiting", "seen", "taken", "leases")
        await self._run(_RELEASE, keys, {"now": now, "tickets...": list(tickets)})

    async def place(self, queue: str, placements: dict[TicketId, Placement]) -> None:
        pairs = [part for t, p in placements.items() for part in (t, p.model_dump_json())]
        keys = self._queue(queue, "taken", "leases", "placed")
        await self._run(_PLACE, keys, {"seconds": PLACEMENT_SECONDS, "pairs...": pairs})

    async def heartbeat(
        self,
        queue: str,
        tickets: Iterable[tuple[TicketId, str]],
        *,
        now: float,
        hold_seconds: float,
    ) -> dict[TicketId, Placement]:
        pairs = list(tickets)
        if not pairs:
            return {}
        held = [part for ticket, player in pairs for part in (player, ticket)]
        await self._run(
            _HOLD,
            self._held(),
            {"now": now, "until": now + hold_seconds, "claim": 0, "pairs...": held},
        )
        found = await self._run(
            _HEARTBEAT,
            self._queue(queue, "seen", "placed"),
            {"now": now, "tickets...": [t for t, _ in pairs]},
            retry=False,
        )
        placed = {
            found[i]: Placement.model_validate_json(found[i + 1]) for i in range(0, len(found), 2)
        }
        by_ticket = dict(pairs)
        for ticket in placed:
            await self._run(_UNHOLD, self._held(), {"player": by_ticket[ticket], "ticket": ticket})
        return placed

    async def report_online(self, process: str, count: int, *, now: float) -> None:
        await self._run(
            _ONLINE,
            self._lobby("online"),
            {"process": process, "count": count, "now": now, "since": 0},
        )

    async def online(self, *, since: float) -> int:
        total = await self._run(
            _ONLINE, self._lobby("online"), {"process": "", "count": 0, "now": 0, "since": since}
        )
        return int(total)

    async def note_game(self, entry: GameEntry, *, now: float) -> None:
        await self._run(
            _NOTE_GAME,
            self._lobby("games", "versions", "live", "listings"),
            {
                "code": entry.code,
                "version": entry.version,
                "now": now,
                "listing": entry.listing or "",
                "playing": int(entry.playing),
            },
        )

    async def live_games(
        self, *, offset: int, limit: int, since: float
    ) -> tuple[list[str], int, int]:
        found = await self._run(
            _LIVE_GAMES,
            self._lobby("games", "versions", "live", "listings"),
            {"since": since, "offset": offset, "limit": limit},
        )
        *page, listed, playing = found
        return [text for text in page if text is not None], int(listed), int(playing)

"""``MatchStore`` in Redis (one node or a Redis Cluster), shared by every server process.

Each queue's keys share the queue's name as their hash tag (``cash_stash:{queue-4-advanced-
plain}:waiting``, ``…:seen``, ``…:taken``, ``…:leases``, ``…:placed``), so every change to a
queue is one Lua script in one slot: two processes that try to take the same player at once
cannot both succeed. Which player id waits where is kept under a tag of its own
(``{queue-players}``), and the lobby's counters under another (``{lobby}``).

Built on redis-py's public client and its scripts (``register_script``), not on the room
store's own connection code."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from app.matchmaking.model import Placement, TicketId, Waiting
from app.matchmaking.store import PLACEMENT_SECONDS, GameEntry

_JOIN = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

_LEAVE = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
return 0
"""

_ASK_AI = """
local found = redis.call('HGET', KEYS[1], ARGV[1])
if not found then
  return 0
end
local waiting = cjson.decode(found)
waiting['ai_now'] = true
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(waiting))
return 1
"""

# KEYS waiting, seen, taken, leases. ARGV now, stale before.
_SNAPSHOT = """
local due = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[1])
for _, ticket in ipairs(due) do
  local player = redis.call('HGET', KEYS[3], ticket)
  redis.call('HDEL', KEYS[3], ticket)
  redis.call('ZREM', KEYS[4], ticket)
  if player then
    redis.call('HSET', KEYS[1], ticket, player)
    redis.call('ZADD', KEYS[2], ARGV[1], ticket)
  end
end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2])
for _, ticket in ipairs(stale) do
  redis.call('HDEL', KEYS[1], ticket)
  redis.call('ZREM', KEYS[2], ticket)
end
return redis.call('HVALS', KEYS[1])
"""

# KEYS waiting, seen, taken, leases. ARGV lease until, tickets...
_TAKE = """
for i = 2, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    return 0
  end
end
for i = 2, #ARGV do
  local ticket = ARGV[i]
  redis.call('HSET', KEYS[3], ticket, redis.call('HGET', KEYS[1], ticket))
  redis.call('HDEL', KEYS[1], ticket)
  redis.call('ZREM', KEYS[2], ticket)
  redis.call('ZADD', KEYS[4], ARGV[1], ticket)
end
return 1
"""

# KEYS waiting, seen, taken, leases. ARGV now, tickets...
_RELEASE = """
for i = 2, #ARGV do
  local ticket = ARGV[i]
  local player = redis.call('HGET', KEYS[3], ticket)
  if player then
    redis.call('HDEL', KEYS[3], ticket)
    redis.call('ZREM', KEYS[4], ticket)
    redis.call('HSET', KEYS[1], ticket, player)
    redis.call('ZADD', KEYS[2], ARGV[1], ticket)
  end
end
return 1
"""

# KEYS taken, leases, placed. ARGV seconds kept, then ticket, placement pairs.
_PLACE = """
for i = 2, #ARGV, 2 do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[3], ARGV[1])
return 1
"""

# KEYS seen, placed. ARGV now, tickets... Returns ticket, placement pairs.
_HEARTBEAT = """
local found = {}
for i = 2, #ARGV do
  local ticket = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], ticket) then
    redis.call('ZADD', KEYS[1], ARGV[1], ticket)
  end
  local placement = redis.call('HGET', KEYS[2], ticket)
  if placement then
    redis.call('HDEL', KEYS[2], ticket)
    table.insert(found, ticket)
    table.insert(found, placement)
  end
end
return found
"""

# KEYS held (player id -> ticket), until (player id -> held until). ARGV now, until, then
# player id, ticket pairs. With ``claim`` 1 a player held by another ticket is refused;
# otherwise only the holding ticket's hold is renewed. Holds that ran out are swept.
_HOLD = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, player in ipairs(expired) do
  redis.call('HDEL', KEYS[1], player)
  redis.call('ZREM', KEYS[2], player)
end
local claim = ARGV[3] == '1'
for i = 4, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held == ARGV[i + 1] or (claim and not held) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
  elseif claim then
    return 0
  end
end
return 1
"""

# KEYS held, until. ARGV player id, ticket.
_UNHOLD = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
"""

# KEYS online. ARGV process, count, now, since. Returns the sum over fresh reports.
_ONLINE = """
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[3])
end
local total = 0
local reports = redis.call('HGETALL', KEYS[1])
for i = 1, #reports, 2 do
  local report = reports[i + 1]
  local bar = string.find(report, '|', 1, true)
  if tonumber(string.sub(report, bar + 1)) < tonumber(ARGV[4]) then
    redis.call('HDEL', KEYS[1], reports[i])
  else
    total = total + tonumber(string.sub(report, 1, bar - 1))
  end
end
return total
"""

# KEYS games, versions, live, listings. ARGV code, version, now, listing, playing.
_NOTE_GAME = """
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if tonumber(ARGV[2]) < seen then
  return 0
end
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
else
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
else
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return 1
"""

# KEYS games, versions, live, listings. ARGV since, offset, limit. Returns the page's
# listings, then how many are listed, then how many games are in play.
_LIVE_GAMES = """
local stale = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
for _, code in ipairs(stale) do
  redis.call('ZREM', KEYS[1], code)
  redis.call('HDEL', KEYS[2], code)
  redis.call('ZREM', KEYS[3], code)
  redis.call('HDEL', KEYS[4], code)
end
local page = {}
local start = tonumber(ARGV[2])
local codes = redis.call('ZREVRANGE', KEYS[3], start, start + tonumber(ARGV[3]) - 1)
if #codes > 0 then
  page = redis.call('HMGET', KEYS[4], unpack(codes))
end
table.insert(page, redis.call('ZCARD', KEYS[3]))
table.insert(page, redis.call('ZCARD', KEYS[1]))
return page
"""


class RedisMatchStore:
    """``MatchStore`` on Redis, through redis-py's asyncio client (or its cluster client)."""

    def __init__(self, url: str, *, prefix: str, cluster: bool) -> None:
        self._client: Redis | RedisCluster = (
            RedisCluster.from_url(url, decode_responses=True)
            if cluster
            else Redis.from_url(url, decode_responses=True)
        )
        self._prefix = prefix
        client: Any = self._client
        self._scripts = {
            name: client.register_script(text)
            for name, text in {
                "join": _JOIN,
                "leave": _LEAVE,
                "ask_ai": _ASK_AI,
                "snapshot": _SNAPSHOT,
                "take": _TAKE,
                "release": _RELEASE,
                "place": _PLACE,
                "heartbeat": _HEARTBEAT,
                "hold": _HOLD,
                "unhold": _UNHOLD,
                "online": _ONLINE,
                "note_game": _NOTE_GAME,
                "live_games": _LIVE_GAMES,
            }.items()
        }

    async def _run(self, name: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        return await self._scripts[name](keys=list(keys), args=list(args))

    def _queue(self, queue: str, *names: str) -> list[str]:
        return [f"{self._prefix}{{{queue}}}:{name}" for name in names]

    def _held(self) -> list[str]:
        return [f"{self._prefix}{{queue-players}}:{name}" for name in ("held", "until")]

    def _lobby(self, *names: str) -> list[str]:
        return [f"{self._prefix}{{lobby}}:{name}" for name in names]

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        await self._client.aclose()

    async def join(self, queue: str, waiting: Waiting, *, now: float, hold_seconds: float) -> bool:
        held = await self._run(
            "hold", self._held(), [now, now + hold_seconds, 1, waiting.player_id, waiting.ticket]
        )
        if not int(held):
            return False
        await self._run(
            "join",
            self._queue(queue, "waiting", "seen"),
            [waiting.ticket, waiting.model_dump_json(), now],
        )
        return True

    async def leave(self, queue: str, ticket: TicketId, player_id: str) -> bool:
        await self._run("unhold", self._held(), [player_id, ticket])
        return bool(await self._run("leave", self._queue(queue, "waiting", "seen"), [ticket]))

    async def ask_ai(self, queue: str, ticket: TicketId) -> bool:
        return bool(await self._run("ask_ai", self._queue(queue, "waiting"), [ticket]))

    async def snapshot(self, queue: str, *, now: float, stale_before: float) -> list[Waiting]:
        found = await self._run(
            "snapshot",
            self._queue(queue, "waiting", "seen", "taken", "leases"),
            [now, stale_before],
        )
        return [Waiting.model_validate_json(text) for text in found]

    async def take(self, queue: str, tickets: Sequence[TicketId], *, lease_until: float) -> bool:
        keys = self._queue(queue, "waiting", "seen", "taken", "leases")
        return bool(await self._run("take", keys, [lease_until, *tickets]))

    async def release(self, queue: str, tickets: Sequence[TicketId], *, now: float) -> None:
        keys = self._queue(queue, "waiting", "seen", "taken", "leases")
        await self._run("release", keys, [now, *tickets])

    async def place(self, queue: str, placements: dict[TicketId, Placement]) -> None:
        pairs = [part for t, p in placements.items() for part in (t, p.model_dump_json())]
        keys = self._queue(queue, "taken", "leases", "placed")
        await self._run("place", keys, [PLACEMENT_SECONDS, *pairs])

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
        await self._run("hold", self._held(), [now, now + hold_seconds, 0, *held])
        found = await self._run(
            "heartbeat", self._queue(queue, "seen", "placed"), [now, *(t for t, _ in pairs)]
        )
        placed = {
            found[i]: Placement.model_validate_json(found[i + 1]) for i in range(0, len(found), 2)
        }
        by_ticket = dict(pairs)
        for ticket in placed:
            await self._run("unhold", self._held(), [by_ticket[ticket], ticket])
        return placed

    async def report_online(self, process: str, count: int, *, now: float) -> None:
        await self._run("online", self._lobby("online"), [process, count, now, 0])

    async def online(self, *, since: float) -> int:
        return int(await self._run("online", self._lobby("online"), ["", 0, 0, since]))

    async def note_game(self, entry: GameEntry, *, now: float) -> None:
        await self._run(
            "note_game",
            self._lobby("games", "versions", "live", "listings"),
            [entry.code, entry.version, now, entry.listing or "", int(entry.playing)],
        )

    async def live_games(
        self, *, offset: int, limit: int, since: float
    ) -> tuple[list[str], int, int]:
        found = await self._run(
            "live_games",
            self._lobby("games", "versions", "live", "listings"),
            [since, offset, limit],
        )
        *page, listed, playing = found
        return [text for text in page if text is not None], int(listed), int(playing)

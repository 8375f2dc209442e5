"""Where sessions and one-time records live: the live store (memory, Redis or Redis Cluster).

A session is kept under the SHA-256 digest of its cookie's token, never the token itself: a
copy of the store signs nobody in. Each account also has the set of its sessions' digests, so
that "sign out everywhere" finds them all. One-time records (a WebAuthn ceremony's challenge,
a code that links a new device) are read once and gone, whichever process reads them. Held
records (where a player is, ``app.friends.presence``) are read any number of times until their
time runs out, many in one call; a mark (``version``) says whether something changed.

On Redis every session is a key of its own (``cash_stash:session:<digest>``), the account's
set is under the account's hash tag (``cash_stash:{account:<id>}:sessions``), a one-time
record is ``cash_stash:once:<key>`` and a held one ``cash_stash:held:<key>``: each command
names one key (a read of many held records is one ``MGET`` on one node, split by slot on a
cluster), so the same calls serve one node or a cluster.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Protocol

from redis.asyncio import Redis, RedisCluster

from app.settings import Settings
from app.store.base import wall_clock
from app.store.expiring import Sweeper

SWEEP_SECONDS = 60.0
"""How often the memory store frees sessions and one-time records whose time ran out."""
VERSION_SECONDS = 86400
"""How long a mark lasts without a change: a mark that ran out is made anew, which reads as a
change (never as none)."""


def new_mark() -> str:
    """A mark no key had before (96 random bits)."""
    return secrets.token_hex(12)


class AccountStore(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def open_session(self, digest: str, account_id: str, *, seconds: int) -> None:
        """Keep a session (by its token's digest) for ``account_id`` for ``seconds``."""
        ...

    async def session_account(self, digest: str) -> str | None:
        """The account a session signs in, or None: no such session, or its time ran out."""
        ...

    async def close_session(self, digest: str) -> None:
        """End one session (signing out on one device)."""
        ...

    async def close_sessions(self, account_id: str) -> int:
        """End every session of the account (signing out everywhere); how many there were."""
        ...

    async def keep_once(self, key: str, value: str, *, seconds: int) -> None:
        """Keep ``value`` under ``key`` for ``seconds``, for one ``take_once``."""
        ...

    async def take_once(self, key: str) -> str | None:
        """The value kept under ``key``, which is gone from then on; None if there is none (it
        was taken already, or its time ran out)."""
        ...

    async def hold(self, key: str, value: str, *, seconds: float) -> None:
        """Keep ``value`` under ``key`` for ``seconds`` from now (replacing what was held)."""
        ...

    async def held(self, keys: list[str]) -> list[str | None]:
        """What is held under each of ``keys`` (None where nothing is, or its time ran out),
        read in one call to the store whatever their number."""
        ...

    async def version(self, key: str) -> str:
        """The mark under ``key``: the same until ``change`` (or a day without one), whichever
        process asks; made on first asking."""
        ...

    async def change(self, key: str) -> None:
        """Give ``key`` a new mark, never one it had."""
        ...


class MemoryAccountStore:
    """``AccountStore`` in this process's memory: for a single server process."""

    def __init__(
        self, *, sweep_seconds: float = SWEEP_SECONDS, clock: Callable[[], float] | None = None
    ) -> None:
        self._clock = clock or wall_clock
        self._sweeper = Sweeper(self.sweep, seconds=sweep_seconds)
        self._sessions: dict[str, tuple[str, float]] = {}
        """Digest → (account id, until when)."""
        self._by_account: dict[str, set[str]] = {}
        self._once: dict[str, tuple[str, float]] = {}
        """Key → (value, until when)."""
        self._held: dict[str, tuple[str, float]] = {}
        """Key → (value, until when): held records and marks."""

    async def start(self) -> None:
        await self._sweeper.start()

    async def close(self) -> None:
        await self._sweeper.close()

    @property
    def entries(self) -> int:
        """Everything held: what the sweep keeps bounded."""
        return len(self._sessions) + len(self._once) + len(self._held)

    def sweep(self) -> None:
        """Free the sessions and one-time records whose time ran out."""
        now = self._clock()
        for digest, (account_id, until) in list(self._sessions.items()):
            if until <= now:
                self._forget_session(digest, account_id)
        self._once = {key: kept for key, kept in self._once.items() if kept[1] > now}
        self._held = {key: kept for key, kept in self._held.items() if kept[1] > now}

    def _forget_session(self, digest: str, account_id: str) -> None:
        self._sessions.pop(digest, None)
        digests = self._by_account.get(account_id)
        if digests is not None:
            digests.discard(digest)
            if not digests:
                del self._by_account[account_id]

    async def open_session(self, digest: str, account_id: str, *, seconds: int) -> None:
        self._sessions[digest] = (account_id, self._clock() + seconds)
        self._by_account.setdefault(account_id, set()).add(digest)

    async def session_account(self, digest: str) -> str | None:
        kept = self._sessions.get(digest)
        if kept is None:
            return None
        account_id, until = kept
        if until <= self._clock():
            self._forget_session(digest, account_id)
            return None
        return account_id

    async def close_session(self, digest: str) -> None:
        kept = self._sessions.get(digest)
        if kept is not None:
            self._forget_session(digest, kept[0])

    async def close_sessions(self, account_id: str) -> int:
        digests = self._by_account.pop(account_id, set())
        for digest in digests:
            self._sessions.pop(digest, None)
        return len(digests)

    async def keep_once(self, key: str, value: str, *, seconds: int) -> None:
        self._once[key] = (value, self._clock() + seconds)

    async def take_once(self, key: str) -> str | None:
        kept = self._once.pop(key, None)
        if kept is None or kept[1] <= self._clock():
            return None
        return kept[0]

    async def hold(self, key: str, value: str, *, seconds: float) -> None:
        self._held[key] = (value, self._clock() + seconds)

    async def held(self, keys: list[str]) -> list[str | None]:
        now = self._clock()
        found = [self._held.get(key) for key in keys]
        return [None if kept is None or kept[1] <= now else kept[0] for kept in found]

    async def version(self, key: str) -> str:
        mark = (await self.held([f"version:{key}"]))[0]
        if mark is None:
            mark = new_mark()
            await self.hold(f"version:{key}", mark, seconds=VERSION_SECONDS)
        return mark

    async def change(self, key: str) -> None:
        await self.hold(f"version:{key}", new_mark(), seconds=VERSION_SECONDS)


class RedisAccountStore:
    """``AccountStore`` on Redis, through redis-py's asyncio client (or its cluster client)."""

    def __init__(self, url: str, *, prefix: str, cluster: bool) -> None:
        self._client: Redis | RedisCluster = (
            RedisCluster.from_url(url, decode_responses=True)
            if cluster
            else Redis.from_url(url, decode_responses=True)
        )
        self._prefix = prefix
        self._cluster = cluster

    def _session(self, digest: str) -> str:
        return f"{self._prefix}session:{digest}"

    def _account_sessions(self, account_id: str) -> str:
        return f"{self._prefix}{{account:{account_id}}}:sessions"

    def _once(self, key: str) -> str:
        return f"{self._prefix}once:{key}"

    def _held(self, key: str) -> str:
        return f"{self._prefix}held:{key}"

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        await self._client.aclose()

    async def open_session(self, digest: str, account_id: str, *, seconds: int) -> None:
        client: Any = self._client
        listed = self._account_sessions(account_id)
        # Listed first: a process that dies between the two writes leaves a digest with no
        # session (harmless), never a session that signing out everywhere cannot find.
        await client.sadd(listed, digest)
        # Every session lives as long: the newest outlives the rest, and so does the set.
        await client.expire(listed, seconds)
        await client.set(self._session(digest), account_id, ex=seconds)

    async def session_account(self, digest: str) -> str | None:
        client: Any = self._client
        account_id: str | None = await client.get(self._session(digest))
        return account_id

    async def close_session(self, digest: str) -> None:
        client: Any = self._client
        key = self._session(digest)
        account_id: str | None = await client.getdel(key)
        if account_id is not None:
            await client.srem(self._account_sessions(account_id), digest)

    async def close_sessions(self, account_id: str) -> int:
        client: Any = self._client
        listed = self._account_sessions(account_id)
        digests: set[str] = await client.smembers(listed)
        ended = 0
        # One key per command: the sessions lie in slots of their own on a cluster.
        for digest in digests:
            ended += int(await client.delete(self._session(digest)))
        await client.delete(listed)
        return ended

    async def keep_once(self, key: str, value: str, *, seconds: int) -> None:
        client: Any = self._client
        await client.set(self._once(key), value, ex=seconds)

    async def take_once(self, key: str) -> str | None:
        client: Any = self._client
        value: str | None = await client.getdel(self._once(key))
        return value

    async def hold(self, key: str, value: str, *, seconds: float) -> None:
        client: Any = self._client
        await client.set(self._held(key), value, px=max(1, round(seconds * 1000)))

    async def held(self, keys: list[str]) -> list[str | None]:
        if not keys:
            return []
        client: Any = self._client
        names = [self._held(key) for key in keys]
        if self._cluster:
            # Pipelined per node, the keys' slots being many.
            values: list[str | None] = await client.mget_nonatomic(names)
        else:
            values = await client.mget(names)
        return values

    async def version(self, key: str) -> str:
        client: Any = self._client
        name = self._held(f"version:{key}")
        mark = new_mark()
        if await client.set(name, mark, nx=True, ex=VERSION_SECONDS):
            return mark
        kept: str | None = await client.get(name)
        # Gone between the two calls (its day ran out): a new mark, as on first asking.
        return kept if kept is not None else await self.version(key)

    async def change(self, key: str) -> None:
        client: Any = self._client
        await client.set(self._held(f"version:{key}"), new_mark(), ex=VERSION_SECONDS)


def account_store_for(settings: Settings) -> AccountStore:
    """Redis when rooms are in Redis (the same node or cluster), else this process's memory."""
    if settings.redis_url:
        return RedisAccountStore(
            settings.redis_url, prefix=settings.redis_prefix, cluster=settings.redis_cluster
        )
    return MemoryAccountStore()

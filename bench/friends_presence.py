"""What one friends-panel poll costs the server, by the number of friends.

A signed-in page polls ``POST /api/friends/presence`` every second, so this is paid by every
signed-in page, every second. The app runs in this process (its ASGI door, no sockets) on a
SQLite file of its own, with its live store in memory or, with ``--redis URL``, on that Redis
under a key prefix of its own deleted afterwards. One account has N friends, half of them
online; it polls ``--polls`` times in a row, and the bench reports the median and p90 of:

- a full poll: the panel asked for without ``seen`` (what every poll cost before polls were
  conditional, and what a poll costs when something changed);
- an unchanged poll: ``seen`` the ``version`` of the answer before, nothing changed (skipped
  when the server gives no ``version``);
- a poll read anew: the account's panel marked changed before each (as a friend request or a
  rename does), so it reads the database as every poll did before (skipped likewise).

::

    python bench/friends_presence.py --friends 0,50,200 --polls 200
    python bench/friends_presence.py --friends 0,200 --redis redis://127.0.0.1:6379/14
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # run as ``python bench/friends_presence.py``: not bench/engine.py

from app.accounts.repository import create_account  # noqa: E402
from app.accounts.sessions import SESSION_COOKIE, open_session  # noqa: E402
from app.accounts.store import AccountStore  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import Friendship  # noqa: E402
from app.db.repository import public_player_id  # noqa: E402
from app.db.session import create_engine, create_session_factory, get_session  # noqa: E402
from app.friends.presence import panel_changed  # noqa: E402
from app.main import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402

SITE = "http://bench"


async def _accounts(url: str, friends: int) -> tuple[str, list[str]]:
    """One account and ``friends`` friends of it, in the database at ``url``."""
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    now = datetime.now(UTC)
    async with sessions() as session:
        me = await create_account(session, name="Me", player_id=public_player_id(str(uuid.uuid4())))
        others = [
            await create_account(
                session, name=f"Friend {n}", player_id=public_player_id(str(uuid.uuid4()))
            )
            for n in range(friends)
        ]
        for other in others:
            low, high = sorted((me.id, other.id))
            session.add(
                Friendship(
                    low_id=low, high_id=high, requested_by=me.id, accepted_at=now, created_at=now
                )
            )
        await session.commit()
    await engine.dispose()
    return me.id, [other.id for other in others]


def _figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(len(ordered) * 0.9) - 1] if len(ordered) >= 10 else ordered[-1]
    return f"median {statistics.median(ordered) * 1000:7.2f} ms  p90 {p90 * 1000:7.2f} ms"


async def _poll(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    answer = await client.post("/api/friends/presence", json=body)
    took = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    found["bytes"] = len(answer.content)
    return took, found


async def measure(friends: int, polls: int, redis_url: str | None) -> None:
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite+aiosqlite:///{Path(directory) / 'friends.db'}"
        await asyncio.to_thread(upgrade, url)
        me, others = await _accounts(url, friends)
        prefix = f"cash_stash_bench:{uuid.uuid4().hex[:12]}:"
        settings = Settings(
            database_url=url,
            redis_url=redis_url,
            redis_prefix=prefix,
            request_rate_per_second=100_000.0,
            request_burst=100_000,
            ai_workers=0,
        )
        engine = create_engine(url)
        sessions = create_session_factory(engine)

        async def session() -> Any:
            async with sessions() as opened:
                yield opened

        app = create_app(settings)
        app.dependency_overrides[get_session] = session
        transport = httpx.ASGITransport(app=app)
        try:
            async with app.router.lifespan_context(app):
                store: AccountStore = app.state.accounts
                token = await open_session(store, account_id=me, seconds=3600)
                async with httpx.AsyncClient(
                    transport=transport,
                    base_url=SITE,
                    cookies={SESSION_COOKIE: token},
                    headers={"origin": SITE},
                ) as client:
                    for other in others[: friends // 2]:
                        other_token = await open_session(store, account_id=other, seconds=3600)
                        async with httpx.AsyncClient(
                            transport=transport,
                            base_url=SITE,
                            cookies={SESSION_COOKIE: other_token},
                            headers={"origin": SITE},
                        ) as friend:
                            await _poll(friend, {})
                    await _poll(client, {})  # warm: the first answer reads everything
                    full = [(await _poll(client, {}))[0] for _ in range(polls)]
                    _, answer = await _poll(client, {})
                    unchanged: list[float] = []
                    anew: list[float] = []
                    again = answer
                    if answer.get("version"):
                        for _ in range(polls):
                            took, again = await _poll(client, {"seen": answer["version"]})
                            assert again.get("unchanged") is True, again
                            unchanged.append(took)
                        for _ in range(polls):
                            await panel_changed(store, me)
                            anew.append((await _poll(client, {}))[0])
            line = f"{friends:4d} friends  full: {_figures(full)}  {answer['bytes']} B"
            if unchanged:
                line += f"\n{'':13}unchanged: {_figures(unchanged)}  {again['bytes']} B"
                line += f"\n{'':13}read anew: {_figures(anew)}"
            print(line, flush=True)
        finally:
            await engine.dispose()
            if redis_url:
                async with redis.asyncio.Redis.from_url(redis_url) as client:
                    keys = [key async for key in client.scan_iter(f"{prefix}*")]
                    if keys:
                        await client.delete(*keys)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--friends", default="0,200", help="comma-separated friend counts")
    parser.add_argument("--polls", type=int, default=200)
    parser.add_argument("--redis", default=None, help="a Redis URL (default: memory)")
    args = parser.parse_args()
    for friends in (int(count) for count in args.friends.split(",")):
        await measure(friends, args.polls, args.redis)


if __name__ == "__main__":
    asyncio.run(main())

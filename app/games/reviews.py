"""Game reviews as jobs: queued in the database, computed in worker processes, chunk by chunk.

A review (``engine.ai.review``) judges every decision of a finished game, about a second of
CPU each at the default budget, so it never runs on the event loop: the game's decisions are
split into chunks, and a worker replays the game up to a chunk's first step and judges the
chunk. After each chunk the job's ``progress`` is written to the database, so any server
process answers ``GET /api/games/{id}/review``.

Each process keeps its own bounded queue (``CASH_STASH_REVIEW_QUEUE``). A job a dying process
left ``queued`` or ``running`` is taken up again when someone asks for it after
``CASH_STASH_REVIEW_STALE_SECONDS`` without a change; the row's ``attempt`` makes sure only
the newest taker writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.conflicts import insert_on_conflict
from app.db.models import Game, GameReview
from app.rooms.ai import AiRunner
from app.rooms.errors import RoomError
from app.settings import Settings
from engine.ai.review import Reviewer, judge_steps, summarize

logger = logging.getLogger(__name__)

CHUNK_DECISIONS = 16
"""Decisions a worker judges before the job's progress is written (a few seconds of CPU)."""

REVIEW_SEED = 0
"""The seed of every review's judgements: a game's review is the same whoever asks, and
whenever (and ``review_game`` with this seed gives it too)."""

PENDING = ("queued", "running")


def judge_chunk(
    config: Mapping[str, Any], actions: list[dict[str, Any]], start: int, stop: int, rounds: int
) -> list[dict[str, Any]]:
    """The judgements of ``actions[start:stop]``, as ``engine.ai.review.review_game`` makes
    them: each from the acting seat's view before it, with a generator seeded by the step."""
    return judge_steps(Reviewer(rounds), config, actions, start, stop, seed=REVIEW_SEED)


def review_queue_full() -> RoomError:
    return RoomError(
        "review_queue_full",
        "Too many reviews are being computed; try again in a minute.",
        status=429,
    )


@dataclass(frozen=True, slots=True)
class _Job:
    game_id: str
    attempt: int
    rounds: int
    config: dict[str, Any]
    actions: list[dict[str, Any]]
    sessions: async_sessionmaker[AsyncSession]
    address: str | None = None
    """The client address that asked for it (its share of the queue), if a client did."""


class ReviewJobs:
    """This process's review jobs: a bounded queue and the tasks that feed the workers."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._runner = AiRunner(settings.review_workers)
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._held = 0
        """Jobs queued or running here: at most ``review_queue``."""
        self._by_address: Counter[str] = Counter()
        """Of those, the jobs each client address asked for: at most ``reviews_per_address``,
        so that one address cannot take every place in the queue."""
        self._tasks: list[asyncio.Task[None]] = []

    async def request(
        self, session: AsyncSession, *, game: Game, address: str | None = None
    ) -> GameReview:
        """The game's review job, queued here unless one is done, or pending and alive.

        A failed job, and one left unchanged for ``review_stale_seconds``, is queued again.
        Refused with ``review_queue_full`` (429) when this process holds its most jobs.
        """
        row = await session.get(GameReview, game.id, populate_existing=True)
        if row is not None and not self._needs_queueing(row):
            return row
        if self._held >= self._settings.review_queue:
            raise review_queue_full()
        if address is not None and self._by_address[address] >= self._settings.reviews_per_address:
            raise RoomError(
                "too_many_reviews",
                "Reviews you asked for are still being computed; ask again once they are done.",
                status=429,
            )
        self._take(address)
        try:
            attempt = await self._claim(session, game_id=game.id, row=row)
        except BaseException:
            self._let_go(address)
            raise
        if attempt is None:
            self._let_go(address)
        else:
            self._start()
            self._queue.put_nowait(
                _Job(
                    game_id=game.id,
                    attempt=attempt,
                    rounds=self._settings.review_rounds,
                    config=dict(game.config),
                    actions=list(game.actions),
                    sessions=async_sessionmaker(session.bind, expire_on_commit=False),
                    address=address,
                )
            )
        found = await session.get(GameReview, game.id, populate_existing=True)
        assert found is not None, "a review row is never deleted but with its game"
        return found

    def _needs_queueing(self, row: GameReview) -> bool:
        if row.status == "failed":
            return True
        if row.status in PENDING:
            stale = timedelta(seconds=self._settings.review_stale_seconds)
            return row.updated_at + stale < datetime.now(UTC)
        return False

    async def _claim(
        self, session: AsyncSession, *, game_id: str, row: GameReview | None
    ) -> int | None:
        """Queue the job in the database: insert it, or take the row over by compare-and-set
        on its attempt. The attempt this process now owns, or None if another was first."""
        now = datetime.now(UTC)
        fields = {
            "status": "queued",
            "progress": 0.0,
            "rounds": self._settings.review_rounds,
            "review": None,
            "error": None,
            "updated_at": now,
            "finished_at": None,
        }
        if row is None:
            statement = insert_on_conflict(session, GameReview).values(
                game_id=game_id, attempt=1, created_at=now, **fields
            )
            inserted = await session.execute(
                statement.on_conflict_do_nothing(index_elements=[GameReview.game_id]).returning(
                    GameReview.attempt
                )
            )
            attempt = inserted.scalar_one_or_none()
        else:
            taken = await session.execute(
                update(GameReview)
                .where(GameReview.game_id == game_id, GameReview.attempt == row.attempt)
                .values(attempt=row.attempt + 1, **fields)
                .returning(GameReview.attempt)
            )
            attempt = taken.scalar_one_or_none()
        await session.commit()
        return attempt

    def _start(self) -> None:
        if not self._tasks:
            workers = max(1, self._settings.review_workers)
            self._tasks = [asyncio.create_task(self._work()) for _ in range(workers)]

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await self._run(job)
            except Exception:
                logger.exception("review of game %s failed", job.game_id)
                with contextlib.suppress(Exception):
                    await self._write(
                        job,
                        status="failed",
                        error="The review could not be computed.",
                        finished_at=datetime.now(UTC),
                    )
            finally:
                self._let_go(job.address)

    def _take(self, address: str | None) -> None:
        self._held += 1
        if address is not None:
            self._by_address[address] += 1

    def _let_go(self, address: str | None) -> None:
        self._held -= 1
        if address is not None:
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]

    async def _run(self, job: _Job) -> None:
        if not await self._write(job, status="running"):
            return
        total = len(job.actions)
        judged: list[dict[str, Any]] = []
        for start in range(0, total, CHUNK_DECISIONS):
            stop = min(total, start + CHUNK_DECISIONS)
            judged += await self._runner.run(
                judge_chunk, job.config, job.actions, start, stop, job.rounds
            )
            if not await self._write(job, progress=stop / total):
                return  # queued again elsewhere: that attempt finishes it
        await self._write(
            job,
            status="done",
            progress=1.0,
            review=summarize(job.config, judged),
            finished_at=datetime.now(UTC),
        )

    async def _write(self, job: _Job, **values: Any) -> bool:
        """Update the job's row if it still carries the job's attempt."""
        async with job.sessions() as session:
            written = await session.execute(
                update(GameReview)
                .where(GameReview.game_id == job.game_id, GameReview.attempt == job.attempt)
                .values(updated_at=datetime.now(UTC), **values)
                .returning(GameReview.attempt)
            )
            mine = written.scalar_one_or_none() is not None
            await session.commit()
            return mine

    async def aclose(self, *, seconds: float) -> None:
        """Stop the tasks and the workers; a job cut short is taken up again when asked for."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=seconds)
        await self._runner.aclose(seconds=seconds)

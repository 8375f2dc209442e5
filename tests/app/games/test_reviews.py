"""Game reviews as jobs: ``POST``/``GET /api/games/{id}/review``, computed off the event loop."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import engine
from app.db.models import GameReview
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.games import reviews
from app.main import create_app
from app.rooms.credentials import hash_token
from app.rooms.public import room_public
from app.rooms.recording import FinishedGame
from engine.ai.review import review_game
from tests.app.conftest import base_settings
from tests.app.db.finished_games import bot, person, played_game
from tests.app.db.scratch_databases import emptied, serve_sessions

ROUNDS = 2
"""A small search budget: these tests prove the jobs, not the judgements."""


class Api:
    def __init__(
        self,
        client: httpx.AsyncClient,
        recorder: DatabaseRecorder,
        sessions: async_sessionmaker[AsyncSession],
        app: Any = None,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.sessions = sessions
        self.app = app

    def from_address(self, address: str) -> httpx.AsyncClient:
        """A client of the same app from another client address."""
        transport = httpx.ASGITransport(app=self.app, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url="http://test")

    async def game(self, seed: int = 3) -> FinishedGame:
        game = played_game([person(0, "Ann"), bot(1, "easy")], seed=seed, rules="simple")
        await self.recorder.record(game)
        return game

    async def ask(self, game_id: str) -> httpx.Response:
        return await self.client.post(f"/api/games/{game_id}/review")

    async def finished(self, game_id: str) -> dict[str, Any]:
        """The review job once it is done or failed."""
        return await self.until(game_id, lambda job: job["status"] in ("done", "failed"))

    async def until(
        self, game_id: str, condition: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """The review job once ``condition`` holds for it (polled: it runs in the background)."""
        async with asyncio.timeout(60):
            while True:
                response = await self.client.get(f"/api/games/{game_id}/review")
                assert response.status_code == 200, response.text
                job: dict[str, Any] = response.json()
                if condition(job):
                    return job
                await asyncio.sleep(0.05)

    async def set_job(self, game_id: str, **values: Any) -> None:
        async with self.sessions() as session:
            await session.execute(
                update(GameReview).where(GameReview.game_id == game_id).values(**values)
            )
            await session.commit()


def make_api(**settings: Any) -> Any:
    @pytest.fixture
    async def api(shared_url: str) -> AsyncIterator[Api]:
        engine = create_engine(await emptied(shared_url))
        sessions = create_session_factory(engine)

        app = create_app(
            base_settings(**{"review_rounds": ROUNDS, "review_workers": 0, **settings})
        )
        serve_sessions(app, sessions)
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://test") as client,
        ):
            yield Api(client, DatabaseRecorder(sessions), sessions, app)
        await engine.dispose()

    return api


api = make_api()
one_job_api = make_api(review_queue=1)


class Gate:
    """Lets the workers judge only the chunks allowed so far; the others wait."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._allowed = 0

    def allow(self, chunks: int = 1_000_000) -> None:
        with self._changed:
            self._allowed += chunks
            self._changed.notify_all()

    def wait(self) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self._allowed > 0, timeout=30)
            self._allowed -= 1


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """Workers that judge a chunk only once the gate allows it, so jobs stay in the queue."""
    opened = Gate()
    judge = reviews.judge_chunk

    def gated(*args: Any) -> list[dict[str, Any]]:
        opened.wait()
        return judge(*args)

    monkeypatch.setattr(reviews, "judge_chunk", gated)
    yield opened
    opened.allow()


async def test_a_review_is_queued_then_done_as_the_engine_reviews(api: Api) -> None:
    game = await api.game()
    assert len(game.actions) > reviews.CHUNK_DECISIONS, "the game spans several chunks"

    asked = await api.ask(game.game_id)
    assert asked.status_code == 202
    assert asked.json()["status"] in ("queued", "running")
    assert asked.json()["rounds"] == ROUNDS

    job = await api.finished(game.game_id)
    assert job["status"] == "done"
    assert job["progress"] == 1.0
    expected = review_game(game.config, game.actions, rounds=ROUNDS, seed=reviews.REVIEW_SEED)
    assert job["review"] == expected

    again = await api.ask(game.game_id)
    assert again.status_code == 200
    assert again.json() == job


async def test_progress_is_written_after_each_chunk(api: Api, gate: Gate) -> None:
    game = await api.game()
    total = len(game.actions)
    chunks = math.ceil(total / reviews.CHUNK_DECISIONS)
    assert chunks >= 3
    await api.ask(game.game_id)
    for judged in range(1, chunks):
        gate.allow(1)
        expected = judged * reviews.CHUNK_DECISIONS / total
        job = await api.until(game.game_id, lambda job, at=expected: job["progress"] >= at)
        assert job == {
            "status": "running",
            "progress": expected,
            "rounds": ROUNDS,
            "review": None,
            "error": None,
        }
    gate.allow(1)
    assert (await api.finished(game.game_id))["status"] == "done"


async def test_asking_again_returns_the_same_job(api: Api, gate: Gate) -> None:
    game = await api.game()
    first = await api.ask(game.game_id)
    second = await api.ask(game.game_id)
    assert first.status_code == second.status_code == 202
    async with api.sessions() as session:
        row = await session.get(GameReview, game.game_id)
        assert row is not None and row.attempt == 1
    gate.allow()
    assert (await api.finished(game.game_id))["status"] == "done"


async def test_unknown_games_and_unrequested_reviews_have_clear_codes(api: Api) -> None:
    for response in (
        await api.ask("no-such-game"),
        await api.client.get("/api/games/no-such-game/review"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "game_not_found"
    game = await api.game()
    response = await api.client.get(f"/api/games/{game.game_id}/review")
    assert response.status_code == 404
    assert response.json()["code"] == "review_not_requested"


async def test_a_full_queue_answers_429(one_job_api: Api, gate: Gate) -> None:
    first, second = await one_job_api.game(seed=3), await one_job_api.game(seed=4)
    assert (await one_job_api.ask(first.game_id)).status_code == 202

    refused = await one_job_api.ask(second.game_id)
    assert refused.status_code == 429
    assert refused.json()["code"] == "review_queue_full"
    # The job already queued is still answered: asking for it takes no new place.
    assert (await one_job_api.ask(first.game_id)).status_code == 202

    gate.allow()
    assert (await one_job_api.finished(first.game_id))["status"] == "done"
    assert (await one_job_api.ask(second.game_id)).status_code == 202
    assert (await one_job_api.finished(second.game_id))["status"] == "done"


async def test_one_address_takes_only_its_share_of_the_queue(api: Api, gate: Gate) -> None:
    """Issue 30, point 9: the queue (8 places) is fair between addresses; one address that
    asks for three reviews gets ``too_many_reviews`` for the third, another is still served."""
    games = [await api.game(seed=seed) for seed in (3, 4, 5, 6)]
    statuses = [(await api.ask(game.game_id)).status_code for game in games[:3]]
    assert statuses == [202, 202, 429]
    refused = await api.ask(games[2].game_id)
    assert refused.json()["code"] == "too_many_reviews"
    async with api.from_address("203.0.113.9") as other:
        assert (await other.post(f"/api/games/{games[3].game_id}/review")).status_code == 202
    gate.allow()
    assert (await api.finished(games[0].game_id))["status"] == "done"
    assert (await api.ask(games[2].game_id)).status_code in (200, 202)
    # Every job done before the test ends: one still writing as the app stops held SQLite's
    # lock into the next test, whose emptying of the database then failed ("database is
    # locked").
    for game in games:
        assert (await api.finished(game.game_id))["status"] == "done"


async def test_a_job_abandoned_by_a_dead_process_is_queued_again(api: Api) -> None:
    game = await api.game()
    recent = datetime.now(UTC) - timedelta(seconds=10)
    async with api.sessions() as session:
        session.add(
            GameReview(
                game_id=game.game_id,
                status="running",
                progress=0.5,
                rounds=ROUNDS,
                attempt=1,
                created_at=recent,
                updated_at=recent,
            )
        )
        await session.commit()

    # Recently changed: still someone's job.
    alive = await api.ask(game.game_id)
    assert alive.status_code == 202
    assert alive.json()["status"] == "running" and alive.json()["progress"] == 0.5

    stale = datetime.now(UTC) - timedelta(seconds=base_settings().review_stale_seconds + 1)
    await api.set_job(game.game_id, updated_at=stale)
    requeued = await api.ask(game.game_id)
    assert requeued.status_code == 202
    assert requeued.json()["progress"] == 0.0
    assert (await api.finished(game.game_id))["status"] == "done"
    async with api.sessions() as session:
        row = await session.get(GameReview, game.game_id)
        assert row is not None and row.attempt == 2


async def test_a_failed_review_says_so_and_is_queued_again_when_asked(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await api.game()

    def broken(*args: Any) -> list[dict[str, Any]]:
        raise RuntimeError("the worker broke")

    monkeypatch.setattr(reviews, "judge_chunk", broken)
    await api.ask(game.game_id)
    failed = await api.finished(game.game_id)
    assert failed["status"] == "failed"
    assert failed["error"] == "The review could not be computed."
    assert failed["review"] is None

    monkeypatch.undo()
    assert (await api.ask(game.game_id)).status_code == 202
    assert (await api.finished(game.game_id))["status"] == "done"


async def practice(api: Api, game_id: str, step: int) -> httpx.Response:
    return await api.client.post(
        f"/api/games/{game_id}/practice", json={"step": step, "name": "Cleo"}
    )


def runtime_of(api: Api) -> Any:
    transport = api.client._transport
    assert isinstance(transport, httpx.ASGITransport)
    return transport.app.state.runtime  # type: ignore[attr-defined]


async def test_try_again_opens_a_practice_table_at_the_decision_from_its_seat(api: Api) -> None:
    """The table is the decider's view at that step (its hand and every public zone), the
    cards it could not see dealt afresh, the other seats played by AI, unrated."""
    game = await api.game()
    step = next(i for i, action in enumerate(game.actions) if action["seat"] == 0 and i > 6)
    truth = engine.new_game(game.config)
    for action in game.actions[:step]:
        truth = engine.apply_action(truth, action)

    answer = await practice(api, game.game_id, step)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    assert created["seat"] == 0 and created["token"]
    room = await runtime_of(api).service.load(created["code"])
    assert room.status == "playing" and room.game.practice
    assert room.options.room_name == "Practice (unrated)"
    assert room.seats[0].name == "Cleo" and room.seats[0].level is None
    assert room.seats[1].level == "easy"
    seen = {key: value for key, value in room.view_for(0).items() if key != "log"}
    real = {key: value for key, value in engine.view_for(truth, 0).items() if key != "log"}
    assert seen == real
    assert "unrated" in room.view_for(0)["log"][0]["text"]
    assert room.game.seed != game.config["seed"]
    assert room.engine_state().config.seed != game.config["seed"]

    again = (await practice(api, game.game_id, step)).json()
    other = await runtime_of(api).service.load(again["code"])
    unseen = engine.Sampler(engine.view_for(truth, 0)).unseen

    def hidden(state: engine.State) -> list[list[int]]:
        return [list(state.deck), *(list(hand) for hand in state.hands[1:])]

    dealt = hidden(room.engine_state()), hidden(other.engine_state())
    for cards in dealt:
        assert sorted(card for zone in cards for card in zone) == unseen
    assert dealt[0] != dealt[1], "each table deals the unseen cards afresh"


async def test_a_practice_game_plays_on_and_is_never_recorded(api: Api) -> None:
    game = await api.game()
    last = len(game.actions) - 1
    seat = game.actions[last]["seat"]
    created = (await practice(api, game.game_id, last)).json()
    service = runtime_of(api).service
    room = await service.load(created["code"])
    action = {key: value for key, value in game.actions[last].items() if key != "seat"}
    acted = await service.act(
        created["code"],
        token_hash=hash_token(created["token"]),
        ref=1,
        version=room.version,
        action=action,
    )
    assert acted is not None
    finished = await service.load(created["code"])
    assert finished.status == "finished" and finished.game.to_act == []
    assert finished.unrecorded == []
    assert seat == created["seat"]
    summary = room_public(finished).game
    assert summary is not None and summary.over
    assert not summary.recorded, "the client would ask for a record that never comes"


async def test_try_again_refuses_a_step_the_game_lacks(api: Api) -> None:
    game = await api.game()
    answer = await practice(api, game.game_id, len(game.actions))
    assert answer.status_code == 400
    assert answer.json()["code"] == "no_such_decision"
    missing = await api.client.post(
        "/api/games/00000000-0000-0000-0000-000000000000/practice",
        json={"step": 0, "name": "Cleo"},
    )
    assert missing.status_code == 404


async def test_a_players_game_list_shows_their_accuracy_once_reviewed(api: Api) -> None:
    game = await api.game()
    guest = game.players[0].player_id
    listed = (await api.client.get(f"/api/players/{guest}/games")).json()["games"]
    assert [item["accuracy"] for item in listed] == [None]
    await api.ask(game.game_id)
    job = await api.finished(game.game_id)
    seat = job["review"]["seats"][0]
    assert 0 <= seat["accuracy"] <= 100
    assert sum(seat["verdicts"].values()) == sum(a["seat"] == 0 for a in game.actions)
    listed = (await api.client.get(f"/api/players/{guest}/games")).json()["games"]
    assert [item["accuracy"] for item in listed] == [seat["accuracy"]]

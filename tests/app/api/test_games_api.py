"""The finished-game routes: a game with its replay, a player's history, the leaderboard."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.api.byte_budget import ByteBudget
from app.api.encoded import accepts_gzip
from app.db import repository
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.games.replay import replay
from app.main import create_app
from app.rooms.recording import FinishedGame
from app.settings import Settings
from tests.app.db.finished_games import START, bot, person, played_game, scored_game
from tests.app.db.scratch_databases import emptied, serve_sessions


class Api:
    def __init__(
        self,
        client: httpx.AsyncClient,
        recorder: DatabaseRecorder,
        sessions: async_sessionmaker[AsyncSession],
        settings: Settings,
        app: FastAPI,
    ) -> None:
        self.client = client
        self.app = app
        self.recorder = recorder
        self.sessions = sessions
        self.settings = settings
        """The running app's own settings (a test may lower a limit)."""

    async def get(self, path: str, **params: Any) -> Any:
        response = await self.client.get(path, params=params)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture
async def api(shared_url: str) -> AsyncIterator[Api]:
    engine = create_engine(await emptied(shared_url))
    sessions = create_session_factory(engine)

    app = create_app()
    serve_sessions(app, sessions)
    transport = httpx.ASGITransport(app=app)
    # The app's runtime (its room store counts replays per address) runs for the test.
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        yield Api(client, DatabaseRecorder(sessions), sessions, app.state.runtime.settings, app)
    await engine.dispose()


GAMES = {
    "advanced, four seats": lambda: played_game(
        [person(0, "Ann"), bot(1, "easy"), person(2, "Bea"), bot(3, "hard")], seed=7
    ),
    "simple with draft, three rounds": lambda: played_game(
        [person(0, "Ann"), person(1, "Bea")], seed=3, rules="simple", draft=True, rounds=3
    ),
    "simple actions, two round wins": lambda: played_game(
        [person(0, "Ann"), person(1, "Bea"), bot(2, "medium")],
        seed=5,
        rules="simple_actions",
        rounds="two_round_wins",
    ),
}


@pytest.mark.parametrize("make_game", GAMES.values(), ids=GAMES.keys())
async def test_a_finished_game_replays_to_its_recorded_scores(api: Api, make_game: Any) -> None:
    game: FinishedGame = make_game()
    await api.recorder.record(game)

    body = await api.get(f"/api/games/{game.game_id}")

    assert (body["totals"], body["winners"], body["round_scores"]) == (
        game.totals,
        game.winners,
        game.rounds,
    )
    assert body["replay_complete"] is True
    steps = body["replay"]
    assert [step["action"] for step in steps] == [None, *game.actions]
    last = steps[-1]["view"]
    assert last["over"] is True
    assert last["rounds"]["totals"] == game.totals
    assert last["rounds"]["rounds"] == game.rounds
    assert last["rounds"]["winners"] == game.winners
    assert [p["stash"] for p in last["players"]] == game.rounds[-1]
    assert any(entry.get("event") == "game_over" for entry in steps[-1]["log"])
    # Every hand is face up at every step, now that the game is over.
    assert all(len(step["view"]["hands"]) == len(game.players) for step in steps)


def test_replaying_the_recorded_actions_reproduces_the_result() -> None:
    for make_game in GAMES.values():
        game = make_game()
        replayed = replay(game.config, game.actions)
        assert replayed.complete
        assert replayed.result["totals"] == game.totals
        assert replayed.result["winners"] == game.winners
        assert replayed.result["rounds"] == game.rounds


def test_a_replay_stops_where_the_rules_no_longer_allow_an_action() -> None:
    game = GAMES["advanced, four seats"]()
    tampered = [*game.actions[:5], {"type": "concede", "seat": 99}, *game.actions[5:]]
    replayed = replay(game.config, tampered)
    assert not replayed.complete
    assert len(replayed.steps) == 6


async def test_the_summary_names_players_without_their_secrets(api: Api) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    game = scored_game([ann, bea, bot(2, "hard")], [5, 9, 1])
    await api.recorder.record(game)

    response = await api.client.get(f"/api/games/{game.game_id}")
    body = response.json()

    assert ann.player_id not in response.text and bea.player_id not in response.text
    assert "seed" not in body
    assert [(p["name"], p["player_id"], p["ai_level"], p["winner"]) for p in body["players"]] == [
        ("Ann", repository.public_player_id(ann.player_id or ""), None, False),
        ("Bea", repository.public_player_id(bea.player_id or ""), None, True),
        ("Hard AI", None, "hard", False),
    ]
    assert body["rated"] is True
    assert body["players"][1]["rating_after"] > body["players"][1]["rating_before"]


@pytest.mark.parametrize("visibility", ["private", "public"])
async def test_no_game_record_shows_its_room_code(api: Api, visibility: str) -> None:
    game = dataclasses.replace(
        scored_game([person(0, "Ann"), person(1, "Bea")], [5, 9]), visibility=visibility
    )
    await api.recorder.record(game)

    response = await api.client.get(f"/api/games/{game.game_id}")
    assert response.json()["visibility"] == visibility
    assert "room_code" not in response.json() and game.room_code not in response.text
    async with api.sessions() as session:
        stored = await repository.get_game(session, game_id=game.game_id)
    assert stored is not None
    assert stored.room_code == (game.room_code if visibility == "public" else None)


async def test_replays_computed_per_address_are_budgeted_and_kept_ones_are_free(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30, point 3: cycling through more games than are kept cannot fill a core."""
    monkeypatch.setattr(api.settings, "replays_per_minute", 2)
    played = [played_game([person(0, "Ann"), bot(1, "easy")], seed=seed) for seed in (1, 2, 3)]
    for game in played:
        await api.recorder.record(game)
    answers = [await api.client.get(f"/api/games/{game.game_id}") for game in played]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert answers[2].json()["code"] == "too_many_replays"
    assert (await api.client.get(f"/api/games/{played[0].game_id}")).status_code == 200


PLAIN = {"Accept-Encoding": "identity"}
GZIP = {"Accept-Encoding": "gzip"}


def stopped_budget(burst: int) -> ByteBudget:
    """A budget of ``burst`` bytes on a clock that never moves: nothing is refilled."""
    return ByteBudget(per_second=1, burst=burst, clock=lambda: 0.0)


async def test_replay_bytes_sent_to_one_address_are_budgeted_kept_or_not(api: Api) -> None:
    """Issue 44, hole 3: a kept replay cost no replaying, but each answer still cost its
    bytes; eight connections fetching one kept 4.1 MB replay took a core."""
    game = played_game([person(0, "Ann"), bot(1, "easy")], seed=4)
    await api.recorder.record(game)
    size = len((await api.client.get(f"/api/games/{game.game_id}", headers=PLAIN)).content)
    api.app.state.replay_budget = stopped_budget(3 * size)
    answers = [await api.client.get(f"/api/games/{game.game_id}", headers=PLAIN) for _ in range(10)]
    sent = sum(len(answer.content) for answer in answers if answer.status_code == 200)
    assert sent == 3 * size, "as many bytes as the burst, not one answer more"
    refused = [answer for answer in answers if answer.status_code != 200]
    assert [answer.status_code for answer in refused] == [429] * 7
    assert refused[0].json()["code"] == "too_many_replay_bytes"
    assert int(refused[0].headers["retry-after"]) >= 1


async def test_the_replay_budget_is_the_settings(api: Api) -> None:
    game = played_game([person(0, "Ann"), bot(1, "easy")], seed=4)
    await api.recorder.record(game)
    assert (await api.client.get(f"/api/games/{game.game_id}")).status_code == 200
    budget = api.app.state.replay_budget
    assert (budget.per_second, budget.burst) == (
        api.settings.replay_bytes_per_second,
        api.settings.replay_burst_bytes,
    )


async def test_a_client_holding_the_replay_is_answered_304_for_nothing(api: Api) -> None:
    game = played_game([person(0, "Ann"), bot(1, "easy")], seed=4)
    await api.recorder.record(game)
    first = await api.client.get(f"/api/games/{game.game_id}", headers=PLAIN)
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"'), "a strong validator"
    api.app.state.replay_budget = stopped_budget(len(first.content))
    for _ in range(10):
        again = await api.client.get(
            f"/api/games/{game.game_id}", headers={**PLAIN, "If-None-Match": etag}
        )
        assert again.status_code == 304
        assert again.content == b""
        assert again.headers["etag"] == etag
    # The 304s took nothing: the whole burst is still there for one answer, then no more.
    other = await api.client.get(
        f"/api/games/{game.game_id}", headers={**PLAIN, "If-None-Match": '"another"'}
    )
    assert other.status_code == 200 and other.headers["etag"] == etag
    assert (await api.client.get(f"/api/games/{game.game_id}", headers=PLAIN)).status_code == 429


async def test_a_replay_is_gzipped_for_a_client_that_takes_gzip(api: Api) -> None:
    game = played_game([person(0, "Ann"), bot(1, "easy")], seed=4)
    await api.recorder.record(game)
    plain = await api.client.get(f"/api/games/{game.game_id}", headers=PLAIN)
    zipped = await api.client.get(f"/api/games/{game.game_id}", headers=GZIP)
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert plain.headers["vary"] == zipped.headers["vary"] == "Accept-Encoding"
    assert int(zipped.headers["content-length"]) * 10 < int(plain.headers["content-length"])
    assert zipped.json() == plain.json()  # httpx has undone the gzip
    assert zipped.headers["etag"] != plain.headers["etag"], "two representations, two tags"
    refused = await api.client.get(
        f"/api/games/{game.game_id}", headers={"Accept-Encoding": "gzip;q=0, identity"}
    )
    assert "content-encoding" not in refused.headers


@pytest.mark.parametrize(
    ("header", "gzip"),
    [
        (None, False),
        ("", False),
        ("identity", False),
        ("gzip", True),
        ("br, gzip;q=0.5", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("*", True),
        ("*;q=0", False),
        ("gzip;q=0, *", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accept_encoding_is_read_with_its_qualities(header: str | None, gzip: bool) -> None:
    assert accepts_gzip(header) is gzip


async def test_an_unknown_game_is_not_found(api: Api) -> None:
    response = await api.client.get("/api/games/00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404


async def test_a_players_history_is_newest_first_a_page_at_a_time(api: Api) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    games = [
        scored_game([ann, bea], [day, 3], ended_at=START + timedelta(days=day))
        for day in range(1, 4)
    ]
    for game in games:
        await api.recorder.record(game)
    public_id = repository.public_player_id(ann.player_id or "")

    first = await api.get(f"/api/players/{public_id}/games", limit=2)
    second = await api.get(f"/api/players/{public_id}/games", limit=2, offset=2)
    own = await api.get(f"/api/players/{ann.player_id}/games", limit=2)

    assert first["total"] == 3 and first["player"]["id"] == public_id
    assert [g["id"] for g in first["games"] + second["games"]] == [
        g.game_id for g in reversed(games)
    ]
    assert [g["total"] for g in first["games"]] == [3, 2]
    assert [g["winner"] for g in first["games"]] == [True, False]
    assert own == first
    assert first["player"]["games"] == 3 and first["player"]["wins"] == 1


async def test_a_player_without_games_has_an_empty_history(api: Api) -> None:
    response = await api.client.get(f"/api/players/{uuid.uuid4()}/games")
    assert response.status_code == 200
    assert response.json() == {"player": None, "games": [], "total": 0, "limit": 20, "offset": 0}


async def test_the_leaderboard_ranks_rated_players_across_pages(api: Api) -> None:
    ann, bea, cal, dan = (person(0, n) for n in ("Ann", "Bea", "Cal", "Dan"))
    await api.recorder.record(scored_game([ann, bea, cal, dan], [40, 30, 20, 10]))
    await api.recorder.record(scored_game([person(0, "Solo"), bot(1, "easy")], [50, 1]))

    first = await api.get("/api/leaderboard", limit=3)
    second = await api.get("/api/leaderboard", limit=3, offset=3)

    assert first["total"] == 4
    entries = first["entries"] + second["entries"]
    assert [(e["rank"], e["name"]) for e in entries] == [
        (1, "Ann"),
        (2, "Bea"),
        (3, "Cal"),
        (4, "Dan"),
    ]
    ratings = [e["rating"] for e in entries]
    assert ratings == sorted(ratings, reverse=True)


async def test_leaderboard_paging_is_bounded(api: Api) -> None:
    response = await api.client.get("/api/leaderboard", params={"limit": 1000})
    assert response.status_code == 422

"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from secure.middleware.asgi import SecureASGIMiddleware
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.store import AccountStore, account_store_for
from app.api import health, metrics, rooms
from app.api.body_limit import BodyLimit
from app.api.byte_budget import ByteBudget
from app.api.errors import ERROR_RESPONSES, answer_errors_plainly
from app.api.headers import SECURITY_HEADERS
from app.api.public_lists import PublicLists
from app.api.request_rate import RequestRate
from app.api.routes import accounts as account_routes
from app.api.routes import (
    friends,
    games,
    leaderboard,
    lobby,
    players,
    push,
    queue,
    reviews,
    your_games,
)
from app.api.routes.game import GameSockets
from app.api.routes.pages import serve_client
from app.db.recorder import default_recorder
from app.db.session import default_session_factory
from app.friends.standings import Standings
from app.logs import redact_server_logs
from app.matchmaking.running import running_lobby
from app.push.sender import running_push
from app.rooms.recording import GameRecorder
from app.runtime import running, store_for
from app.settings import Settings, get_settings
from app.store.base import RoomStore
from app.transport.websocket import SHARED_COMPRESSION
from app.turns.archive import TurnArchive
from app.turns.database import DatabaseTurnArchive


@asynccontextmanager
async def running_accounts(store: AccountStore) -> AsyncIterator[AccountStore]:
    """The sessions' store, started and stopped with the process."""
    await store.start()
    try:
        yield store
    finally:
        await store.close()


def create_app(
    settings: Settings | None = None,
    *,
    store: RoomStore | None = None,
    recorder: GameRecorder | None = None,
    sessions: async_sessionmaker[AsyncSession] | None = None,
    accounts: AccountStore | None = None,
    turns: TurnArchive | None = None,
) -> FastAPI:
    """The app; the room store, the game recorder, the database sessions notifications and
    turn-based games use, the account store (sessions) and where turn-based games are kept
    default to what the settings say."""
    settings = settings or get_settings()
    redact_server_logs()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        async with (
            running_accounts(accounts or account_store_for(settings)) as account_store,
            running(
                settings,
                store=store or store_for(settings),
                recorder=recorder or default_recorder(),
                turns=turns or DatabaseTurnArchive(sessions or default_session_factory()),
            ) as runtime,
            running_lobby(runtime) as lobby_life,
            running_push(
                settings,
                sessions or default_session_factory(),
                hit=runtime.service.store.hit,
            ) as push_sender,
        ):
            # Nothing from ``running`` on awaits before this line, so the clock loop has not
            # woken a room yet: every turn-based commit can send its notices.
            runtime.service.push = push_sender
            app.state.runtime = runtime
            app.state.push = push_sender
            app.state.accounts = account_store
            app.state.lobby = lobby_life
            app.state.friend_standings = Standings()
            app.state.recent_replays = games.recent_replays()
            app.state.replay_budget = ByteBudget(
                per_second=settings.replay_bytes_per_second, burst=settings.replay_burst_bytes
            )
            app.state.lists = PublicLists(
                store=runtime.service.store,
                lobby=lobby_life,
                seconds=settings.lobby_cache_ms / 1000,
                live_entries=lobby.MAX_LIVE_OFFSET + lobby.LIVE_PAGE,
                room_entries=settings.max_waiting_rooms + rooms.LIST_PAGE,
            )
            # The lifespan's state reaches the server's WebSocket protocol too: its frames
            # are compressed by the runtime's compression, which the snapshots tell.
            yield {SHARED_COMPRESSION: runtime.compression}

    app = FastAPI(
        title="Cash Stash",
        lifespan=lifespan,
        # The description maps every door: only where an operator asks for it. No /docs page:
        # its Swagger UI would load scripts from a CDN, which the CSP forbids anyway.
        openapi_url="/openapi.json" if settings.api_docs else None,
        docs_url=None,
        redoc_url=None,
        responses=ERROR_RESPONSES,
    )
    answer_errors_plainly(app)
    # The last added runs first: headers go on every answer, the 413 included.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    # Before the body is read: a refused request costs no more than its headers.
    app.add_middleware(
        RequestRate, rate=settings.request_rate_per_second, burst=settings.request_burst
    )
    app.add_middleware(SecureASGIMiddleware, secure=SECURITY_HEADERS)
    # A game's WebSocket skips the layers above, which would live as long as it does.
    app.add_middleware(GameSockets)
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(rooms.router)
    app.include_router(queue.router)
    app.include_router(lobby.router)
    app.include_router(games.router)
    app.include_router(reviews.router)
    app.include_router(players.router)
    app.include_router(leaderboard.router)
    app.include_router(push.router)
    app.include_router(account_routes.router)
    app.include_router(friends.router)
    app.include_router(your_games.router)
    serve_client(app)
    return app

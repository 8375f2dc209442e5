"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from app.api import health, metrics, rooms
from app.api.routes import games, leaderboard, players
from app.db.recorder import default_recorder
from app.logs import redact_server_logs
from app.rooms.errors import RoomError
from app.rooms.recording import GameRecorder
from app.runtime import running, store_for
from app.settings import Settings, get_settings
from app.store.base import RoomStore
from app.web import serve_client
from app.ws import routes as ws_routes


async def _room_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RoomError)
    return JSONResponse({"code": error.code, "detail": error.message}, status_code=error.status)


def create_app(
    settings: Settings | None = None,
    *,
    store: RoomStore | None = None,
    recorder: GameRecorder | None = None,
) -> FastAPI:
    """The app; the room store and the game recorder default to what the settings say."""
    settings = settings or get_settings()
    redact_server_logs()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with running(
            settings,
            store=store or store_for(settings),
            recorder=recorder or default_recorder(),
        ) as runtime:
            app.state.runtime = runtime
            yield

    app = FastAPI(title="Cash Stash", lifespan=lifespan)
    app.add_exception_handler(RoomError, _room_error)
    app.include_router(health.router)
    app.include_router(metrics.router)
    app.include_router(rooms.router)
    app.include_router(ws_routes.router)
    app.include_router(games.router)
    app.include_router(players.router)
    app.include_router(leaderboard.router)
    serve_client(app)
    return app

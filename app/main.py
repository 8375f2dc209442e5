"""The FastAPI application."""

from __future__ import annotations

from fastapi import FastAPI

from app.api.routes import games, leaderboard, players


def create_app() -> FastAPI:
    app = FastAPI(title="Cash Stash")
    app.include_router(games.router)
    app.include_router(players.router)
    app.include_router(leaderboard.router)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app

"""The browser client: its static files, and the page addresses that open it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"

router = APIRouter(include_in_schema=False)
"""The pages' addresses. Their security headers (the CSP among them) come from
``app.api.headers``, on every answer, so a page served from ``/static/`` has them too."""


def _page(name: str, *, status_code: int = 200) -> FileResponse:
    return FileResponse(
        STATIC_DIR / name,
        status_code=status_code,
        media_type="text/html",
        headers={"Cache-Control": "no-cache"},
    )


def not_found_page() -> FileResponse:
    """An unknown page address: the client, which shows that nothing is here, with a 404."""
    return _page("index.html", status_code=404)


@router.get("/")
@router.get("/leaderboard")
@router.get("/account")
@router.get("/link")
async def client_page() -> FileResponse:
    return _page("index.html")


@router.get("/r/{code}")
async def invite_page(code: str) -> FileResponse:
    """An invite link: the client opens the join screen of room ``code``."""
    return _page("index.html")


@router.get("/room/{code}")
async def room_page(code: str) -> FileResponse:
    return _page("index.html")


@router.get("/friend/{code}")
async def friend_link_page(code: str) -> FileResponse:
    """A friend link: the client asks a signed-in visitor whether to ask its owner."""
    return _page("index.html")


@router.get("/players/{player_id}")
async def profile_page(player_id: str) -> FileResponse:
    """A player's profile: the client asks what the visitor may see of it."""
    return _page("index.html")


@router.get("/games/{game_id}")
async def replay_page(game_id: str) -> FileResponse:
    return _page("index.html")


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The service worker (Web Push notifications), served from the root so that its scope is
    the whole site; ``no-cache`` so that a new version is found at the next visit."""
    return FileResponse(
        STATIC_DIR / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/help")
async def help_page() -> FileResponse:
    return _page("help.html")


def serve_client(app: FastAPI) -> None:
    """Serve the client's pages and its ``/static`` files (after every API route)."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

"""The browser client: its static files, and the page addresses that open it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""Everything the client loads comes from this server: no fonts, scripts or icons from elsewhere."""

router = APIRouter(include_in_schema=False)


def _page(name: str) -> FileResponse:
    return FileResponse(
        STATIC_DIR / name,
        media_type="text/html",
        headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"},
    )


@router.get("/")
@router.get("/leaderboard")
async def client_page() -> FileResponse:
    return _page("index.html")


@router.get("/r/{code}")
async def invite_page(code: str) -> FileResponse:
    """An invite link: the client opens the join screen of room ``code``."""
    return _page("index.html")


@router.get("/room/{code}")
async def room_page(code: str) -> FileResponse:
    return _page("index.html")


@router.get("/games/{game_id}")
async def replay_page(game_id: str) -> FileResponse:
    return _page("index.html")


@router.get("/help")
async def help_page() -> FileResponse:
    return _page("help.html")


def serve_client(app: FastAPI) -> None:
    """Serve the client's pages and its ``/static`` files (after every API route)."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

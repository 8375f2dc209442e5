"""The browser client: its static files, and the page addresses that open it."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers, MutableHeaders
from starlette.staticfiles import NotModifiedResponse
from starlette.types import Scope

STATIC_DIR = Path(__file__).resolve().parents[3] / "static"
COMPRESSED = frozenset({".css", ".js", ".svg", ".html", ".json", ".txt"})
"""The static files sent gzipped to a browser that takes gzip (text; the images are not)."""

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


def takes_gzip(headers: Headers) -> bool:
    """Whether the request's ``Accept-Encoding`` names gzip (or ``*``) with a weight above 0."""
    for coding in headers.get("accept-encoding", "").split(","):
        name, _, params = coding.partition(";")
        if name.strip().lower() in ("gzip", "*"):
            weight = params.strip().lower().removeprefix("q=")
            try:
                return not params.strip() or float(weight) > 0
            except ValueError:
                return False
    return False


class CompressedStaticFiles(StaticFiles):
    """The static files, their text gzipped for a browser that takes it (a first visit is about
    a third of the bytes). Each file is compressed once per version (its size and time), so a
    request costs a lookup, never a compression, however often it is sent; the cache holds
    one entry per file of the directory."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        self._gzipped: dict[str, tuple[tuple[int, int], bytes]] = {}

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        if Path(full_path).suffix not in COMPRESSED:
            return super().file_response(full_path, stat_result, scope, status_code)
        request_headers = Headers(scope=scope)
        plain = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        plain.headers["vary"] = "Accept-Encoding"
        headers = plain.headers
        if takes_gzip(request_headers):
            # Another representation, another tag: a cache never answers one with the other.
            headers = MutableHeaders(
                raw=[(k, v) for k, v in plain.headers.raw if k != b"content-length"]
            )
            headers["etag"] = plain.headers["etag"].removesuffix('"') + '-gzip"'
            headers["content-encoding"] = "gzip"
        if self.is_not_modified(headers, request_headers):
            return NotModifiedResponse(headers)
        if headers is plain.headers:
            return plain
        return Response(self._gzip(full_path, stat_result), status_code, headers=dict(headers))

    def _gzip(self, full_path: str | os.PathLike[str], stat_result: os.stat_result) -> bytes:
        version = (stat_result.st_size, stat_result.st_mtime_ns)
        kept = self._gzipped.get(str(full_path))
        if kept is None or kept[0] != version:
            body = gzip.compress(Path(full_path).read_bytes(), compresslevel=9, mtime=0)
            kept = self._gzipped[str(full_path)] = (version, body)
        return kept[1]


def serve_client(app: FastAPI) -> None:
    """Serve the client's pages and its ``/static`` files (after every API route)."""
    app.include_router(router)
    app.mount("/static", CompressedStaticFiles(directory=STATIC_DIR), name="static")

"""Dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.rooms.credentials import normalize_room_code
from app.rooms.errors import RoomError, room_not_found
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.runtime import Runtime
from app.ws.hub import Hub


def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_service(runtime: RuntimeDep) -> RoomService:
    return runtime.service


ServiceDep = Annotated[RoomService, Depends(get_service)]


def get_tables(runtime: RuntimeDep) -> Tables:
    return runtime.tables


TablesDep = Annotated[Tables, Depends(get_tables)]
"""The lobby's use cases; each answers the room it committed, for the route to hand to the hub."""


def get_hub(runtime: RuntimeDep) -> Hub:
    return runtime.hub


HubDep = Annotated[Hub, Depends(get_hub)]
"""Where a route hands the room it committed, to reach every seat connected here."""

_bearer = HTTPBearer(auto_error=False, description="The host's seat token.")


def host_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    if credentials is None:
        raise RoomError(
            "missing_token", "Send the host's token as Authorization: Bearer.", status=401
        )
    return credentials.credentials


HostToken = Annotated[str, Depends(host_token)]


def room_code(code: str) -> str:
    normalized = normalize_room_code(code)
    if normalized is None:
        raise room_not_found()
    return normalized


RoomCode = Annotated[str, Depends(room_code)]


def client_address(request: Request) -> str:
    """The client's address: behind a trusted proxy (``CASH_STASH_FORWARDED_ALLOW_IPS``), the
    one it names in ``X-Forwarded-For``; from anyone else, the peer's own address."""
    return request.client.host if request.client else "unknown"


async def count_attempt(request: Request, runtime: RuntimeDep) -> None:
    """Rate-limit attempts to find rooms by code, per client address, across processes."""
    allowed = await runtime.service.store.hit(
        f"join:{client_address(request)}", limit=runtime.settings.join_limit, window_seconds=60
    )
    if not allowed:
        raise RoomError(
            "too_many_attempts", "Too many attempts; wait a minute and try again.", status=429
        )


CountedAttempt = Depends(count_attempt)


async def count_creation(request: Request, runtime: RuntimeDep) -> None:
    """Rate-limit room creation per client address, across processes."""
    allowed = await runtime.service.store.hit(
        f"create:{client_address(request)}",
        limit=runtime.settings.create_limit,
        window_seconds=60,
    )
    if not allowed:
        raise RoomError(
            "too_many_rooms_created",
            "Too many rooms created from here; wait a minute and try again.",
            status=429,
        )


CountedCreation = Depends(count_creation)

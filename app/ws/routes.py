"""``GET /ws/{code}?token=``: the handshake checks, then a ``Connection`` serves the client."""

from __future__ import annotations

import contextlib
import logging

from fastapi import APIRouter, WebSocket
from uvicorn.protocols.utils import ClientDisconnected

from app.rooms.credentials import hash_token, normalize_room_code
from app.runtime import Runtime
from app.store.base import STORE_ERRORS
from app.ws.connection import CLOSE_POLICY, CLOSE_TRY_AGAIN, Connection, error_message
from app.ws.limits import origin_allowed
from app.ws.snapshot import Snapshot

router = APIRouter()

CLOSE_NO_ROOM = 4404
CLOSE_BAD_TOKEN = 4401
CLOSE_NO_SPECTATORS = 4406
"""A connection without a seat to a room whose host does not allow spectators."""

logger = logging.getLogger(__name__)


@router.websocket("/ws/{code}")
async def play(websocket: WebSocket, code: str, token: str | None = None) -> None:
    try:
        await _play(websocket, code, token)
    except ClientDisconnected:
        raise  # an OSError too, but the client's leaving: uvicorn ends the connection quietly
    except STORE_ERRORS as error:
        # The store failed while the connection opened: the client is told to come back.
        logger.warning("connection not opened: store unavailable (%s)", type(error).__name__)
        with contextlib.suppress(RuntimeError, OSError):
            await websocket.send_json(
                error_message("unavailable", "The game could not be reached; reconnect.")
            )
            await websocket.close(CLOSE_TRY_AGAIN)


async def _play(websocket: WebSocket, code: str, token: str | None) -> None:
    runtime: Runtime = websocket.app.state.runtime
    service, hub = runtime.service, runtime.hub
    headers = websocket.headers
    if not origin_allowed(
        headers.get("origin"), headers.get("host"), runtime.settings.allowed_origins
    ):
        await websocket.close(CLOSE_POLICY)
        return
    await websocket.accept()
    room_code = normalize_room_code(code)
    room = None if room_code is None else await service.load(room_code)
    if room is None:
        # A miss counts as a join attempt, as over REST: codes cannot be guessed here either.
        address = websocket.client.host if websocket.client else "unknown"
        allowed = await service.store.hit(
            f"join:{address}", limit=runtime.settings.join_limit, window_seconds=60
        )
        refusal = (
            error_message("room_not_found", "There is no room with that code.")
            if allowed
            else error_message("too_many_attempts", "Too many attempts; wait a minute.")
        )
        await websocket.send_json(refusal)
        await websocket.close(CLOSE_NO_ROOM)
        return
    token_hash = hash_token(token) if token else None
    if token_hash is not None and room.seat_of(token_hash) is None:
        await websocket.send_json(
            error_message("bad_token", "That token does not hold a seat here.")
        )
        await websocket.close(CLOSE_BAD_TOKEN)
        return
    if token_hash is None and not room.options.spectators:
        await websocket.send_json(
            error_message("no_spectators", "This room does not allow spectators; ask for a seat.")
        )
        await websocket.close(CLOSE_NO_SPECTATORS)
        return
    connection = Connection(
        websocket,
        code=room.code,
        token_hash=token_hash,
        service=service,
        settings=runtime.settings,
        metrics=runtime.metrics,
    )
    code = room.code
    hub.add(code, connection)
    seat = None if token_hash is None else room.seat_of(token_hash)
    logger.info("connected", extra={"room": code, "seat": seat})
    try:
        if token_hash is not None:
            await service.set_presence(code, token_hash, connected=True)
        # Read again now that the hub holds the connection: a commit fanned out between the
        # first read and ``hub.add`` would otherwise not reach it until the next one.
        room = await service.load(code) or room
        connection.open(Snapshot(room))
        # The connection lives for hours: it must not keep the room it opened with alive.
        del room
        await connection.serve()
    finally:
        hub.remove(code, connection)
        logger.info("disconnected", extra={"room": code, "seat": connection.seat})
        if token_hash is not None:
            await hub.depart(code, token_hash, seat=connection.seat)

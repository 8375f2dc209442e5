"""``GET /ws/{code}``: the handshake checks, the ``hello``, then a ``Connection`` serves it.

A game's connection lives for hours, and every layer it passes through on its way in stays
alive with it: FastAPI's route wrapper and its exit stacks, the router, the exception, body
limit and security-header middlewares hold about 10 KiB per connection (tracemalloc on the
load bench, ``docs/performance.md``). None of them does anything for a WebSocket here (the
headers and the body limit are HTTP's; this handler answers its own errors), so
``GameSockets`` hands ``/ws/{code}`` to ``play`` straight from the outermost middleware.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re

from fastapi import WebSocket
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketState
from uvicorn.protocols.utils import ClientDisconnected

from app.rooms import chat
from app.rooms.credentials import hash_token, normalize_room_code
from app.runtime import Runtime
from app.store.base import STORE_ERRORS
from app.ws.connection import (
    CLOSE_NO_SPECTATORS,
    CLOSE_POLICY,
    CLOSE_TRY_AGAIN,
    Connection,
    error_message,
    whole_seconds,
)
from app.ws.limits import origin_allowed, token_in_url
from app.ws.messages import ChatHistoryMessage, Hello
from app.ws.snapshot import Snapshot, encode

CLOSE_NO_ROOM = 4404
CLOSE_BAD_TOKEN = 4401

logger = logging.getLogger(__name__)


class _Refused(Exception):
    """The connection is refused: an ``error`` with ``code`` and ``message``, then ``close``."""

    def __init__(self, code: str, message: str, close: int) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.close = close


_GAME_PATH = re.compile(r"/ws/([^/]+)")
_OTHER_SOCKETS = frozenset({"queue"})
"""``/ws/`` paths that are not rooms (``app/api/routes/queue.py``): routed as usual."""


class GameSockets:
    """The ASGI middleware that takes ``/ws/{code}`` WebSockets to ``play`` directly (the
    module's docstring says why); everything else goes on to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            found = _GAME_PATH.fullmatch(scope["path"])
            if found is not None and found[1] not in _OTHER_SOCKETS:
                await play(WebSocket(scope, receive, send), found[1])
                return
        await self.app(scope, receive, send)


async def play(websocket: WebSocket, code: str) -> None:
    runtime: Runtime = websocket.app.state.runtime
    if not _origin_allowed(websocket, runtime):
        await websocket.close(CLOSE_POLICY)
        return
    # The proxy's address is replaced by the client's only when the proxy is trusted
    # (``CASH_STASH_FORWARDED_ALLOW_IPS``): a client cannot name itself another address.
    address = websocket.client.host if websocket.client else "unknown"
    refusal = runtime.hub.caps.refusal(address)
    if refusal is not None:
        await _refuse(websocket, _Refused(*refusal, close=CLOSE_TRY_AGAIN))
        return
    try:
        await _play(websocket, code, address)
    except _Refused as refused:
        await _refuse(websocket, refused)
    except ClientDisconnected:
        raise  # an OSError too, but the client's leaving: uvicorn ends the connection quietly
    except STORE_ERRORS as error:
        # The store failed while the connection opened: the client is told to come back.
        logger.warning("connection not opened: store unavailable (%s)", type(error).__name__)
        await _refuse(
            websocket,
            _Refused(
                "unavailable", "The game could not be reached; reconnect.", close=CLOSE_TRY_AGAIN
            ),
        )
    finally:
        runtime.hub.caps.release(address)


def _origin_allowed(websocket: WebSocket, runtime: Runtime) -> bool:
    # Read apart from ``websocket.headers``, which would keep them for the connection's life.
    headers = Headers(scope=websocket.scope)
    return origin_allowed(
        headers.get("origin"), headers.get("host"), runtime.settings.allowed_origins
    )


async def _refuse(websocket: WebSocket, refused: _Refused) -> None:
    with contextlib.suppress(RuntimeError, OSError):
        if websocket.client_state is WebSocketState.CONNECTING:
            await websocket.accept()
        await websocket.send_text(encode(error_message(refused.code, refused.message)))
        await websocket.close(refused.close)


async def _hello(websocket: WebSocket, *, seconds: float, max_bytes: int) -> Hello | None:
    """The client's ``hello`` (None: it left first), or ``_Refused`` when it sends anything
    else or nothing in time. Never quotes what was sent: it may hold a token."""
    expected = _Refused(
        "hello_expected",
        'The first message must be {"type": "hello", "token": <seat token>} '
        "(a spectator leaves the token out).",
        close=CLOSE_POLICY,
    )
    try:
        received = await asyncio.wait_for(websocket.receive(), seconds)
    except TimeoutError:
        raise _Refused(
            "hello_timeout", f"No hello within {seconds:g} seconds.", close=CLOSE_POLICY
        ) from None
    if received["type"] == "websocket.disconnect":
        return None
    text = received.get("text")
    if text is None or len(text) > max_bytes:
        raise expected
    try:
        return Hello.model_validate_json(text)
    except ValidationError:
        raise expected from None


async def _turn_for_a_whole_state(websocket: WebSocket, wait: float) -> None:
    """Wait ``wait`` seconds, the address's turn for the whole state a new connection is sent
    (its first, with the room summary and the chat history), after telling the client why.
    Waiting rather than refused: a refused client would come back at once, and each time
    cost a handshake and a hello; this one holds a place of its address's connection cap."""
    if wait <= 0:
        return
    seconds = whole_seconds(wait)
    delayed = error_message(
        "state_delayed",
        f"Too many whole states sent to your address; this one comes in {seconds} seconds.",
        retry_after=seconds,
    )
    await websocket.send_text(encode(delayed))
    await asyncio.sleep(wait)


async def _play(websocket: WebSocket, code: str, address: str) -> None:
    runtime: Runtime = websocket.app.state.runtime
    service, hub, settings = runtime.service, runtime.hub, runtime.settings
    await websocket.accept()
    if token_in_url(websocket.scope.get("query_string", b"")):
        raise _Refused(
            "token_in_url",
            "Seat tokens never go in the URL: connect without it and send it in the first "
            'message, {"type": "hello", "token": <seat token>}.',
            close=CLOSE_POLICY,
        )
    hello = await _hello(
        websocket, seconds=settings.ws_hello_seconds, max_bytes=settings.ws_max_message_bytes
    )
    if hello is None:
        return
    room_code = normalize_room_code(code)
    room = None if room_code is None else await service.load(room_code)
    if room is None:
        # A miss counts as a join attempt, as over REST: codes cannot be guessed here either.
        allowed = await service.store.hit(
            f"join:{address}", limit=settings.join_limit, window_seconds=60
        )
        if allowed:
            raise _Refused("room_not_found", "There is no room with that code.", CLOSE_NO_ROOM)
        raise _Refused("too_many_attempts", "Too many attempts; wait a minute.", CLOSE_NO_ROOM)
    token_hash = None if hello.token is None else hash_token(hello.token)
    del hello  # the token itself is not kept for the connection's life
    if token_hash is not None and room.seat_of(token_hash) is None:
        raise _Refused("bad_token", "That token does not hold a seat here.", CLOSE_BAD_TOKEN)
    if token_hash is None and not room.options.spectators:
        raise _Refused(
            "no_spectators",
            "This room does not allow spectators; ask for a seat.",
            CLOSE_NO_SPECTATORS,
        )
    # A seat's own connection is never refused for a crowded room: only watchers count.
    watching = token_hash is None
    if watching:
        crowded = hub.caps.watch(room.code)
        if crowded is not None:
            raise _Refused(*crowded, close=CLOSE_TRY_AGAIN)
    code = room.code
    seat = None if token_hash is None else room.seat_of(token_hash)
    connection = Connection(
        websocket,
        code=code,
        token_hash=token_hash,
        service=service,
        hub=hub,
        settings=settings,
        metrics=runtime.metrics,
        address=address,
        whole_states=hub.whole_states,
        messages=hub.messages,
        compression=hub.compression,
    )
    try:
        await _turn_for_a_whole_state(websocket, hub.whole_states.take(address))
        await hub.add(code, connection)
    except BaseException:
        if watching:
            hub.caps.unwatch(code)
        raise
    logger.info("connected", extra={"room": code, "seat": seat})
    try:
        if token_hash is not None:
            await hub.arrive(code, token_hash)
        # The chat history is read before the room, so that it follows the first state at
        # once; a line said meanwhile reaches the connection live (and may be in it too).
        history = ChatHistoryMessage(
            type="chat_history",
            lines=await chat.history(service.store, code, max_bytes=settings.chat_history_bytes),
        )
        # Read again now that the hub holds the connection: a commit fanned out between the
        # first read and ``hub.add`` would otherwise not reach it until the next one.
        room = await service.load(code) or room
        connection.open(Snapshot(room, hub.compression))
        connection.deliver(dict(history))
        # The connection lives for hours: it must not keep the room it opened with alive.
        del room
        await connection.serve()
    finally:
        hub.remove(code, connection)
        if watching:
            hub.caps.unwatch(code)
        logger.info("disconnected", extra={"room": code, "seat": connection.seat})
        if token_hash is not None:
            hub.depart(code, token_hash, seat=connection.seat)

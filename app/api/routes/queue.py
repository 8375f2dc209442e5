"""``GET /ws/queue``: Play now. The player asks for a table, waits (told their place and the
players found), and is sent to their seat; closing the socket leaves the queue.

A player is in the queue to be matched only once they have shown they are there: a message
(``ping``) read after ``queued``, then one at least every ``queue_alive_seconds``. A socket
that falls silent is closed (``queue_silent``): a ghost that opened it and stopped cannot be
matched with the players who are there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from starlette.websockets import WebSocketState

from app.api.schemas import STRICT, DisplayName, GuestId
from app.matchmaking.model import Choice
from app.matchmaking.running import Lobby
from app.matchmaking.service import QueueError, Ticket
from app.rooms.errors import RoomError
from app.rooms.model import MAX_SEATS, MIN_SEATS, RoomMode, RuleSet
from app.store.base import STORE_ERRORS
from app.ws.connection import CLOSE_POLICY, CLOSE_TRY_AGAIN
from app.ws.limits import TokenBucket, origin_allowed

router = APIRouter()
logger = logging.getLogger(__name__)


class QueueJoin(BaseModel):
    """The first message: who is asking, and for which table."""

    model_config = STRICT
    type: Literal["queue"]
    name: DisplayName
    player_id: GuestId
    seats: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] | Literal["any"] = 4
    """The table size, or ``"any"``."""
    rules: RuleSet = "advanced"
    draft: bool = False
    mode: RoomMode = "live"
    """``turn``: a turn-based table (a day to move), with players who asked for one too."""


class FillWithAi(BaseModel):
    model_config = STRICT
    type: Literal["fill_ai"]


class Cancel(BaseModel):
    model_config = STRICT
    type: Literal["cancel"]


class Ping(BaseModel):
    model_config = STRICT
    type: Literal["ping"]


QueueMessage = Annotated[FillWithAi | Cancel | Ping, Field(discriminator="type")]


class Queued(BaseModel):
    """The player waits: for this table, and AI after ``ai_after`` seconds; once they send
    ``ping`` now and then every ``ping_every`` seconds."""

    type: Literal["queued"] = "queued"
    seats: int | Literal["any"]
    rules: RuleSet
    draft: bool
    mode: RoomMode
    ai_after: float
    ping_every: float


class WaitingNow(BaseModel):
    """How the search goes, sent whenever it changes."""

    type: Literal["waiting"] = "waiting"
    position: int
    found: int
    waiting: int
    seats: int | Literal["any"]


class Matched(BaseModel):
    """The seat found: the room's code, the seat and its token."""

    type: Literal["matched"] = "matched"
    code: str
    seat: int
    token: str


class Cancelled(BaseModel):
    type: Literal["cancelled"] = "cancelled"


class Pong(BaseModel):
    type: Literal["pong"] = "pong"


class QueueRefusal(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str


async def _send(websocket: WebSocket, message: BaseModel) -> None:
    await websocket.send_text(message.model_dump_json())


_MESSAGES: TypeAdapter[FillWithAi | Cancel | Ping] = TypeAdapter(QueueMessage)


class _Refused(Exception):
    def __init__(self, code: str, message: str, close: int = CLOSE_POLICY) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.close = close


@router.websocket("/ws/queue")
async def queue(websocket: WebSocket) -> None:
    lobby: Lobby = websocket.app.state.lobby
    settings = lobby.runtime.settings
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.allowed_origins):
        await websocket.close(CLOSE_POLICY)
        return
    address = websocket.client.host if websocket.client else "unknown"
    sockets = lobby.sockets
    try:
        sockets[address] += 1
        if sockets[address] > settings.queue_sockets_per_address:
            raise _Refused(
                "too_many_connections",
                "Too many queue connections from your address; close one and try again.",
                CLOSE_TRY_AGAIN,
            )
        await _serve(websocket, lobby, address)
    except _Refused as refused:
        await _refuse(websocket, refused)
    except STORE_ERRORS as error:
        logger.warning("queue connection ended: store unavailable (%s)", type(error).__name__)
        await _refuse(
            websocket,
            _Refused("unavailable", "The queue cannot be reached; try again.", CLOSE_TRY_AGAIN),
        )
    finally:
        sockets[address] -= 1
        if sockets[address] <= 0:
            del sockets[address]


async def _refuse(websocket: WebSocket, refused: _Refused) -> None:
    with contextlib.suppress(RuntimeError, OSError):
        if websocket.client_state is WebSocketState.CONNECTING:
            await websocket.accept()
        await _send(websocket, QueueRefusal(code=refused.code, message=refused.message))
        await websocket.close(refused.close)


async def _first(websocket: WebSocket, *, seconds: float) -> QueueJoin | None:
    expected = _Refused(
        "queue_expected",
        'The first message must be {"type": "queue", "name": …, "player_id": …, "seats": …, '
        '"rules": …, "draft": …, "mode": …}.',
    )
    try:
        received = await asyncio.wait_for(websocket.receive(), seconds)
    except TimeoutError:
        raise _Refused("hello_timeout", f"Nothing asked within {seconds:g} seconds.") from None
    if received["type"] == "websocket.disconnect":
        return None
    text = received.get("text")
    if text is None:
        raise expected
    try:
        return QueueJoin.model_validate_json(text)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise _Refused("bad_request", f"{where}: {problem['msg']}") from None


async def _serve(websocket: WebSocket, lobby: Lobby, address: str) -> None:
    settings = lobby.runtime.settings
    matchmaker = lobby.matchmaker
    await websocket.accept()
    asked = await _first(websocket, seconds=settings.ws_hello_seconds)
    if asked is None:
        return
    allowed = await lobby.runtime.service.store.hit(
        f"queue:{address}", limit=settings.queue_joins_per_minute, window_seconds=60
    )
    if not allowed:
        raise _Refused("too_many_attempts", "Too many games asked for; wait a minute.")
    seats = None if asked.seats == "any" else asked.seats
    choice = Choice(seats=seats, rules=asked.rules, draft=asked.draft, mode=asked.mode)
    try:
        matchmaker.check(choice)
    except (QueueError, RoomError) as refusal:
        raise _Refused(refusal.code, refusal.message) from None
    await _send(
        websocket,
        Queued(
            seats=asked.seats,
            rules=choice.rules,
            draft=choice.draft,
            mode=choice.mode,
            ai_after=settings.queue_ai_wait_seconds,
            ping_every=settings.queue_alive_seconds / 3,
        ),
    )
    player = _Player(websocket, heard_at=time.monotonic())
    receiver = asyncio.create_task(_receive(player, lobby))
    ticket: Ticket | None = None
    try:
        ticket = await _proven(player, receiver, lobby, choice, asked, address)
        if ticket is not None:
            await _wait(player, receiver, lobby, ticket)
    finally:
        receiver.cancel()
        if ticket is not None and (not ticket.placed.done() or ticket.placed.cancelled()):
            await matchmaker.leave(ticket)


@dataclass(eq=False)
class _Player:
    """A queue socket, and what its player has said so far."""

    websocket: WebSocket
    heard_at: float
    """When a message was last read from the socket (monotonic seconds)."""
    heard: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at each message read; cleared by whoever waits for the next."""
    wants_ai: bool = False


async def _heard_from(player: _Player, receiver: asyncio.Task[bool], lobby: Lobby) -> bool:
    """Wait for the player's next message; False when the socket closed or they cancelled
    (``receiver`` is done then). ``queue_silent`` when nothing comes in time."""
    alive = lobby.runtime.settings.queue_alive_seconds
    player.heard.clear()
    heard = asyncio.create_task(player.heard.wait())
    try:
        await asyncio.wait(
            {receiver, heard},
            timeout=max(0.0, player.heard_at + alive - time.monotonic()),
            return_when="FIRST_COMPLETED",
        )
    finally:
        heard.cancel()
    if receiver.done():
        return False
    if not player.heard.is_set():
        raise _silent(alive)
    return True


def _silent(alive: float) -> _Refused:
    return _Refused(
        "queue_silent",
        f"Nothing heard from you in {alive:g} seconds: send ping to stay in the queue.",
        CLOSE_TRY_AGAIN,
    )


async def _proven(
    player: _Player,
    receiver: asyncio.Task[bool],
    lobby: Lobby,
    choice: Choice,
    asked: QueueJoin,
    address: str,
) -> Ticket | None:
    """The player's ticket, queued once they answer ``queued`` (a message read after it);
    None when they cancelled or left first."""
    if not await _heard_from(player, receiver, lobby):
        await _ended(player, receiver)
        return None
    try:
        ticket = await lobby.matchmaker.join(
            choice=choice, name=asked.name, player_id=str(asked.player_id), address=address
        )
    except (QueueError, RoomError) as refusal:
        raise _Refused(refusal.code, refusal.message) from None
    if player.wants_ai:
        await lobby.matchmaker.fill_with_ai(ticket)
    return ticket


async def _ended(player: _Player, receiver: asyncio.Task[bool]) -> None:
    """Say goodbye to a player who cancelled (``receiver`` answered True)."""
    if receiver.result():
        await _send(player.websocket, Cancelled())
        await player.websocket.close(1000)


async def _wait(
    player: _Player, receiver: asyncio.Task[bool], lobby: Lobby, ticket: Ticket
) -> None:
    """Tell the player how the search goes until they are placed, cancel, leave, or fall
    silent for ``queue_alive_seconds``."""
    settings = lobby.runtime.settings
    websocket = player.websocket
    asked_ai = player.wants_ai
    while True:
        player.heard.clear()
        if player.wants_ai and not asked_ai:
            asked_ai = True
            await lobby.matchmaker.fill_with_ai(ticket)
        changed = asyncio.create_task(ticket.changed.wait())
        heard = asyncio.create_task(player.heard.wait())
        waiting_on: set[asyncio.Future[Any]] = {receiver, ticket.placed, changed, heard}
        silent_in = player.heard_at + settings.queue_alive_seconds - time.monotonic()
        await asyncio.wait(waiting_on, timeout=max(0.0, silent_in), return_when="FIRST_COMPLETED")
        changed.cancel()
        heard.cancel()
        if ticket.placed.done() and not ticket.placed.cancelled():
            placement = ticket.placed.result()
            await _send(
                websocket, Matched(code=placement.code, seat=placement.seat, token=ticket.token)
            )
            await websocket.close(1000)
            return
        if receiver.done():
            if receiver.result():
                await lobby.matchmaker.leave(ticket)
            await _ended(player, receiver)
            return
        if time.monotonic() - player.heard_at >= settings.queue_alive_seconds:
            raise _silent(settings.queue_alive_seconds)
        if not ticket.changed.is_set():
            continue
        ticket.changed.clear()
        status = ticket.status
        if status is not None:
            await _send(
                websocket,
                WaitingNow(
                    position=status.position,
                    found=status.found,
                    waiting=status.waiting,
                    seats=ticket.choice.seats or "any",
                ),
            )


async def _receive(player: _Player, lobby: Lobby) -> bool:
    """Answer the player's messages; True when they cancel, False when the socket closed.
    Every message read, even one refused, shows the player is there (``_Player.heard_at``)."""
    settings = lobby.runtime.settings
    websocket = player.websocket
    bucket = TokenBucket(rate=settings.ws_messages_per_second, burst=settings.ws_burst)
    while True:
        try:
            received = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return False
        if received["type"] == "websocket.disconnect":
            return False
        player.heard_at = time.monotonic()
        player.heard.set()
        if not bucket.take():
            slow_down = QueueRefusal(code="rate_limited", message="Too many messages; slow down.")
            await _send(websocket, slow_down)
            continue
        try:
            message = _MESSAGES.validate_json(received.get("text") or "")
        except ValidationError:
            await _send(
                websocket,
                QueueRefusal(
                    code="bad_message", message='Send {"type": "fill_ai"}, "cancel" or "ping".'
                ),
            )
            continue
        if isinstance(message, Cancel):
            return True
        if isinstance(message, FillWithAi):
            player.wants_ai = True
            player.heard.set()
        else:
            await _send(websocket, Pong())

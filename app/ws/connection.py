"""One WebSocket connection: a reader that checks and handles messages, and one way out for
every message to the client (``Connection.deliver``): straight to the transport when nothing
waits before it, else through a writer and its queue."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocket

from app.metrics import Metrics
from app.rooms import play
from app.rooms.chat import say
from app.rooms.errors import RoomError, room_not_found
from app.rooms.hints import ask_hint
from app.rooms.service import RoomService
from app.settings import Settings
from app.store.base import STORE_ERRORS
from app.text import TextRefused, clean_text
from app.transport.deflate import SharedCompression
from app.transport.lean import LeanEvent, LeanQueue
from app.transport.websocket import Text, send_now_of
from app.ws.hub import Hub
from app.ws.limits import AddressBudget, TokenBucket, WholeStates
from app.ws.messages import (
    CLIENT_TYPES,
    Act,
    AppliedMessage,
    Chat,
    ChatMessage,
    ErrorMessage,
    Hint,
    Ping,
    Pong,
    Resync,
    client_message,
)
from app.ws.snapshot import LogMark, Snapshot, encode

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013
CLOSE_REMOVED = 4403

_FLUSH_SECONDS = 1.0

logger = logging.getLogger(__name__)


CLOSE_NO_SPECTATORS = 4406
"""A connection without a seat to a room whose host does not allow spectators."""


class _Removed(Exception):
    """The seat this connection held is gone (the host removed it)."""

    close_code = CLOSE_REMOVED
    error = ("removed", "The host removed you from this room.")


class _NoSpectators(_Removed):
    """The host stopped allowing spectators while this one watched."""

    close_code = CLOSE_NO_SPECTATORS
    error = ("no_spectators", "This room no longer allows spectators.")


class _TooSoon(RoomError):
    """A budget's refusal, which says in how many seconds to ask again."""

    def __init__(self, code: str, message: str, *, retry_after: int) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


def whole_seconds(wait: float) -> int:
    """A wait as the whole seconds a client is told (at least one)."""
    return max(1, math.ceil(wait))


_Item = Snapshot | dict[str, Any] | Text
"""What a connection sends: a room's snapshot, a message, or a text rendered."""


def error_message(
    code: str, message: str, ref: str | int | None = None, *, retry_after: int | None = None
) -> dict[str, Any]:
    error = ErrorMessage(ref=ref, code=code, message=message, retry_after=retry_after)
    # ``retry_after`` only where a budget says when: every other error is as it was.
    unsaid = {"retry_after"} if retry_after is None else None
    return error.model_dump(mode="json", exclude=unsaid)


def _dump(message: BaseModel) -> dict[str, Any]:
    return message.model_dump(mode="json")


def _ref_of(message: str | dict[str, Any]) -> str | int | None:
    """The ``ref`` a client put in a message, if it can be read, to answer it by."""
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return None
    ref = message.get("ref") if isinstance(message, dict) else None
    return ref if isinstance(ref, str | int) else None


class Connection:
    """A seat's (or a spectator's) connection to one room in this process."""

    def __init__(
        self,
        websocket: WebSocket,
        *,
        code: str,
        token_hash: str | None,
        service: RoomService,
        hub: Hub,
        settings: Settings,
        metrics: Metrics,
        address: str = "unknown",
        whole_states: WholeStates | None = None,
        messages: AddressBudget | None = None,
        compression: SharedCompression | None = None,
    ) -> None:
        self._websocket = websocket
        self._compression = compression
        """The process's compression, for the snapshots this connection reads itself."""
        self._address = address
        self._code = code
        self._token_hash = token_hash
        self._service = service
        self._hub = hub
        """Where the rooms this connection commits go, to reach every seat here."""
        self._settings = settings
        self._metrics = metrics
        self._queue: LeanQueue[_Item | None] = LeanQueue(settings.ws_queue_size)
        """What waits for the writer: snapshots, answers and messages, or texts rendered."""
        self._send_now = send_now_of(websocket.scope)
        """The server's ``send_now`` (``app/transport/websocket.py``), if it offers one."""
        self._writing = False
        """The writer holds an item it has not finished sending."""
        self._seat: int | None = None
        self._version = 0
        self._room_summary: tuple[Any, ...] | None = None
        """The room summary last sent (shared with the room's other connections)."""
        self._log: LogMark | None = None
        """The log as of the last ``state`` sent, which the client holds: the next carries
        only the entries after it."""
        self._resync = False
        """The client asked for a resync: the next snapshot goes whole, with the room
        summary, even at the version sent last."""
        self._bucket = TokenBucket(rate=settings.ws_messages_per_second, burst=settings.ws_burst)
        self._resyncs = TokenBucket(
            rate=settings.resyncs_per_minute / 60, burst=settings.resyncs_per_minute
        )
        """A resync sends the whole state and log: a few a minute, not one per message."""
        if whole_states is None:
            whole_states = WholeStates(
                rate=settings.ws_whole_states_per_second, burst=settings.ws_whole_states_burst
            )
        self._whole_states = whole_states
        """The address's budget of whole states in this process (the hub's, shared by its
        connections; a connection made alone has one of its own)."""
        if messages is None:
            messages = AddressBudget(
                rate=settings.ws_messages_per_address_per_second,
                burst=settings.ws_messages_per_address_burst,
            )
        self._messages = messages
        """The address's budget of messages in this process (the hub's, shared by its
        connections), beside the connection's own bucket."""
        self._refused = 0
        self.dropped = False
        """The queue overflowed: the client is too slow and must reconnect (and resync)."""
        self._writer: asyncio.Task[int | None] | None = None
        self._reply_room = max(1, settings.ws_queue_size // 2)
        self._drained = LeanEvent()

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def token_hash(self) -> str | None:
        return self._token_hash

    def deliver(self, item: _Item) -> None:
        """Send ``item`` to the client. Every message this connection sends goes out here, in
        the order delivered: the states, the answers and errors, pongs, hints, chat, and the
        goodbye when its seat is gone (``_write``). Written at once through ``send_now`` when
        nothing waits before it and the transport takes it; else queued for the writer."""
        if self.dropped:
            return
        writer = self._writer
        if (
            self._send_now is None
            or writer is None
            or writer.done()
            or self._writing
            or not self._queue.empty()
        ):
            self._enqueue(item)
            return
        try:
            texts = self._render(item)
        except _Removed:
            self._enqueue(item)  # the writer says why and ends the connection
            return
        for index, text in enumerate(texts):
            if not self._send_now(text):  # over its high-water mark: the writer waits
                for waiting in texts[index:]:
                    self._enqueue(waiting)
                return

    def _enqueue(self, item: _Item) -> None:
        if self.dropped:
            return
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            self.dropped = True
            self._metrics.queue_drops.inc()
            logger.warning(
                "connection too slow; dropped", extra={"room": self._code, "seat": self._seat}
            )
            if self._writer is not None:
                self._writer.cancel()

    async def _reply(self, message: dict[str, Any] | Snapshot) -> None:
        """Queue an answer to this client, waiting while half the queue is full: a client
        that sends faster than it reads slows itself down, and room updates keep their room."""
        while self._queue.qsize() >= self._reply_room:
            self._drained.clear()
            await self._drained.wait()
        self.deliver(message)

    def open(self, first: Snapshot) -> None:
        """Take the seat as of ``first`` and queue it to be sent as soon as ``serve`` runs."""
        self._seat = None if self._token_hash is None else first.seat_of(self._token_hash)
        self.deliver(first)

    async def serve(self) -> None:
        """Run until the client leaves, is closed for a reason, or falls too far behind."""
        self._writer = asyncio.create_task(self._write())
        reader = asyncio.create_task(self._read())
        try:
            await asyncio.wait({reader, self._writer}, return_when=asyncio.FIRST_COMPLETED)
            close_code: int | None = None
            if self.dropped:
                close_code = CLOSE_TRY_AGAIN
            elif self._writer.done():
                if self._writer.exception() is None:
                    close_code = self._writer.result()  # its seat gone, the goodbye sent
            elif not reader.cancelled() and reader.exception() is None:
                close_code = reader.result()
                if close_code is not None:
                    await self._flush()
            if close_code is not None:
                with contextlib.suppress(RuntimeError, OSError):
                    await self._websocket.close(close_code)
        finally:
            for task in (reader, self._writer):
                task.cancel()
            try:
                await asyncio.gather(reader, self._writer, return_exceptions=True)
            finally:
                # The writer's cancellation holds its frame, which holds this connection: a
                # cycle that only the collector's hourly pass would free, with all it holds.
                self._writer = None

    async def _flush(self) -> None:
        """Let the writer send what is queued (such as the reason for a close), briefly."""
        assert self._writer is not None
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
        await asyncio.wait({self._writer}, timeout=_FLUSH_SECONDS)

    async def _write(self) -> int | None:
        """The writer: sends what ``deliver`` queued, in order, each frame once the transport
        takes it. Ends at ``_flush``'s end of the queue (None), or with the close code when the
        seat is gone, once the goodbye that says why is sent."""
        while True:
            item = await self._queue.get()
            self._drained.set()
            if item is None:
                return None
            self._writing = True
            try:
                close_code: int | None = None
                try:
                    texts = self._render(item)
                except _Removed as removed:
                    close_code = removed.close_code
                    texts = [encode(error_message(*removed.error))]
                # Waiting for the next item must not keep this one (a whole room) alive.
                del item
                for text in texts:
                    await self._websocket.send_text(
                        text if isinstance(text, str) else text.decode()
                    )
                if close_code is not None:
                    return close_code
            finally:
                self._writing = False

    def _render(self, item: _Item) -> list[Text]:
        if type(item) is not Snapshot:  # a room's snapshot, at every move, is looked at first
            if isinstance(item, str | bytes):
                return [item]
            assert isinstance(item, dict)
            return [encode(item)]
        if item.version < self._version or (item.version == self._version and not self._resync):
            return []
        self._take_seat(item)
        if self._resync:
            self._resync = False
            self._room_summary = self._log = None
        self._version = item.version
        texts = self._summary(item)
        state = item.state_text(self._seat, self._log)
        if state is not None:
            text, self._log = state
            texts.append(text)
        return texts

    def _take_seat(self, snapshot: Snapshot) -> None:
        """This connection's seat as of ``snapshot``, or ``_Removed`` when it has none."""
        if self._token_hash is not None:
            seat = snapshot.seat_of(self._token_hash)
            if seat is None:
                raise _Removed  # again if the item is rendered again: its version is not taken
            self._seat = seat
        elif not snapshot.room.options.spectators:
            raise _NoSpectators

    def _summary(self, snapshot: Snapshot) -> list[Text]:
        """The room summary, if it changed since the last one sent."""
        if snapshot.room_summary == self._room_summary:
            return []
        self._room_summary = snapshot.room_summary
        return [snapshot.room_text]

    async def _read(self) -> int | None:
        """Handle messages until the client leaves (None) or must be closed (a close code)."""
        while True:
            received = await self._websocket.receive()
            if received["type"] == "websocket.disconnect":
                return None
            text = received.get("text")
            if text is None:
                await self._reply(
                    error_message("bad_message", "Send each message as one JSON text frame.")
                )
                continue
            if len(text.encode()) > self._settings.ws_max_message_bytes:
                await self._reply(error_message("message_too_large", "That message is too large."))
                return CLOSE_TOO_BIG
            if not (self._bucket.take() and self._messages.allow(self._address)):
                self._refused += 1
                if self._refused > self._settings.ws_burst:
                    await self._reply(
                        error_message("flood", "Too many messages; closing the connection.")
                    )
                    return CLOSE_POLICY
                await self._reply(
                    error_message(
                        "rate_limited", "Slow down: that message was dropped.", _ref_of(text)
                    )
                )
                continue
            self._refused = 0
            await self._handle(text)

    async def _handle(self, text: str) -> None:
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            await self._reply(error_message("bad_json", "That message is not valid JSON."))
            return
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            await self._reply(
                error_message("bad_message", 'A message is a JSON object with a "type".')
            )
            return
        if data["type"] == "hello":
            await self._reply(
                error_message("hello_again", "This connection has said hello already.")
            )
            return
        if data["type"] not in CLIENT_TYPES:
            await self._reply(
                error_message("unknown_type", f"Unknown message type; use {sorted(CLIENT_TYPES)}.")
            )
            return
        ref = _ref_of(data)
        try:
            message = client_message.validate_python(data)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"][1:])
            await self._reply(error_message("bad_message", f"{where}: {problem['msg']}.", ref))
            return
        try:
            if isinstance(message, Ping):
                await self._reply(_dump(Pong()))
            elif isinstance(message, Chat):
                await self._chat(message)
            elif isinstance(message, Hint):
                await self._hint()
            elif isinstance(message, Resync):
                await self._resync_now()
            else:
                await self._act(message)
        except RoomError as error:
            after = error.retry_after if isinstance(error, _TooSoon) else None
            await self._reply(error_message(error.code, error.message, ref, retry_after=after))
        except STORE_ERRORS as error:
            # The store is down or slow: this message is lost, not the connection or the game.
            # An act sent again with the same ref is applied once, whether or not this one was.
            logger.warning(
                "store unavailable (%s)",
                type(error).__name__,
                extra={"room": self._code, "seat": self._seat},
            )
            await self._reply(
                error_message("unavailable", "The game could not be reached; send it again.", ref)
            )

    async def _chat_allowed(self) -> None:
        """Chat is bounded per seat and per room, over every tab and process: each line goes
        to every connection in the room, so one busy room must not starve the server."""
        assert self._token_hash is not None
        settings, store = self._settings, self._service.store
        if not await store.hit(
            f"chat:{self._code}:{self._token_hash}",
            limit=settings.chat_per_seat_per_minute,
            window_seconds=60,
        ):
            raise RoomError("chat_too_fast", "You are chatting too fast; wait a moment.")
        if not await store.hit(
            f"chat:{self._code}", limit=settings.chat_per_room_per_minute, window_seconds=60
        ):
            raise RoomError("chat_busy", "This room's chat is too busy; wait a moment.")

    async def _act(self, message: Act) -> None:
        if self._token_hash is None:
            raise RoomError("spectator", "Spectators watch; they cannot act.")
        try:
            acted = await self._service.act(
                self._code,
                token_hash=self._token_hash,
                ref=message.ref,
                version=message.version,
                action=message.engine_action(),
            )
        except RoomError as error:
            await self._reply(error_message(error.code, error.message, message.ref))
            if error.code == "stale_version":
                # The fresh state goes the way every state goes, so that a connection which
                # has it already (the move that won the race reached it first) never gets
                # the same version twice.
                room = await self._service.load(self._code)
                if room is not None:
                    self.deliver(Snapshot(room, self._compression))
            return
        if not acted.repeated:
            self._hub.committed(acted.room)
            return
        # Applied before: the client is told so, and at which version, in a few bytes. Its
        # state it has had, or will have as every connection does: sent again, it cost the
        # whole view and log for each repeat (issue 44).
        version = play.remembered(acted.room, acted.seat, message.ref)
        applied: AppliedMessage = {
            "type": "applied",
            "ref": message.ref,
            "version": acted.room.version if version is None else version,
        }
        await self._reply(dict(applied))

    async def _resync_now(self) -> None:
        """Send the room summary and the whole state of the room as it is now. Asked for
        first: what is sent meanwhile goes whole already. Budgeted per connection, and per
        address with every other whole state (in this process) and every resync (over all
        processes): each costs the whole state and log, many times the request."""
        settings = self._settings
        if not self._resyncs.take():
            seconds = whole_seconds(self._resyncs.seconds_to_next())
            raise _TooSoon(
                "resync_too_often",
                f"At most {settings.resyncs_per_minute} resyncs a minute; "
                f"try again in {seconds} seconds.",
                retry_after=seconds,
            )
        wait = self._whole_states.wait(self._address)
        if wait > 0:
            seconds = whole_seconds(wait)
            raise _TooSoon(
                "resync_too_often",
                f"Too many whole states sent to your address; try again in {seconds} seconds.",
                retry_after=seconds,
            )
        self._whole_states.take(self._address)
        if not await self._service.store.hit(
            f"resync:{self._address}", limit=settings.resyncs_per_address, window_seconds=60
        ):
            raise RoomError(
                "resync_too_often",
                "Too many resyncs from your address; try again within a minute.",
            )
        self._resync = True
        room = await self._service.load(self._code)
        if room is None:
            raise room_not_found()
        await self._reply(Snapshot(room, self._compression))

    async def _hint(self) -> None:
        if self._token_hash is None:
            raise RoomError("spectator", "Spectators watch; they cannot ask for hints.")
        hint = await ask_hint(self._service, code=self._code, token_hash=self._token_hash)
        await self._reply(hint)

    async def _chat(self, message: Chat) -> None:
        if self._token_hash is None:
            raise RoomError("spectator", "Spectators watch; they cannot chat.")
        try:
            text = clean_text(
                message.text, what="A chat message", max_length=self._settings.chat_max_length
            )
        except TextRefused as refused:
            raise RoomError(refused.code, refused.message) from None
        room = await self._service.load(self._code)
        seat = None if room is None else room.seat_of(self._token_hash)
        if room is None or seat is None:
            raise RoomError("not_seated", "Your seat is no longer in this room.")
        await self._chat_allowed()
        player = room.seats[seat]
        assert player is not None
        chat = ChatMessage(seat=seat, name=player.name, text=text, at=time.time())
        await say(self._service.store, self._code, chat.model_dump_json())
        if player.away:
            self._hub.committed(
                await self._service.set_presence(self._code, self._token_hash, connected=True)
            )

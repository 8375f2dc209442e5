"""Sending notifications: a bounded queue per process, drained by one background task.

``notify`` only puts a notice in the queue, so the move path that calls it never waits for a
database or a push service, and a full queue drops the notice (counted, logged) rather than
holding up a game. The task looks up the player's devices, encrypts the notice to each
(``aes128gcm``, RFC 8291) and signs the request with the server's VAPID key (RFC 8292), through
``pywebpush``. A push service's 404 or 410 means the device unsubscribed: its row is dropped.
A 429 or 5xx is tried again, ``push_retries`` times, after a pause that doubles (or the
service's ``Retry-After``, at most a minute), without holding up other deliveries.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.push import subscriptions
from app.push.keys import VapidKeys, keys_from_settings, load_keys
from app.push.notices import Notice, Rendered, render
from app.push.subscriptions import Device
from app.settings import Settings
from app.store.base import STORE_ERRORS

if TYPE_CHECKING:
    import aiohttp

log = logging.getLogger(__name__)


def quiet_socks_warning() -> None:
    """Keep out of the log urllib3's warning that SOCKS proxies need PySocks (the server uses
    none), which ``requests`` (under ``pywebpush``) imports it with. ``requests`` silences it
    itself, but from ``pywebpush``'s import in a thread that filter can be lost: a
    ``warnings.catch_warnings`` block closing on the event loop's thread meanwhile (pydantic and
    FastAPI open them) puts back the filters it began with. Set here, on the event loop's thread
    before the thread starts, the filter is in every such block's beginning."""
    warnings.filterwarnings("ignore", message="SOCKS support in urllib3")


Hit = Callable[..., Awaitable[bool]]
"""A shared counter, as ``RoomStore.hit(key, limit=, window_seconds=)``: True while under limit."""

TTL_SECONDS = 24 * 3600
"""How long a push service keeps a message for a device that is offline."""

ONCE_SECONDS = 7 * 24 * 3600
"""How long a notice's ``once`` key is remembered: longer than the longest time to move, so a
version is told once (a table with no time limit may be reminded after a week)."""
ONCE_KEPT_LOCALLY = 10_000
"""``once`` keys a process without a shared counter remembers, the oldest forgotten first."""

FIRST_RETRY_SECONDS = 1.0
LONGEST_RETRY_SECONDS = 60.0


@dataclass(slots=True)
class PushCounts:
    """What the sender did, for tests and logs."""

    queued: int = 0
    sent: int = 0
    dropped_full: int = 0
    """Notices refused because the queue was full."""
    limited: int = 0
    """Notices not sent: the player had had ``push_notifications_per_minute`` already."""
    gone: int = 0
    """Devices dropped because their push service answered 404 or 410."""
    retried: int = 0
    failed: int = 0
    repeated: int = 0
    """Notices not queued: one with the same ``once`` key was queued already."""
    """Deliveries given up on (retries spent, or an error that retrying would not mend)."""


@dataclass(frozen=True, slots=True)
class _Delivery:
    device: Device
    message: Rendered
    attempt: int = 0


@dataclass(slots=True)
class PushSender:
    """One process's notification queue; ``running_push`` starts and stops its task."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    hit: Hit | None = None
    """The cross-process counter for the per-player limit (the room store's); None counts in
    this process only."""
    counts: PushCounts = field(default_factory=PushCounts)
    _queue: asyncio.Queue[tuple[str, Notice] | _Delivery] = field(init=False)
    _local_hits: dict[str, list[float]] = field(default_factory=dict)
    _local_once: dict[str, None] = field(default_factory=dict)
    _retries: set[asyncio.Task[None]] = field(default_factory=set)
    _http: aiohttp.ClientSession | None = None
    _keys: VapidKeys | None = None
    _keys_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self._queue = asyncio.Queue(self.settings.push_queue_size)
        if self.settings.vapid_private_key or self.settings.vapid_public_key:
            # The operator's pair is checked at start: a wrong one fails loudly, now.
            self._keys = keys_from_settings(self.settings)

    async def keys(self) -> VapidKeys:
        """The server's VAPID pair, read (or made and kept) on first use: a process that never
        sends a notification never touches the table."""
        if self._keys is None:
            async with self._keys_lock:
                if self._keys is None:
                    self._keys = await load_keys(self.settings, self.sessions)
        return self._keys

    async def notify(self, player_id: str, notice: Notice, *, once: str | None = None) -> bool:
        """Queue ``notice`` for every device of ``player_id`` (the public player id); never
        waits for a push service. ``once``: a key no other notice may have had (over every
        process when the counter is shared), so the same news is told once. False when the
        notice was dropped: the queue was full, or ``once`` was used already."""
        if once is not None and not await self._first(once):
            self.counts.repeated += 1
            return False
        try:
            self._queue.put_nowait((player_id, notice))
        except asyncio.QueueFull:
            self.counts.dropped_full += 1
            log.warning("push queue full: a notice was dropped")
            return False
        self.counts.queued += 1
        return True

    async def idle(self) -> None:
        """Wait until everything queued (retries included) has been delivered or given up."""
        while True:
            await self._queue.join()
            if not self._retries:
                return
            await asyncio.gather(*self._retries, return_exceptions=True)

    async def run(self) -> None:
        """Drain the queue until cancelled.

        ``pywebpush`` and ``aiohttp`` (a second or more of imports on a busy machine) are
        loaded here, in a thread: the server answers while they load.
        """
        quiet_socks_warning()
        await asyncio.to_thread(importlib.import_module, "pywebpush")
        import aiohttp

        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
            self._http = http
            while True:
                item = await self._queue.get()
                try:
                    if isinstance(item, _Delivery):
                        await self._deliver(item)
                    else:
                        await self._fan_out(*item)
                except Exception:
                    log.exception("push delivery failed")
                    self.counts.failed += 1
                finally:
                    self._queue.task_done()

    async def _first(self, once: str) -> bool:
        if self.hit is not None:
            try:
                return await self.hit(f"push-once:{once}", limit=1, window_seconds=ONCE_SECONDS)
            except STORE_ERRORS as error:
                # Told twice rather than not at all.
                log.warning("push once-key not checked (%s)", type(error).__name__)
                return True
        if once in self._local_once:
            return False
        if len(self._local_once) >= ONCE_KEPT_LOCALLY:
            del self._local_once[next(iter(self._local_once))]
        self._local_once[once] = None
        return True

    async def _allowed(self, player_id: str) -> bool:
        limit = self.settings.push_notifications_per_minute
        if self.hit is not None:
            return await self.hit(f"push:{player_id}", limit=limit, window_seconds=60)
        now = asyncio.get_running_loop().time()
        recent = [t for t in self._local_hits.get(player_id, []) if now - t < 60]
        if len(recent) >= limit:
            self._local_hits[player_id] = recent
            return False
        self._local_hits[player_id] = [*recent, now]
        return True

    async def _fan_out(self, player_id: str, notice: Notice) -> None:
        async with self.sessions() as session:
            devices = await subscriptions.devices_of(session, player_id=player_id)
        if not devices:
            return
        if not await self._allowed(player_id):
            self.counts.limited += 1
            return
        message = render(notice)
        for device in devices:
            await self._deliver(_Delivery(device, message))

    async def _deliver(self, delivery: _Delivery) -> None:
        import aiohttp
        from pywebpush import WebPushException, webpush_async

        assert self._http is not None
        keys = await self.keys()
        try:
            await webpush_async(
                subscription_info=cast(
                    dict[str, str | bytes | dict[str, str | bytes]], delivery.device.info()
                ),
                data=delivery.message.payload(),
                vapid_private_key=keys.signer(),
                vapid_claims={"sub": self.settings.vapid_subject},
                ttl=TTL_SECONDS,
                headers={"Urgency": "high", "Topic": _topic(delivery.message.tag)},
                aiohttp_session=self._http,
            )
        except WebPushException as error:
            await self._failed(delivery, error)
        except (aiohttp.ClientError, TimeoutError):
            self._retry(delivery, None)
        else:
            self.counts.sent += 1

    async def _failed(self, delivery: _Delivery, error: Any) -> None:
        """``error`` is ``pywebpush.WebPushException``, with the push service's response."""
        response = error.response
        status = getattr(response, "status", None)
        if status in (404, 410):
            self.counts.gone += 1
            async with self.sessions() as session:
                await subscriptions.drop(session, endpoint=delivery.device.endpoint)
            return
        if status == 429 or (isinstance(status, int) and status >= 500):
            retry_after = getattr(response, "headers", {}).get("Retry-After")
            self._retry(delivery, retry_after)
            return
        # The endpoint is not a push service's we can talk to (400, 401, 403, 413): sending again
        # would be answered the same.
        self.counts.failed += 1
        log.warning("push service refused a delivery: %s", status)

    def _retry(self, delivery: _Delivery, retry_after: str | None) -> None:
        if delivery.attempt >= self.settings.push_retries:
            self.counts.failed += 1
            return
        pause = FIRST_RETRY_SECONDS * 2**delivery.attempt
        if retry_after is not None and retry_after.isdigit():
            pause = float(retry_after)
        pause = min(pause, LONGEST_RETRY_SECONDS)
        self.counts.retried += 1
        again = _Delivery(delivery.device, delivery.message, delivery.attempt + 1)
        task = asyncio.create_task(self._requeue(again, pause))
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _requeue(self, delivery: _Delivery, pause: float) -> None:
        await asyncio.sleep(pause)
        try:
            self._queue.put_nowait(delivery)
        except asyncio.QueueFull:
            self.counts.failed += 1


def _topic(tag: str) -> str:
    """A ``Topic`` header (at most 32 base64url characters): a newer message for the same
    table replaces one still waiting at the push service."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in tag)[:32]


@asynccontextmanager
async def running_push(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    *,
    hit: Hit | None = None,
) -> AsyncIterator[PushSender]:
    """A sender whose task runs while the context is open."""
    sender = PushSender(settings=settings, sessions=sessions, hit=hit)
    task = asyncio.create_task(sender.run())
    try:
        yield sender
    finally:
        task.cancel()
        for retry in list(sender._retries):
            retry.cancel()
        with suppress(asyncio.CancelledError):
            await task

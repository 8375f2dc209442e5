"""Each device's subscription: checked on the way in, stored per player, dropped when dead.

A subscription names an endpoint the server will send requests to, so it is judged strictly:
an ``https`` address on a known push service's host (``push_endpoint_hosts``), of bounded
length, and keys of the exact sizes Web Push uses, the public one a real P-256 point — so a
message is never encrypted to garbage, and no client can point the server at an address of
its choosing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import PushSubscription
from app.push.keys import b64url, from_b64url
from app.settings import Settings

MAX_ENDPOINT_LENGTH = 1024
"""Real endpoints (FCM, Mozilla, Apple, Windows) are a few hundred characters."""


class SubscriptionError(ValueError):
    """A subscription refused, with a stable ``code`` and a sentence for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Device:
    """A checked subscription: where to send, and the keys to encrypt to."""

    endpoint: str
    p256dh: str
    """The device's public key, base64url (65 bytes: an uncompressed P-256 point)."""
    auth: str
    """The device's authentication secret, base64url (16 bytes)."""

    def info(self) -> dict[str, str | dict[str, str]]:
        """The subscription as ``pywebpush`` takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _host_allowed(host: str, allowed: list[str]) -> bool:
    for entry in allowed:
        if entry.startswith("."):
            if host.endswith(entry):
                return True
        elif host == entry:
            return True
    return False


def check_endpoint(endpoint: str, settings: Settings) -> str:
    """The endpoint if the server may send to it, else ``SubscriptionError``."""
    if len(endpoint) > MAX_ENDPOINT_LENGTH:
        raise SubscriptionError("bad_endpoint", "The push endpoint is too long.")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as error:
        raise SubscriptionError("bad_endpoint", "The push endpoint is not an address.") from error
    host = (parts.hostname or "").lower()
    if parts.username or parts.password or not host:
        raise SubscriptionError("bad_endpoint", "The push endpoint is not an address.")
    local = settings.push_allow_local_http and parts.scheme == "http" and host == "127.0.0.1"
    if local:
        return endpoint
    if parts.scheme != "https" or port not in (None, 443):
        raise SubscriptionError("bad_endpoint", "The push endpoint must be an https address.")
    if not _host_allowed(host, settings.push_endpoint_hosts):
        raise SubscriptionError("unknown_push_service", "The push endpoint is not a push service.")
    return endpoint


def check_device(endpoint: str, p256dh: str, auth: str, settings: Settings) -> Device:
    """A subscription the server can deliver to, or ``SubscriptionError`` saying why not."""
    check_endpoint(endpoint, settings)
    try:
        point = from_b64url(p256dh)
        secret = from_b64url(auth)
    except ValueError as error:
        raise SubscriptionError("bad_keys", "The subscription's keys are not base64url.") from error
    if len(point) != 65 or point[0] != 4:
        raise SubscriptionError("bad_keys", "The p256dh key must be an uncompressed P-256 point.")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as error:
        raise SubscriptionError("bad_keys", "The p256dh key is not a point on P-256.") from error
    if len(secret) != 16:
        raise SubscriptionError("bad_keys", "The auth secret must be 16 bytes.")
    return Device(endpoint=endpoint, p256dh=b64url(point), auth=b64url(secret))


async def subscribe(session: AsyncSession, *, player_id: str, device: Device, limit: int) -> None:
    """Keep ``device`` for ``player_id`` (replacing the endpoint's earlier row, whoever's it
    was); ``SubscriptionError`` when the player already has ``limit`` other devices.
    Commits. Two requests subscribing one endpoint at once both succeed: the one that loses
    the race on the unique endpoint tries once more, and replaces the other's row."""
    try:
        await _subscribe(session, player_id=player_id, device=device, limit=limit)
    except IntegrityError:
        await session.rollback()
        await _subscribe(session, player_id=player_id, device=device, limit=limit)


async def _subscribe(session: AsyncSession, *, player_id: str, device: Device, limit: int) -> None:
    await session.execute(
        delete(PushSubscription).where(PushSubscription.endpoint == device.endpoint)
    )
    count = await session.scalar(
        select(func.count())
        .select_from(PushSubscription)
        .where(PushSubscription.player_id == player_id)
    )
    if (count or 0) >= limit:
        await session.rollback()
        raise SubscriptionError(
            "too_many_devices",
            f"Notifications are on for {limit} devices already; turn one off first.",
        )
    session.add(
        PushSubscription(
            player_id=player_id,
            endpoint=device.endpoint,
            p256dh=device.p256dh,
            auth=device.auth,
            created_at=datetime.now(UTC),
        )
    )
    await session.commit()


async def unsubscribe(session: AsyncSession, *, player_id: str, endpoint: str) -> bool:
    """Forget the player's device at ``endpoint``; False if it was not theirs. Commits."""
    result = await session.execute(
        delete(PushSubscription).where(
            PushSubscription.player_id == player_id, PushSubscription.endpoint == endpoint
        )
    )
    await session.commit()
    return bool(getattr(result, "rowcount", 0))


async def devices_of(session: AsyncSession, *, player_id: str) -> list[Device]:
    rows = await session.scalars(
        select(PushSubscription)
        .where(PushSubscription.player_id == player_id)
        .order_by(PushSubscription.id)
    )
    return [Device(endpoint=row.endpoint, p256dh=row.p256dh, auth=row.auth) for row in rows]


async def drop(session: AsyncSession, *, endpoint: str) -> None:
    """Forget a device its push service says is gone (404 or 410). Commits."""
    await session.execute(delete(PushSubscription).where(PushSubscription.endpoint == endpoint))
    await session.commit()

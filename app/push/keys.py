"""The server's VAPID identity: one P-256 key pair, made once and kept.

Browsers tie a subscription to the public key it was made with, so the pair must outlive
restarts and be the same in every process: it comes from the settings when the operator gives
one (``docs/deploy.md``), else from the ``push_keys`` table, where the first process to start
stores a new pair and every other process reads that one (insert-or-ignore on id 1).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import UTC, datetime

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.conflicts import insert_on_conflict
from app.db.models import PushKey
from app.settings import Settings


def b64url(data: bytes) -> str:
    """Base64url without padding, as Web Push writes keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_b64url(text: str) -> bytes:
    """The bytes of base64url text, padded or not; ``ValueError`` when it is not base64url."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError("not base64url") from error


@dataclass(frozen=True, slots=True)
class VapidKeys:
    """The pair, in the forms Web Push uses."""

    private_key: str
    """The raw 32-byte private scalar, base64url."""
    public_key: str
    """The 65-byte uncompressed public point, base64url: a browser's ``applicationServerKey``."""

    def signer(self) -> Vapid02:
        return Vapid02.from_raw(self.private_key.encode())


def _public_of(private: ec.EllipticCurvePrivateKey) -> str:
    return b64url(
        private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


def make_keys() -> VapidKeys:
    """A new pair."""
    private = ec.generate_private_key(ec.SECP256R1())
    raw = private.private_numbers().private_value.to_bytes(32, "big")
    return VapidKeys(private_key=b64url(raw), public_key=_public_of(private))


def keys_from(private_key: str, public_key: str | None = None) -> VapidKeys:
    """The pair of a given private key; ``ValueError`` if it is not a P-256 key or the public
    key given with it is not its own."""
    raw = from_b64url(private_key.strip())
    if len(raw) != 32:
        raise ValueError("the VAPID private key must be 32 bytes, base64url")
    private = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    derived = _public_of(private)
    if public_key is not None and public_key.strip().rstrip("=") != derived:
        raise ValueError("the VAPID public key does not match the private key")
    return VapidKeys(private_key=b64url(raw), public_key=derived)


def keys_from_settings(settings: Settings) -> VapidKeys:
    """The operator's pair (``CASH_STASH_VAPID_PRIVATE_KEY``, and its public key if given)."""
    if not settings.vapid_private_key:
        raise ValueError("CASH_STASH_VAPID_PUBLIC_KEY is set without its private key")
    return keys_from(settings.vapid_private_key, settings.vapid_public_key)


async def load_keys(settings: Settings, sessions: async_sessionmaker[AsyncSession]) -> VapidKeys:
    """The settings' pair if given, else the kept one (made and kept by the first caller)."""
    if settings.vapid_private_key or settings.vapid_public_key:
        return keys_from_settings(settings)
    async with sessions() as session:
        kept = await session.scalar(select(PushKey).where(PushKey.id == 1))
        if kept is None:
            fresh = make_keys()
            insert = insert_on_conflict(session, PushKey)
            await session.execute(
                insert.values(
                    id=1,
                    private_key=fresh.private_key,
                    public_key=fresh.public_key,
                    created_at=datetime.now(UTC),
                ).on_conflict_do_nothing(index_elements=[PushKey.id])
            )
            await session.commit()
            kept = await session.scalar(select(PushKey).where(PushKey.id == 1))
        assert kept is not None
        return keys_from(kept.private_key, kept.public_key)

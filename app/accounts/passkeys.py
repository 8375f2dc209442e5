"""WebAuthn ceremonies with py_webauthn: the options a browser is given, and the checks of what
its authenticator answers.

A ceremony's challenge is kept in the live store under a random id, for one use, so that any
process may finish what another began; it expires after ``CEREMONY_SECONDS``. The relying
party is the site the request was sent to (its host, or ``CASH_STASH_PASSKEY_RP_ID``), and the
origins accepted are that site's own and those of ``CASH_STASH_ALLOWED_ORIGINS`` (never ``*``).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any, Literal

import webauthn
from pydantic import ValidationError
from starlette.requests import HTTPConnection
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.accounts.errors import AccountError
from app.accounts.store import AccountStore
from app.settings import Settings

CEREMONY_SECONDS = 300
"""How long a browser has to answer a ceremony's options."""
TIMEOUT_MS = CEREMONY_SECONDS * 1000 - 30_000
"""What the browser is told: a little less, so its answer arrives while the challenge is kept."""
RP_NAME = "Cash Stash"
KNOWN_TRANSPORTS = frozenset(transport.value for transport in AuthenticatorTransport)

CeremonyKind = Literal["register", "add_passkey", "sign_in"]


@dataclass(frozen=True, slots=True)
class Ceremony:
    """What the server remembers between a ceremony's options and the browser's answer."""

    kind: CeremonyKind
    challenge: str
    """base64url, as sent."""
    account_id: str
    """The account being made, or signed in to, or given a passkey; empty for a sign-in."""
    name: str = ""
    """A new account's name."""
    guest_player_id: str = ""
    """The public id of the guest a new account takes over (never the guest id itself)."""


@dataclass(frozen=True, slots=True)
class NewPasskey:
    """A credential an authenticator made, checked."""

    credential_id: str
    """base64url."""
    public_key: bytes
    sign_count: int
    transports: list[str]


def ceremony_expired() -> AccountError:
    return AccountError(
        "ceremony_expired",
        "That passkey request has expired or was already used; start again.",
        status=400,
    )


def passkey_refused() -> AccountError:
    """The one answer to every failed sign-in: it never says whether the passkey, or an
    account, exists."""
    return AccountError("passkey_refused", "That passkey could not sign you in.", status=401)


def relying_party_id(connection: HTTPConnection, settings: Settings) -> str:
    return settings.passkey_rp_id or (connection.url.hostname or "localhost")


def expected_origins(connection: HTTPConnection, settings: Settings) -> list[str]:
    own = f"{connection.url.scheme}://{connection.url.netloc}"
    listed = [origin for origin in settings.allowed_origins if origin != "*"]
    return [own, *listed]


async def begin(store: AccountStore, ceremony: Ceremony) -> str:
    """Keep the ceremony for its answer; its id."""
    ceremony_id = secrets.token_urlsafe(16)
    await store.keep_once(
        f"ceremony:{ceremony_id}", json.dumps(asdict(ceremony)), seconds=CEREMONY_SECONDS
    )
    return ceremony_id


async def finish(store: AccountStore, ceremony_id: str, *, kind: CeremonyKind) -> Ceremony:
    """The ceremony ``ceremony_id`` names, taken (it cannot be answered twice); refused when
    it expired, was used, or is of another kind."""
    kept = await store.take_once(f"ceremony:{ceremony_id}")
    if kept is None:
        raise ceremony_expired()
    ceremony = Ceremony(**json.loads(kept))
    if ceremony.kind != kind:
        raise ceremony_expired()
    return ceremony


def registration_options(
    connection: HTTPConnection,
    settings: Settings,
    *,
    account_id: str,
    name: str,
    existing: list[str],
) -> tuple[str, dict[str, Any]]:
    """A new discoverable credential's options for ``account_id`` (its user handle), leaving
    out the authenticators that hold one of ``existing`` already; and their challenge."""
    options = webauthn.generate_registration_options(
        rp_id=relying_party_id(connection, settings),
        rp_name=RP_NAME,
        user_id=account_id.encode(),
        user_name=name,
        user_display_name=name,
        timeout=TIMEOUT_MS,
        attestation=AttestationConveyancePreference.NONE,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(credential_id))
            for credential_id in existing
        ],
    )
    public: dict[str, Any] = json.loads(webauthn.options_to_json(options))
    return bytes_to_base64url(options.challenge), public


def sign_in_options(connection: HTTPConnection, settings: Settings) -> tuple[str, dict[str, Any]]:
    """Options that let the browser offer any passkey it holds for this site (none named: the
    server does not yet know who is signing in); and their challenge."""
    options = webauthn.generate_authentication_options(
        rp_id=relying_party_id(connection, settings),
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    public: dict[str, Any] = json.loads(webauthn.options_to_json(options))
    return bytes_to_base64url(options.challenge), public


def checked_registration(
    connection: HTTPConnection,
    settings: Settings,
    *,
    ceremony: Ceremony,
    credential: dict[str, Any],
) -> NewPasskey:
    """The credential an authenticator made for ``ceremony``, or 400 ``passkey_not_made``."""
    try:
        verified = webauthn.verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(ceremony.challenge),
            expected_rp_id=relying_party_id(connection, settings),
            expected_origin=expected_origins(connection, settings),
        )
    except (WebAuthnException, ValidationError, ValueError, KeyError, TypeError):
        raise AccountError(
            "passkey_not_made",
            "Your device's answer could not be used to make a passkey; try again.",
            status=400,
        ) from None
    response = credential.get("response")
    transports = response.get("transports") if isinstance(response, dict) else None
    return NewPasskey(
        credential_id=bytes_to_base64url(verified.credential_id),
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=[
            transport
            for transport in (transports if isinstance(transports, list) else [])
            if transport in KNOWN_TRANSPORTS
        ],
    )


def credential_id_of(credential: dict[str, Any]) -> str:
    """The id an authenticator's answer names (base64url), or ``passkey_refused``."""
    raw = credential.get("rawId", credential.get("id"))
    if not isinstance(raw, str) or not 0 < len(raw) <= 1400:
        raise passkey_refused()
    try:
        return bytes_to_base64url(base64url_to_bytes(raw))
    except (ValueError, TypeError):
        raise passkey_refused() from None


def checked_sign_in(
    connection: HTTPConnection,
    settings: Settings,
    *,
    ceremony: Ceremony,
    credential: dict[str, Any],
    account_id: str,
    public_key: bytes,
    sign_count: int,
) -> int:
    """Check a sign-in answer against the stored passkey; the authenticator's new signature
    count, or ``passkey_refused`` (a bad signature, another site, an old challenge, a user
    handle that is not the passkey's account, a counter that went back)."""
    try:
        verified = webauthn.verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(ceremony.challenge),
            expected_rp_id=relying_party_id(connection, settings),
            expected_origin=expected_origins(connection, settings),
            credential_public_key=public_key,
            credential_current_sign_count=sign_count,
        )
    except (WebAuthnException, ValidationError, ValueError, KeyError, TypeError):
        raise passkey_refused() from None
    response = credential.get("response")
    handle = response.get("userHandle") if isinstance(response, dict) else None
    if handle:
        try:
            owner = base64url_to_bytes(handle)
        except (ValueError, TypeError):
            raise passkey_refused() from None
        if owner != account_id.encode():
            raise passkey_refused()
    return int(verified.new_sign_count)

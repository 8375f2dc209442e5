"""``/api/accounts``: make an account with a passkey, sign in and out, passkeys, device links,
the signed-in player's own profile.

Playing needs none of this. Every answer about an account goes to its owner only, and no
refusal tells a stranger whether some account exists (``docs/security.md``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from app.accounts import linking, passkeys
from app.accounts import repository as accounts
from app.accounts.errors import AccountError
from app.accounts.limits import HOUR, MINUTE, within_limit
from app.accounts.passkeys import Ceremony, NewPasskey
from app.accounts.repository import account_name
from app.accounts.sessions import (
    MaybeSignedIn,
    SignedIn,
    SignedInDep,
    account_store,
    forget_cookie,
    require_same_site,
    start_session,
)
from app.api.deps import RuntimeDep, client_address
from app.api.errors import Refusal
from app.api.schemas import STRICT, DisplayName, GuestId
from app.db.models import Account, Passkey
from app.db.repository import get_player, public_player_id
from app.db.session import SessionDep
from app.friends import presence
from app.friends import service as friends

router = APIRouter(
    prefix="/api/accounts",
    tags=["accounts"],
    dependencies=[Depends(require_same_site)],
    responses={code: {"model": Refusal} for code in (400, 401, 403, 404, 409, 429)},
)

PASSKEY_LABEL_LENGTH = 40
CeremonyId = Annotated[str, Field(min_length=1, max_length=64)]
PasskeyLabel = Annotated[str, Field(min_length=1, max_length=PASSKEY_LABEL_LENGTH)]


class RegisterStart(BaseModel):
    """A guest asks to make an account: the name it will have, and the guest it takes over."""

    model_config = STRICT
    name: DisplayName
    guest_id: GuestId
    """The guest id this browser plays under: its games and rating become the account's."""


class CeremonyOptions(BaseModel):
    """What the browser passes to ``navigator.credentials`` (``options``, WebAuthn's JSON
    form), and the id to send back with its answer."""

    ceremony: str
    options: dict[str, Any]


class CeremonyAnswer(BaseModel):
    """The authenticator's answer (``PublicKeyCredential`` in WebAuthn's JSON form)."""

    model_config = STRICT
    ceremony: CeremonyId
    credential: dict[str, Any]


class SignInAnswer(CeremonyAnswer):
    guest_id: GuestId | None = None
    """The guest id this browser plays under: from now on it plays for the account, and what
    it played so far becomes the account's (once)."""


class PasskeyAnswer(CeremonyAnswer):
    label: PasskeyLabel | None = None
    """What to call the new passkey in the owner's list."""


class LinkAnswer(BaseModel):
    model_config = STRICT
    code: Annotated[str, Field(min_length=1, max_length=20)]
    guest_id: GuestId | None = None
    """As a sign-in's: the guest this browser plays under joins the account."""


class Rename(BaseModel):
    model_config = STRICT
    name: DisplayName


class PasskeyPublic(BaseModel):
    """One of the owner's passkeys (never its key)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    label: str
    created_at: datetime
    last_used_at: datetime | None


class AccountMe(BaseModel):
    """The signed-in player's own account: sent to its owner only."""

    name: str
    player_id: str
    """The public player id: the profile's games are ``GET /api/players/{player_id}/games``."""
    rating: float | None
    """None until a finished game."""
    games: int
    passkeys: list[PasskeyPublic]
    created_at: datetime


class LinkCode(BaseModel):
    code: str
    """To type on the new device, at ``/link``."""
    link: str
    """The same as an address (the code after ``#``, which no server or log sees)."""
    qr_svg: str
    """``link`` as a QR code, an SVG element."""
    expires_in: int
    """Seconds."""


class SignedOut(BaseModel):
    sessions: int
    """How many sessions ended."""


async def _me(session: SessionDep, account: Account) -> AccountMe:
    player = await get_player(session, player_id=account.player_id)
    keys = await accounts.account_passkeys(session, account_id=account.id)
    return AccountMe(
        name=account.name,
        player_id=account.player_id,
        rating=None if player is None else player.rating,
        games=0 if player is None else player.games,
        passkeys=[PasskeyPublic.model_validate(key) for key in keys],
        created_at=account.created_at,
    )


async def _account(request: Request, session: SessionDep, signed: SignedIn) -> Account:
    """The signed-in account; a session whose account is gone is ended (401)."""
    account = await accounts.get_account(session, account_id=signed.account_id)
    if account is None:
        await account_store(request).close_session(signed.session)
        raise AccountError("not_signed_in", "Sign in to your account first.", status=401)
    return account


async def _join(session: SessionDep, account: Account, guest_id: UUID | None) -> None:
    """The device's guest plays for the account from now on, its history the account's."""
    if guest_id is not None:
        await accounts.join_guest(
            session, account=account, player_id=public_player_id(str(guest_id))
        )


async def _begin(request: Request, ceremony: Ceremony, options: dict[str, Any]) -> CeremonyOptions:
    """Keep ``ceremony`` for its answer and give the browser its options with the id to send
    back."""
    return CeremonyOptions(
        ceremony=await passkeys.begin(account_store(request), ceremony), options=options
    )


async def _sign_in_here(
    request: Request,
    response: Response,
    session: SessionDep,
    signed: SignedIn | None,
    account: Account,
) -> AccountMe:
    """Commit what signing in changed, end the session this device had (if any) and start one
    for ``account``."""
    await session.commit()
    if signed is not None:
        await account_store(request).close_session(signed.session)
    await start_session(request, response, account_id=account.id)
    return await _me(session, account)


async def _count_ceremony(request: Request, runtime: RuntimeDep) -> None:
    await within_limit(
        request,
        f"ceremony:{client_address(request)}",
        limit=runtime.settings.ceremonies_per_address,
        window=MINUTE,
        code="too_many_passkey_requests",
        message="Too many passkey requests from here; wait a minute and try again.",
    )


async def _count_change(request: Request, runtime: RuntimeDep, account_id: str) -> None:
    await within_limit(
        request,
        f"change:{account_id}",
        limit=runtime.settings.account_changes_per_account,
        window=HOUR,
        code="too_many_account_changes",
        message="Too many changes to this account in the last hour; try again later.",
    )


def _passkey_row(account_id: str, made: NewPasskey, label: str | None) -> Passkey:
    now = datetime.now(UTC)
    return Passkey(
        id=made.credential_id,
        account_id=account_id,
        public_key=made.public_key,
        sign_count=made.sign_count,
        transports=made.transports,
        label=label or f"Passkey made {now:%d %b %Y}",
        created_at=now,
    )


@router.post("/register/options")
async def register_options(
    body: RegisterStart, request: Request, session: SessionDep, runtime: RuntimeDep
) -> CeremonyOptions:
    """Begin making an account: refused at once when the name is taken or the guest has an
    account already (both are checked again at the end)."""
    await _count_ceremony(request, runtime)
    _, key = account_name(body.name)
    guest_player_id = public_player_id(str(body.guest_id))
    await accounts.check_new_account(session, name_key=key, player_id=guest_player_id)
    account_id = accounts.new_account_id()
    challenge, options = passkeys.registration_options(
        request, runtime.settings, account_id=account_id, name=body.name, existing=[]
    )
    ceremony = Ceremony(
        kind="register",
        challenge=challenge,
        account_id=account_id,
        name=body.name,
        guest_player_id=guest_player_id,
    )
    return await _begin(request, ceremony, options)


@router.post("/register", status_code=status.HTTP_201_CREATED)
async def register(
    body: CeremonyAnswer,
    request: Request,
    response: Response,
    session: SessionDep,
    runtime: RuntimeDep,
    signed: MaybeSignedIn,
) -> AccountMe:
    """Make the account with the passkey the browser made, and sign this device in to it."""
    await within_limit(
        request,
        f"register:{client_address(request)}",
        limit=runtime.settings.registrations_per_address,
        window=HOUR,
        code="too_many_accounts",
        message="Too many accounts were made from here in the last hour; try again later.",
    )
    ceremony = await passkeys.finish(account_store(request), body.ceremony, kind="register")
    made = passkeys.checked_registration(
        request, runtime.settings, ceremony=ceremony, credential=body.credential
    )
    account = await accounts.create_account(
        session,
        name=ceremony.name,
        player_id=ceremony.guest_player_id,
        account_id=ceremony.account_id,
    )
    await accounts.add_passkey(session, passkey=_passkey_row(account.id, made, None))
    return await _sign_in_here(request, response, session, signed, account)


@router.post("/sign-in/options")
async def sign_in_options(request: Request, runtime: RuntimeDep) -> CeremonyOptions:
    """Begin signing in: the browser offers the passkeys it holds for this site."""
    await _count_ceremony(request, runtime)
    challenge, options = passkeys.sign_in_options(request, runtime.settings)
    ceremony = Ceremony(kind="sign_in", challenge=challenge, account_id="")
    return await _begin(request, ceremony, options)


@router.post("/sign-in")
async def sign_in(
    body: SignInAnswer,
    request: Request,
    response: Response,
    session: SessionDep,
    runtime: RuntimeDep,
    signed: MaybeSignedIn,
) -> AccountMe:
    """Sign this device in with a passkey. Every failure is ``401 passkey_refused``, the same
    for a passkey no account has as for a bad signature. The device's guest joins the
    account."""
    settings = runtime.settings
    await within_limit(
        request,
        f"sign-in:{client_address(request)}",
        limit=settings.sign_ins_per_address,
        window=MINUTE,
        code="too_many_sign_ins",
        message="Too many sign-in attempts from here; wait a minute and try again.",
    )
    ceremony = await passkeys.finish(account_store(request), body.ceremony, kind="sign_in")
    credential_id = passkeys.credential_id_of(body.credential)
    passkey = await session.get(Passkey, credential_id)
    if passkey is None:
        raise passkeys.passkey_refused()
    await within_limit(
        request,
        f"sign-in-account:{passkey.account_id}",
        limit=settings.sign_ins_per_account,
        window=HOUR,
        code="too_many_sign_ins",
        message="Too many sign-in attempts from here; wait a minute and try again.",
    )
    passkey.sign_count = passkeys.checked_sign_in(
        request,
        settings,
        ceremony=ceremony,
        credential=body.credential,
        account_id=passkey.account_id,
        public_key=passkey.public_key,
        sign_count=passkey.sign_count,
    )
    passkey.last_used_at = datetime.now(UTC)
    account = await accounts.get_account(session, account_id=passkey.account_id)
    if account is None:
        raise passkeys.passkey_refused()
    await _join(session, account, body.guest_id)
    return await _sign_in_here(request, response, session, signed, account)


@router.get("/me")
async def me(request: Request, session: SessionDep, signed: SignedInDep) -> AccountMe:
    """The signed-in player's account (``401 not_signed_in`` without a session)."""
    return await _me(session, await _account(request, session, signed))


@router.patch("/me")
async def rename(
    body: Rename, request: Request, session: SessionDep, runtime: RuntimeDep, signed: SignedInDep
) -> AccountMe:
    """Change the account's name (``409 name_taken`` when another account's looks like it)."""
    account = await _account(request, session, signed)
    await _count_change(request, runtime, account.id)
    await accounts.rename_account(session, account=account, name=body.name)
    await session.commit()
    # Every panel that shows the name reads it anew.
    linked = await friends.linked(session, me=account.id)
    await presence.panel_changed(account_store(request), account.id, *linked)
    return await _me(session, account)


@router.post("/me/passkeys/options")
async def passkey_options(
    request: Request, session: SessionDep, runtime: RuntimeDep, signed: SignedInDep
) -> CeremonyOptions:
    """Begin adding a passkey (on this device, or a security key) to the account."""
    await _count_ceremony(request, runtime)
    account = await _account(request, session, signed)
    existing = [key.id for key in await accounts.account_passkeys(session, account_id=account.id)]
    challenge, options = passkeys.registration_options(
        request, runtime.settings, account_id=account.id, name=account.name, existing=existing
    )
    ceremony = Ceremony(kind="add_passkey", challenge=challenge, account_id=account.id)
    return await _begin(request, ceremony, options)


@router.post("/me/passkeys", status_code=status.HTTP_201_CREATED)
async def add_passkey(
    body: PasskeyAnswer,
    request: Request,
    session: SessionDep,
    runtime: RuntimeDep,
    signed: SignedInDep,
) -> PasskeyPublic:
    """Keep the passkey the browser made for the account."""
    account = await _account(request, session, signed)
    await _count_change(request, runtime, account.id)
    ceremony = await passkeys.finish(account_store(request), body.ceremony, kind="add_passkey")
    if ceremony.account_id != account.id:
        raise passkeys.ceremony_expired()
    made = passkeys.checked_registration(
        request, runtime.settings, ceremony=ceremony, credential=body.credential
    )
    passkey = _passkey_row(account.id, made, body.label)
    await accounts.add_passkey(session, passkey=passkey)
    await session.commit()
    return PasskeyPublic.model_validate(passkey)


@router.delete("/me/passkeys/{passkey_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_passkey(
    passkey_id: Annotated[str, Path(max_length=1400)],
    request: Request,
    session: SessionDep,
    runtime: RuntimeDep,
    signed: SignedInDep,
) -> None:
    """Remove one of the account's passkeys; never the last (it is the only way back in once
    this device's session ends: ``409 last_passkey``)."""
    account = await _account(request, session, signed)
    await _count_change(request, runtime, account.id)
    await accounts.remove_passkey(session, account_id=account.id, passkey_id=passkey_id)
    await session.commit()


@router.post("/me/link-code", status_code=status.HTTP_201_CREATED)
async def link_code(
    request: Request, session: SessionDep, runtime: RuntimeDep, signed: SignedInDep
) -> LinkCode:
    """A one-time code that signs another device in to this account (within 5 minutes)."""
    account = await _account(request, session, signed)
    await within_limit(
        request,
        f"link-code:{account.id}",
        limit=runtime.settings.link_codes_per_account,
        window=HOUR,
        code="too_many_link_codes",
        message="Too many device codes were made for this account in the last hour.",
    )
    code = await linking.offer(account_store(request), account_id=account.id)
    link = f"{request.url.scheme}://{request.url.netloc}/link#{code}"
    return LinkCode(
        code=code, link=link, qr_svg=linking.qr_svg(link), expires_in=linking.LINK_SECONDS
    )


@router.post("/link")
async def link_device(
    body: LinkAnswer,
    request: Request,
    response: Response,
    session: SessionDep,
    runtime: RuntimeDep,
    signed: MaybeSignedIn,
) -> AccountMe:
    """Sign this device in with a code a signed-in device showed (``400 link_code_refused``
    for a wrong, used or expired code). The device's guest joins the account."""
    await within_limit(
        request,
        f"link:{client_address(request)}",
        limit=runtime.settings.link_lookups_per_address,
        window=MINUTE,
        code="too_many_link_attempts",
        message="Too many codes tried from here; wait a minute and try again.",
    )
    account_id = await linking.redeem(account_store(request), body.code)
    account = (
        None if account_id is None else await accounts.get_account(session, account_id=account_id)
    )
    if account is None:
        raise AccountError(
            "link_code_refused",
            "That code is wrong, was used already or has expired; make a new one.",
            status=400,
        )
    await _join(session, account, body.guest_id)
    return await _sign_in_here(request, response, session, signed, account)


@router.post("/sign-out", status_code=status.HTTP_204_NO_CONTENT)
async def sign_out(request: Request, response: Response, signed: MaybeSignedIn) -> None:
    """End this device's session (and forget its cookie)."""
    if signed is not None:
        await account_store(request).close_session(signed.session)
    forget_cookie(request, response)


@router.post("/sign-out-everywhere")
async def sign_out_everywhere(
    request: Request, response: Response, signed: SignedInDep
) -> SignedOut:
    """End every session of the account, on every device, this one included."""
    ended = await account_store(request).close_sessions(signed.account_id)
    forget_cookie(request, response)
    return SignedOut(sessions=ended)

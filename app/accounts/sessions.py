"""Who is signed in: the session cookie, checked against the live store.

The cookie holds a random token (HttpOnly, SameSite=Lax, Secure when the request came over
https); the store keeps the token's digest with its account. A call that changes something
on the cookie's authority must come from one of the site's own pages: its ``Origin`` must be
the site's (or one of ``CASH_STASH_ALLOWED_ORIGINS``, ``*`` never counting), and a call
without one is refused, so a page elsewhere cannot act for a signed-in visitor. WebSocket
handshakes are held to the same rule. Seat tokens are not touched by any of this.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Response, WebSocketException, status
from starlette.requests import HTTPConnection

from app.accounts.errors import AccountError, not_signed_in
from app.accounts.store import AccountStore
from app.settings import Settings

SESSION_COOKIE = "cash_stash_session"
TOKEN_BYTES = 32
MAX_TOKEN_LENGTH = 100
"""A cookie longer than any token this server makes is not looked up."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The account a request's session signs in."""

    account_id: str
    session: str
    """The session's digest: what signing out on this device ends."""


def session_digest(token: str) -> str:
    """What the store keeps a session under: the token itself is never stored."""
    return hashlib.sha256(f"cash-stash session {token}".encode()).hexdigest()


def account_store(connection: HTTPConnection) -> AccountStore:
    store: AccountStore = connection.app.state.accounts
    return store


def _settings(connection: HTTPConnection) -> Settings:
    settings: Settings = connection.app.state.runtime.settings
    return settings


def same_site_origin(connection: HTTPConnection) -> bool:
    """Whether the request comes from one of the site's own pages: its ``Origin`` is the host
    it was sent to, or an origin listed in ``CASH_STASH_ALLOWED_ORIGINS`` (not ``*``)."""
    origin = connection.headers.get("origin")
    if origin is None or origin == "null":
        return False
    origin = origin.rstrip("/")
    if origin in _settings(connection).allowed_origins:
        return True
    host = connection.headers.get("host")
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


def _changes_something(connection: HTTPConnection) -> bool:
    if connection.scope["type"] == "websocket":
        return True
    return str(connection.scope.get("method", "GET")) not in SAFE_METHODS


async def signed_in(request: HTTPConnection) -> SignedIn | None:
    """The request's session, or None (no cookie, or a session that ended or never was).

    A cookie on a call that changes something, from a page that is not the site's own, is
    refused (403 ``cross_site_request``; a WebSocket handshake is closed with 1008) rather
    than ignored: it is someone else's page trying to act for this visitor."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    if _changes_something(request) and not same_site_origin(request):
        if request.scope["type"] == "websocket":
            raise WebSocketException(status.WS_1008_POLICY_VIOLATION, "cross_site_request")
        raise _cross_site()
    digest = session_digest(token)
    account_id = await account_store(request).session_account(digest)
    if account_id is None:
        return None
    return SignedIn(account_id=account_id, session=digest)


async def require_same_site(request: HTTPConnection) -> None:
    """Refuse a call that changes something from a page that is not the site's own, signed in
    or not (403 ``cross_site_request``): no other site may sign a visitor in to an account of
    its choosing, or make one for them."""
    if _changes_something(request) and not same_site_origin(request):
        raise _cross_site()


def _cross_site() -> AccountError:
    return AccountError(
        "cross_site_request",
        "This request did not come from this site's own page, so it is refused.",
        status=403,
    )


MaybeSignedIn = Annotated[SignedIn | None, Depends(signed_in)]


async def require_signed_in(signed: MaybeSignedIn) -> SignedIn:
    """``signed_in``, or 401 ``not_signed_in``."""
    if signed is None:
        raise not_signed_in()
    return signed


SignedInDep = Annotated[SignedIn, Depends(require_signed_in)]


async def open_session(store: AccountStore, *, account_id: str, seconds: int) -> str:
    """A new session for ``account_id``: its token, which only the cookie will hold."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    await store.open_session(session_digest(token), account_id, seconds=seconds)
    return token


async def start_session(
    connection: HTTPConnection, response: Response, *, account_id: str
) -> SignedIn:
    """Open a session for ``account_id`` and set its cookie on ``response``."""
    seconds = _settings(connection).session_days * 86400
    token = await open_session(account_store(connection), account_id=account_id, seconds=seconds)
    digest = session_digest(token)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=seconds,
        path="/",
        httponly=True,
        samesite="lax",
        secure=connection.url.scheme == "https",
    )
    return SignedIn(account_id=account_id, session=digest)


def forget_cookie(connection: HTTPConnection, response: Response) -> None:
    """Tell the browser to drop the session cookie."""
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=connection.url.scheme == "https",
    )

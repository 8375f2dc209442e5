"""Codes that link a new device to an account: made on a signed-in device, typed (or scanned
as a QR code) on the new one, good for one sign-in within ``LINK_SECONDS``.

A code is 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L): 40 bits, tried at
most ``CASH_STASH_LINK_LOOKUPS_PER_ADDRESS`` times a minute from one address, for 5 minutes.
Only its digest is kept, in the live store.
"""

from __future__ import annotations

import hashlib
import io
import secrets

import segno

from app.accounts.store import AccountStore

LINK_SECONDS = 300
"""How long a code may be used."""
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_code() -> str:
    """A code as it is shown: two groups of four, ``ABCD-EFGH``."""
    letters = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{letters[:4]}-{letters[4:]}"


def normalized_code(typed: str) -> str | None:
    """The code as typed, without spaces or dashes, in capitals; None when it cannot be one."""
    letters = "".join(char for char in typed.upper() if char not in " -")
    if len(letters) != CODE_LENGTH or any(char not in ALPHABET for char in letters):
        return None
    return letters


def _key(letters: str) -> str:
    return "link:" + hashlib.sha256(f"cash-stash link {letters}".encode()).hexdigest()


async def offer(store: AccountStore, *, account_id: str) -> str:
    """A new code that signs a device in to ``account_id`` once."""
    code = new_code()
    letters = normalized_code(code)
    assert letters is not None
    await store.keep_once(_key(letters), account_id, seconds=LINK_SECONDS)
    return code


async def redeem(store: AccountStore, typed: str) -> str | None:
    """The account a typed code links to, once; None for a wrong, used or expired code."""
    letters = normalized_code(typed)
    if letters is None:
        return None
    return await store.take_once(_key(letters))


def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG element to put in a page."""
    out = io.BytesIO()
    segno.make(text, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, nl=False, scale=4, border=2
    )
    return out.getvalue().decode()

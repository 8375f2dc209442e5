"""Room codes and seat tokens: unguessable, and tokens are kept only as hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base32: no I, L, O or U, so a code read aloud or copied by hand survives."""
CODE_LENGTH = 8
"""40 random bits: guessing a live room takes about 10^12 tries, and joins are rate-limited."""
TOKEN_BYTES = 16
"""128 random bits per seat token."""

_CROCKFORD_ALIASES = str.maketrans({"I": "1", "L": "1", "O": "0"})


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_room_code(text: str) -> str | None:
    """The canonical form of a code a person typed, or None if it cannot be one."""
    code = text.strip().upper().replace("-", "").translate(_CROCKFORD_ALIASES)
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code


def new_seat_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """Tokens carry 128 random bits, so a plain SHA-256 is enough: nothing to brute-force."""
    return hashlib.sha256(token.encode()).hexdigest()


def hashes_match(presented: str, stored: str | None) -> bool:
    """Constant-time comparison of a presented token's hash with a stored one."""
    if stored is None:
        return False
    return hmac.compare_digest(presented, stored)

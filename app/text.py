"""What people type that others will read: display names, room names and chat lines.

One rule for every such text, so that a name and a chat line are refused for the same reasons
and in the same words: no control characters (NUL, BEL, escape sequences, line breaks in a
name), no invisible bidirectional controls that make text read backwards (U+202E and its kin),
and something visible left once the spaces are trimmed.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks, embeddings, overrides and isolates (Unicode's Bidi_Control property)."""


class TextRefused(ValueError):
    """A typed text that cannot be shown to others; ``code`` is stable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def clean_text(text: str, *, what: str, max_length: int, multiline: bool = False) -> str:
    """``text`` without its outer spaces, or :class:`TextRefused` saying what is wrong with it.

    ``what`` names the text in the message ("A name", "A chat message"); ``multiline`` lets
    line breaks and tabs through (nothing this game takes allows them yet).
    """
    allowed = "\n\t" if multiline else ""
    for char in text:
        if char in BIDI_CONTROLS:
            raise TextRefused(
                "bad_text", f"{what} cannot hold invisible characters that change its direction."
            )
        if char not in allowed and unicodedata.category(char) in ("Cc", "Cs"):
            raise TextRefused("bad_text", f"{what} cannot hold control characters.")
    stripped = text.strip()
    if not stripped:
        raise TextRefused("blank_text", f"{what} needs some visible text, not only spaces.")
    if len(stripped) > max_length:
        raise TextRefused("text_too_long", f"{what} has at most {max_length} characters.")
    return stripped

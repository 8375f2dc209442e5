"""What people type that others will read: display names, room names and chat lines.

One rule for every such text, so that a name and a chat line are refused for the same reasons
and in the same words: no control characters (NUL, BEL, escape sequences, line breaks in a
name, U+2028 and U+2029 included), no invisible bidirectional controls that make text read
backwards (U+202E and its kin), and something visible left once the spaces and the invisible
characters (format characters such as U+200B, fillers such as U+3164) are taken out.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks, embeddings, overrides and isolates (Unicode's Bidi_Control property)."""

INVISIBLE_FILLERS = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0"
    "\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07"
    "\ufe08\ufe09\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f"
)
"""Characters that are not format characters (category Cf) yet show nothing: the combining
grapheme joiner, the Hangul fillers, the Khmer inherent vowels, the blank Braille pattern and
the variation selectors."""
_LINE_BREAKS = ("Zl", "Zp")
"""Unicode's line and paragraph separators (U+2028, U+2029): line breaks like ``\\n``."""


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
        category = unicodedata.category(char)
        if char not in allowed and category in ("Cc", "Cs"):
            raise TextRefused("bad_text", f"{what} cannot hold control characters.")
        if category in _LINE_BREAKS:
            raise TextRefused("bad_text", f"{what} cannot hold line or paragraph separators.")
    stripped = text.strip()
    if not visible(stripped).strip():
        raise TextRefused(
            "blank_text", f"{what} needs some visible text, not only spaces or invisible marks."
        )
    if len(stripped) > max_length:
        raise TextRefused("text_too_long", f"{what} has at most {max_length} characters.")
    return stripped


def visible(text: str) -> str:
    """``text`` without its invisible characters: format characters (category Cf: U+200B,
    U+200D, U+FEFF, U+2060, tags...) and the fillers that show nothing."""
    return "".join(
        char
        for char in text
        if char not in INVISIBLE_FILLERS and unicodedata.category(char) != "Cf"
    )


def folded_name(name: str) -> str:
    """What a name looks like, for telling look-alikes apart: without invisible characters,
    NFKC-normalized (full-width and compatibility forms become plain ones), case-folded, its
    spaces collapsed. "Host", "HOST", its full-width form and "Host\u200b" fold to the same."""
    folded = unicodedata.normalize("NFKC", visible(name)).casefold()
    return " ".join(folded.split())

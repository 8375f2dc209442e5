"""What people type that others will read: display names, room names and chat lines.

One rule for every such text, so that a name and a chat line are refused for the same reasons
and in the same words: no control characters (NUL, BEL, escape sequences, line breaks in a
name, U+2028 and U+2029 included), no invisible bidirectional controls that make text read
backwards (U+202E and its kin), and something visible left once the spaces and the invisible
characters (Unicode's Default_Ignorable_Code_Point: format characters such as U+200B, fillers
such as U+3164, every variation selector) are taken out.
"""

from __future__ import annotations

import sys
import unicodedata

BIDI_CONTROLS = frozenset(
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks, embeddings, overrides and isolates (Unicode's Bidi_Control property)."""

_OTHER_DEFAULT_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0000),
    (0xE0002, 0xE001F),
    (0xE0080, 0xE00FF),
    (0xE01F0, 0xE0FFF),
)
"""Unicode's Other_Default_Ignorable_Code_Point ranges (PropList.txt, unchanged since 6.0):
the one part of Default_Ignorable_Code_Point that ``unicodedata`` cannot derive."""
_VISIBLE_FORMAT = frozenset(
    (
        *range(0xFFF9, 0xFFFC),
        *range(0x13430, 0x13441),
        *range(0x0600, 0x0606),
        *(0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD),
    )
)
"""The format characters Default_Ignorable_Code_Point leaves out: interlinear annotation
marks, Egyptian hieroglyph format controls and the Prepended_Concatenation_Mark signs (the
Arabic number sign and its kin), which show."""


def _default_ignorable() -> frozenset[str]:
    """Unicode's Default_Ignorable_Code_Point, derived as DerivedCoreProperties.txt defines it:
    Other_Default_Ignorable_Code_Point, every format character (Cf) and every variation
    selector, less white space and ``_VISIBLE_FORMAT``. 4,174 code points."""
    chars = {chr(code) for low, high in _OTHER_DEFAULT_IGNORABLE for code in range(low, high + 1)}
    for char in map(chr, range(sys.maxunicode + 1)):
        category = unicodedata.category(char)
        if category == "Cf" or (
            category == "Mn" and "VARIATION SELECTOR" in unicodedata.name(char)
        ):
            chars.add(char)
    return frozenset(c for c in chars if not c.isspace() and ord(c) not in _VISIBLE_FORMAT)


DEFAULT_IGNORABLE = _default_ignorable()
"""What renders as nothing unless a font says otherwise: zero-width spaces and joiners, the
byte order mark, tags, fillers, every variation selector (U+FE00.., U+180B.., U+E0100..)."""
INVISIBLE = DEFAULT_IGNORABLE | {"\u2800"}
"""What a name cannot be made of alone, and what look-alike names are compared without: the
default ignorables and the blank Braille pattern (a letter, but shows nothing)."""
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
    """``text`` without its ``INVISIBLE`` characters."""
    return "".join(char for char in text if char not in INVISIBLE)


def folded_name(name: str) -> str:
    """What a name looks like, for telling look-alikes apart: without invisible characters,
    NFKC-normalized (full-width and compatibility forms become plain ones), case-folded, its
    spaces collapsed. "Host", "HOST", its full-width form and "Host\u200b" fold to the same."""
    folded = visible(unicodedata.normalize("NFKC", visible(name)).casefold())
    return " ".join(folded.split())

"""The room's chat history: its last lines, kept by the store with the room and expiring with
it, so that a reload or a late joiner sees what was said."""

from __future__ import annotations

import logging
from typing import TypedDict

import orjson

from app.store.base import RoomStore

logger = logging.getLogger(__name__)

HISTORY_LINES = 100
"""The chat lines a room keeps."""


class ChatLine(TypedDict):
    """One line said in the room: a ``chat`` message without its type."""

    seat: int
    name: str
    """The seat's name when the line was said."""
    text: str
    at: float
    """Unix time when it was said."""


async def say(store: RoomStore, code: str, message: str) -> bool:
    """Send a ``chat`` message (its JSON text) to the room's connections and keep it in the
    room's history; False when the room is gone."""
    return await store.chat(code, message, keep=HISTORY_LINES)


async def history(store: RoomStore, code: str, *, max_bytes: int | None = None) -> list[ChatLine]:
    """The room's kept chat lines, oldest first: the newest that fit in ``max_bytes`` of
    stored text, when given (they are sent at every connect: a reconnect loop must not make
    each connection cost a hundred long lines). Decoded by orjson, not validated: the server
    wrote them (checked then)."""
    kept: list[str] = []
    size = 0
    for text in reversed(await store.chat_lines(code)):
        size += len(text.encode())
        if max_bytes is not None and size > max_bytes:
            break
        kept.append(text)
    lines: list[ChatLine] = []
    for text in reversed(kept):
        try:
            line = orjson.loads(text)
        except orjson.JSONDecodeError:
            line = None
        if not isinstance(line, dict):
            logger.warning("an unreadable chat line left out", extra={"room": code})
            continue
        line.pop("type", None)
        lines.append(line)  # type: ignore[arg-type]
    return lines

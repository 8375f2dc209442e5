"""The one error a room operation raises: a stable code, a sentence, and an HTTP status."""

from __future__ import annotations


class RoomError(Exception):
    """A request the room refuses; ``code`` is stable and snake_case, ``message`` a sentence."""

    def __init__(self, code: str, message: str, *, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def room_not_found() -> RoomError:
    return RoomError("room_not_found", "There is no room with that code.", status=404)

"""The one error a friends operation raises: a stable code, a sentence, and an HTTP status."""

from __future__ import annotations


class FriendError(Exception):
    """A request about friends that is refused; ``code`` is stable and snake_case."""

    def __init__(self, code: str, message: str, *, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def no_such_player() -> FriendError:
    """The one answer for an account that does not exist, cannot be seen, or was not found:
    a stranger learns nothing more from it than from a look-up by exact name."""
    return FriendError("no_such_player", "No player can be found by that.", status=404)

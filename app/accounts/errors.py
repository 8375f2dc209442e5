"""The one error an account operation raises: a stable code, a sentence, and an HTTP status."""

from __future__ import annotations


class AccountError(Exception):
    """A request refused by the accounts; ``code`` is stable and snake_case, ``message`` a
    sentence that never says whether some other account exists."""

    def __init__(self, code: str, message: str, *, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def not_signed_in() -> AccountError:
    return AccountError("not_signed_in", "Sign in to your account first.", status=401)

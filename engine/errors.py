"""The engine's errors: few, narrow, each with a stable code and a sentence for players."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of the engine's errors; ``code`` is stable and goes on the wire."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class IllegalAction(EngineError):
    """An action that is malformed or breaks a rule; the state is unchanged."""


class InvalidConfig(EngineError):
    """A game configuration the rules do not allow."""

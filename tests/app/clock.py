"""A wall clock the test moves: ``time.time`` as every store, service and room reads it."""

from __future__ import annotations

import time

import pytest


class Clock:
    """``time.time`` from ``now`` (the real time when not given) until the test moves it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, now: float | None = None) -> None:
        self.now = time.time() if now is None else now
        monkeypatch.setattr(time, "time", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def advance_to(self, when: float) -> None:
        assert when >= self.now
        self.now = when

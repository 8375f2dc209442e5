"""What an account's friends panel shows that only the database knows, kept per account in
each process: read again only when the account's mark in the live store moves (every change
to its friends or invitations moves it) or an invitation's time passes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.db.models import Invitation
from app.friends import service
from app.recent import Recent

STANDINGS_KEPT = 10_000
"""Accounts whose standing one process keeps (the least recently polled go first)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """What an account's panel shows that only the database knows, as of ``version``."""

    version: str
    """The account's mark in the live store when this was read."""
    me: service.Someone
    circle: service.Circle
    incoming: list[tuple[Invitation, service.Someone]]
    """Invitations waiting for the account's answer, each with its host."""
    sent: list[tuple[Invitation, service.Someone]]
    """Invitations sent lately, each with its guest."""
    until: datetime
    """Read anew after this: an invitation expires, or drops out of the recent ones, then."""


class Standings(Recent[str, Standing]):
    """The standings one process keeps, by account, at most ``bound`` of them, the least
    recently polled let go first. The app makes one at start-up (``app/main.py``)."""

    def __init__(self, bound: int = STANDINGS_KEPT) -> None:
        super().__init__(bound)

    def current(self, account: str, *, version: str, now: datetime) -> Standing | None:
        """The account's standing if it is still the one at ``version`` and in time."""
        standing = self.get(account)
        if standing is None or standing.version != version or now >= standing.until:
            return None
        return standing

"""The friends panel's standings kept per process: by the account's mark, until their time,
and never more than the bound."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.friends.service import Circle, Someone
from app.friends.standings import Standing, Standings

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)


def standing(account: str, version: str = "v1", *, minutes: int = 10) -> Standing:
    return Standing(
        version=version,
        me=Someone(id=account, name=account.title()),
        circle=Circle(friends=[], asked_me=[], asked=[], blocked=[]),
        incoming=[],
        sent=[],
        until=NOW + timedelta(minutes=minutes),
    )


def test_a_standing_is_kept_while_its_mark_and_time_hold() -> None:
    kept = Standings()
    kept.put("ann", standing("ann"))
    assert kept.current("ann", version="v1", now=NOW) == standing("ann")
    assert kept.current("ann", version="v2", now=NOW) is None  # the mark moved
    assert kept.current("ann", version="v1", now=NOW + timedelta(minutes=10)) is None
    assert kept.current("bob", version="v1", now=NOW) is None


def test_the_least_recently_used_goes_first_past_the_bound() -> None:
    kept = Standings(bound=2)
    kept.put("ann", standing("ann"))
    kept.put("bob", standing("bob"))
    assert kept.current("ann", version="v1", now=NOW) is not None  # ann used last
    kept.put("cy", standing("cy"))
    assert len(kept) == 2
    assert kept.current("bob", version="v1", now=NOW) is None
    assert kept.current("ann", version="v1", now=NOW) is not None
    assert kept.current("cy", version="v1", now=NOW) is not None

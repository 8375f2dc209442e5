"""Grouping waiting players: closest ratings first, in a window that widens with the wait.

Pure: the same players at the same moment always give the same groups, whichever process
computes them (only one of them can take a group: ``QueueStore.take``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.matchmaking.model import Waiting
from app.rooms.model import MAX_SEATS, AiLevel

ANY_TABLE = 4
"""The table a lone player who will take any size gets, with AI in the other seats."""


@dataclass(frozen=True, slots=True)
class Window:
    """How far apart two ratings may be: ``start``, plus ``per_second`` for every second
    waited, up to ``widest``."""

    start: float
    per_second: float
    widest: float

    def of(self, waiting: Waiting, now: float) -> float:
        waited = max(0.0, now - waiting.joined_at)
        return min(self.widest, self.start + self.per_second * waited)


@dataclass(frozen=True, slots=True)
class Group:
    """Players to seat at one table, and the AI levels that fill its other seats."""

    players: tuple[Waiting, ...]
    bots: tuple[AiLevel, ...]


def ai_level(ratings: Sequence[float]) -> AiLevel:
    """The AI that suits a group: by its mean rating (OpenSkill ordinal). A new player's is 0
    (mu 25 - 3 x 8.33), so they meet Easy; Medium from 10; Hard from 20, which is about where
    beating the Hard AI (fixed rating 27) becomes a fair fight."""
    mean = sum(ratings) / len(ratings)
    if mean < 10:
        return "easy"
    if mean < 20:
        return "medium"
    return "hard"


def _spread(players: Sequence[Waiting]) -> float:
    return max(p.rating for p in players) - min(p.rating for p in players)


def _fits(players: Sequence[Waiting], window: Window, now: float) -> bool:
    """Every member accepts everyone: the spread is within each one's window."""
    return _spread(players) <= min(window.of(p, now) for p in players)


def _full_tables(
    left: list[Waiting], seats: int, window: Window, now: float
) -> tuple[list[Group], list[Waiting]]:
    """Tables of ``seats`` players who all fit, the tightest spread first; and who is left."""
    found: list[Group] = []
    while len(left) >= seats:
        runs = [left[i : i + seats] for i in range(len(left) - seats + 1)]
        fitting = [run for run in runs if _fits(run, window, now)]
        if not fitting:
            break
        best = min(fitting, key=lambda run: (_spread(run), min(p.joined_at for p in run)))
        found.append(Group(players=tuple(best), bots=()))
        left = [p for p in left if p not in best]
    return found, left


def _nearest(
    first: Waiting, left: list[Waiting], most: int, window: Window, now: float
) -> list[Waiting]:
    """``first`` and up to ``most - 1`` others, nearest in rating first, who all fit."""
    nearest = sorted(
        (p for p in left if p is not first), key=lambda p: abs(p.rating - first.rating)
    )
    table = [first]
    for other in nearest:
        if len(table) == most:
            break
        if _fits([*table, other], window, now):
            table.append(other)
    return table


def _by_arrival(players: Sequence[Waiting]) -> list[Waiting]:
    return sorted(players, key=lambda p: (p.joined_at, p.ticket))


def groups(
    waiting: Sequence[Waiting], *, seats: int | None, now: float, window: Window, ai_wait: float
) -> list[Group]:
    """Full tables first, tightest spread first; then a player who has waited ``ai_wait``
    seconds or asked for AI gets the nearest players that fit, and AI in the other seats.

    ``seats`` None: any table size will do. Tables of six are made first; a player who has
    waited half of ``ai_wait`` (or asked for AI) gets a table of everyone who fits with them
    (up to six); one who is still alone after ``ai_wait`` (or asked for AI) gets a table of
    ``ANY_TABLE`` with AI."""
    left = sorted(waiting, key=lambda p: (p.rating, p.joined_at, p.ticket))
    found, left = _full_tables(left, seats or MAX_SEATS, window, now)
    if seats is None:
        for first in _by_arrival([p for p in left if p.ai_now or now - p.joined_at >= ai_wait / 2]):
            if first not in left:
                continue
            table = _nearest(first, left, MAX_SEATS, window, now)
            if len(table) >= 2:
                found.append(Group(players=tuple(table), bots=()))
            elif first.ai_now or now - first.joined_at >= ai_wait:
                level = ai_level([first.rating])
                found.append(Group(players=(first,), bots=(level,) * (ANY_TABLE - 1)))
            else:
                continue
            left = [p for p in left if p not in table]
        return found
    for first in _by_arrival([p for p in left if p.ai_now or now - p.joined_at >= ai_wait]):
        if first not in left:
            continue
        table = _nearest(first, left, seats, window, now)
        level = ai_level([p.rating for p in table])
        found.append(Group(players=tuple(table), bots=(level,) * (seats - len(table))))
        left = [p for p in left if p not in table]
    return found

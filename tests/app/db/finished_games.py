"""Finished games for tests: real ones played out by the engine, or made-up results."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import engine
from app.rooms.recording import FinishedGame, PlayerRecord

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def person(seat: int, name: str, guest_id: str | None = None) -> PlayerRecord:
    return PlayerRecord(seat=seat, name=name, player_id=guest_id or str(uuid.uuid4()))


def bot(seat: int, level: str) -> PlayerRecord:
    return PlayerRecord(seat=seat, name=f"{level.title()} AI", ai_level=level)


def played_game(players: list[PlayerRecord], *, seed: int = 7, **options: Any) -> FinishedGame:
    """A game the engine plays to the end, each seat choosing among its legal actions at random."""
    config = {"players": len(players), "rules": "advanced", "seed": seed, **options}
    choices = random.Random(seed)
    state = engine.new_game(config)
    actions = []
    while not engine.is_over(state):
        action = choices.choice(engine.legal_actions(state))
        state = engine.apply_action(state, action)
        actions.append(action)
    result = engine.result(state)
    return FinishedGame(
        game_id=str(uuid.uuid4()),
        room_code="PLAY",
        config=config,
        players=players,
        actions=actions,
        rounds=result["rounds"],
        totals=result["totals"],
        winners=result["winners"],
        started_at=START,
        ended_at=START + timedelta(minutes=len(actions)),
    )


def scored_game(
    players: list[PlayerRecord],
    totals: list[int],
    *,
    ended_at: datetime = START,
    winners: list[int] | None = None,
) -> FinishedGame:
    """A game with the given final totals (its actions are not replayable)."""
    best = max(totals)
    return FinishedGame(
        game_id=str(uuid.uuid4()),
        room_code="SCOR",
        config={"players": len(players), "rules": "simple", "seed": 1, "rounds": 1},
        players=players,
        actions=[],
        rounds=[totals],
        totals=totals,
        winners=winners if winners is not None else [s for s, t in enumerate(totals) if t == best],
        started_at=ended_at - timedelta(minutes=20),
        ended_at=ended_at,
    )

"""Replaying a finished game from its config and actions, with every card face up."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The game right after one action (or, for the first step, as dealt)."""

    action: dict[str, Any] | None
    """The action applied to reach this step; None for the deal."""
    log: list[dict[str, Any]]
    """The log entries this step added (the whole log would repeat at every step)."""
    view: dict[str, Any]
    """``engine.open_view`` without its log: the public view plus every hand and the deck."""


@dataclass(frozen=True, slots=True)
class Replay:
    steps: list[ReplayStep]
    result: dict[str, Any]
    """``engine.result`` of the last state: per-round scores, totals and winners."""
    complete: bool
    """Whether every recorded action applied and the game ended; False means the rules have
    changed since the game was played, and the steps stop where the replay diverged."""


def replay(config: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]) -> Replay:
    """Deal ``config`` again (its seed makes the deal identical) and apply ``actions``."""
    state = engine.new_game(config)
    steps = [_step(state, None, logged=0)]
    logged = len(steps[0].log)
    complete = True
    for action in actions:
        try:
            state = engine.apply_action(state, action)
        except engine.EngineError:
            complete = False
            break
        steps.append(_step(state, action, logged=logged))
        logged += len(steps[-1].log)
    return Replay(
        steps=steps, result=engine.result(state), complete=complete and engine.is_over(state)
    )


def _step(state: engine.State, action: Mapping[str, Any] | None, *, logged: int) -> ReplayStep:
    view = engine.open_view(state)
    log: list[dict[str, Any]] = view.pop("log")
    return ReplayStep(action=None if action is None else dict(action), log=log[logged:], view=view)

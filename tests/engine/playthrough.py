"""Golden playthroughs: seeded games played by a fixed policy, recorded step by step.

A recording is JSON Lines: a header, then one line per state with what every seat sees and may
do. To keep files small without losing anything, a line holds the spectator view's fields that
changed since the line before (each player's entry flattened to ``players.<seat>.<key>``), each
seat's hand when it changed (a seat's view is the spectator view plus its own ``seat`` and
``hand``, which the recorder checks), the log entries added, the legal actions, the blocked
actions of the seats to act, and the action the policy took.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from gameplay import pick

import engine

GOLDEN = Path(__file__).parent / "golden"
FORMAT = 1
GAMES: dict[str, dict[str, Any]] = {
    "4p-advanced": {"players": 4, "rules": "advanced", "seed": 7},
    "2p-simple": {"players": 2, "rules": "simple", "seed": 8},
    "2p-advanced-draft": {"players": 2, "rules": "advanced", "draft": True, "seed": 9},
    "3p-simple_actions-draft": {"players": 3, "rules": "simple_actions", "draft": True, "seed": 10},
    "2p-simple-3-rounds": {"players": 2, "rules": "simple", "rounds": 3, "seed": 11},
}
"""Each game's name (its file name) and configuration; the policy is seeded by the game seed."""


def path_of(name: str) -> Path:
    return GOLDEN / f"{name}.jsonl"


def record(config: dict[str, Any]) -> list[str]:
    """The recording of one game, one compact JSON line per entry."""
    players = config["players"]
    rng = random.Random(config["seed"])
    state = engine.new_game(config)
    lines = [_line({"format": FORMAT, "config": config, "policy": "gameplay.pick"})]
    public: dict[str, Any] = {}
    hands: list[Any] = [None] * players
    log: list[Any] = []
    step = 0
    while True:
        full = engine.view_for(state, None)
        new_log = full.pop("log")
        view = flatten(full)
        if new_log[: len(log)] != log:
            raise AssertionError(f"step {step}: the log changed an entry it already had")
        entry: dict[str, Any] = {"step": step}
        changed = {k: v for k, v in view.items() if public.get(k, entry) != v}
        removed = sorted(set(public) - set(view))
        if changed:
            entry["view"] = changed
        if removed:
            entry["removed"] = removed
        for seat in range(players):
            seat_view = engine.view_for(state, seat)
            del seat_view["log"]
            if seat_view != {**full, "seat": seat, "hand": seat_view["hand"]}:
                raise AssertionError(f"step {step}: seat {seat} sees more than its hand")
            if seat_view["hand"] != hands[seat]:
                entry.setdefault("hands", {})[str(seat)] = seat_view["hand"]
                hands[seat] = seat_view["hand"]
        if len(new_log) > len(log):
            entry["log"] = new_log[len(log) :]
        legal = engine.legal_actions(state)
        entry["legal"] = legal
        entry["blocked"] = {
            str(seat): engine.blocked_actions(state, seat) for seat in engine.to_act(state)
        }
        public, log = view, new_log
        if engine.is_over(state):
            entry["scores"] = engine.scores(state)
            entry["result"] = engine.result(state)
            lines.append(_line(entry))
            return lines
        action = pick(rng, legal)
        entry["action"] = action
        lines.append(_line(entry))
        state = engine.apply_action(state, action)
        step += 1


def flatten(view: dict[str, Any]) -> dict[str, Any]:
    """The view with each player's fields as top-level ``players.<seat>.<key>`` fields."""
    flat = {k: v for k, v in view.items() if k != "players"}
    for seat, player in enumerate(view["players"]):
        flat.update({f"players.{seat}.{k}": v for k, v in player.items()})
    return flat


def _line(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def write(name: str) -> Path:
    path = path_of(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(record(GAMES[name])) + "\n", encoding="utf-8")
    return path

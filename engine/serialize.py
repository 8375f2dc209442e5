"""Lossless, versioned serialization of a state for the room store."""

from __future__ import annotations

import json
from typing import Any

from engine.cards import Kind
from engine.errors import EngineError
from engine.state import Challenge, Config, Pending, State

FORMAT = 1


def to_data(state: State, *, log: bool = True) -> dict[str, Any]:
    """The state as JSON-ready data: ``dumps`` is this data's JSON text, and an application
    may encode it with a faster JSON library. It shares lists with the state: encode it at
    once and change neither. Without ``log``, its log is left out (an empty one)."""
    config = state.config
    challenge = state.challenge
    pending = state.pending
    data: dict[str, Any] = {
        "format": FORMAT,
        "config": {
            "players": config.players,
            "rules": config.rules,
            "draft": config.draft,
            "seed": config.seed,
            "rounds": config.rounds,
            "names": None if config.names is None else list(config.names),
        },
        "round": state.round,
        "dealer": state.dealer,
        "active": state.active,
        "actions_done": state.actions_done,
        "hands": state.hands,
        "stacks": state.stacks,
        "deck": state.deck,
        "discard": state.discard,
        "out": state.out,
        "piles": state.piles,
        "covered": state.covered,
        "barred": state.barred,
        "challenge": None
        if challenge is None
        else {
            "challenger": challenge.challenger,
            "defender": challenge.defender,
            "kind": str(challenge.kind),
            "target": challenge.target,
            "depth": challenge.depth,
            "plays": [[seat, cards] for seat, cards in challenge.plays],
            "to_answer": challenge.to_answer,
            "need": challenge.need,
            "claim": challenge.claim,
            "piles": challenge.piles,
        },
        "pending": None
        if pending is None
        else {
            "chooser": pending.chooser,
            "target": pending.target,
            "queue": [list(pair) for pair in pending.queue],
            "piles": pending.piles,
        },
        "history": state.history,
        "over": state.over,
        "log": state.entries() if log else [],
        "log_enabled": state.log_enabled,
    }
    return data


def dumps(state: State) -> str:
    return json.dumps(to_data(state), separators=(",", ":"))


def loads(text: str) -> State:
    return from_data(json.loads(text))


def from_data(data: Any) -> State:
    """The state from data decoded from ``dumps``'s text (by any JSON library); the state
    takes the data's lists over, so the data must not be used again."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise EngineError("bad_format", f"Not a serialized game state of format {FORMAT}.")
    raw = data["config"]
    config = Config(
        raw["players"],
        raw["rules"],
        raw["draft"],
        raw["seed"],
        raw["rounds"],
        None if raw["names"] is None else tuple(raw["names"]),
    )
    ch = data["challenge"]
    pe = data["pending"]
    return State(
        config=config,
        round=data["round"],
        dealer=data["dealer"],
        active=data["active"],
        actions_done=data["actions_done"],
        hands=data["hands"],
        stacks=data["stacks"],
        deck=data["deck"],
        discard=data["discard"],
        out=data["out"],
        piles=data["piles"],
        covered=data["covered"],
        barred=data["barred"],
        challenge=None
        if ch is None
        else Challenge(
            challenger=ch["challenger"],
            defender=ch["defender"],
            kind=Kind(ch["kind"]),
            target=ch["target"],
            depth=ch["depth"],
            plays=[(seat, cards) for seat, cards in ch["plays"]],
            to_answer=ch["to_answer"],
            need=ch["need"],
            claim=ch["claim"],
            piles=ch["piles"],
        ),
        pending=None
        if pe is None
        else Pending(pe["chooser"], pe["target"], [(a, b) for a, b in pe["queue"]], pe["piles"]),
        history=data["history"],
        over=data["over"],
        log=data["log"],
        log_length=len(data["log"]),
        log_enabled=data["log_enabled"],
    )

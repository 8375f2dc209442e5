"""Cash Stash rules engine: pure functions over game states, standard library only.

The JSON-level contract (docs/design.md, "Engine contract"): ``new_game``, ``legal_actions``,
``blocked_actions``, ``apply_action``, ``view_for``, ``is_over``, ``scores``, ``dumps`` /
``loads``.

For searches there is a faster path over the same rules: ``search_copy`` makes a private
copy with the log off, ``moves`` lists the legal actions as tuples (the same actions, in the
same order, as ``legal_actions``) and ``play`` applies one to that copy in place, unchecked.
``action_of`` turns a move into its JSON action.

``views_for`` is ``view_for`` for several seats at once, sharing their public part;
``blocked_for`` is ``blocked_actions`` for every seat, the waiting seats sharing one list.
``to_data`` / ``from_data`` are ``dumps`` / ``loads`` without the JSON text, for an
application that encodes with a faster JSON library than the standard one; ``to_data(state,
log=False)`` leaves the log out, for an application that keeps the log apart and adds to it
the ``log_entries`` each move made.

The modules run compiled to C when ``make`` has built them (``engine/compiled.py``), else
from their sources: the same rules either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.compiled import choose

BUILD = choose(__path__[0])
"""``"compiled"`` or ``"source"``: how this process runs the engine's modules, chosen before
any of them is imported (``engine/compiled.py``)."""

from engine.actions import apply_action, play
from engine.blocked import blocked_actions, blocked_for
from engine.cards import CardId, Kind
from engine.determinize import Sampler, determinize
from engine.errors import EngineError, IllegalAction, InvalidConfig
from engine.legal import Move, action_of, legal_actions, moves
from engine.serialize import dumps, from_data, loads, to_data
from engine.setup import new_state, parse_config
from engine.state import Seat, State
from engine.turns import begin_round, standings, stash
from engine.view import open_view, view_for, views_for


def new_game(config: Mapping[str, Any]) -> State:
    """Shuffle and deal a new game; ``InvalidConfig`` for a configuration the rules forbid."""
    parsed = parse_config(config)
    state = new_state(parsed, config.get("setup"))
    begin_round(state)
    return state


def search_copy(state: State) -> State:
    """A private copy to ``play`` moves on in place; it keeps no log of what follows."""
    copy = state.copy()
    copy.log_enabled = False
    return copy


def log_entries(state: State, since: State | None = None) -> list[dict[str, Any]]:
    """The state's log; with ``since``, a state it was played from, only the entries added
    after that one's."""
    entries = state.entries()
    return entries if since is None else entries[since.log_length :]


def is_over(state: State) -> bool:
    return state.over


def scores(state: State) -> list[int]:
    """Stash value per seat, this round."""
    return [stash(state, seat) for seat in range(state.config.players)]


def to_act(state: State) -> list[Seat]:
    """The seats that must act now; empty only when the game is over."""
    return state.to_act()


def result(state: State) -> dict[str, Any]:
    """Per-round stash values, totals, round wins and the winners (final once over)."""
    return standings(state)


__all__ = [
    "CardId",
    "EngineError",
    "IllegalAction",
    "InvalidConfig",
    "Kind",
    "Move",
    "Sampler",
    "Seat",
    "State",
    "action_of",
    "apply_action",
    "blocked_actions",
    "blocked_for",
    "determinize",
    "dumps",
    "from_data",
    "is_over",
    "legal_actions",
    "loads",
    "log_entries",
    "moves",
    "new_game",
    "open_view",
    "play",
    "result",
    "scores",
    "search_copy",
    "to_act",
    "to_data",
    "view_for",
    "views_for",
]

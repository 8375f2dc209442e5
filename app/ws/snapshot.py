"""One committed room as this process's connections see it: decoded once, rendered per seat."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

import engine
from app.rooms.model import Room
from app.rooms.public import room_public
from app.ws.messages import RoomMessage, StateMessage


class Snapshot:
    """A room at one version; every connection to it shares the decoding and each seat's view."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._states: dict[int | None, dict[str, Any]] = {}

    @property
    def version(self) -> int:
        return self.room.version

    @cached_property
    def _engine_state(self) -> Any:
        assert self.room.game is not None
        return engine.loads(self.room.game.state)

    @cached_property
    def _legal_actions(self) -> list[dict[str, Any]]:
        """Every seat's legal actions, worked out once for all the room's connections."""
        actions: list[dict[str, Any]] = engine.legal_actions(self._engine_state)
        return actions

    @cached_property
    def room_message(self) -> dict[str, Any]:
        return RoomMessage(room=room_public(self.room)).model_dump(mode="json")

    def state_message(self, seat: int | None) -> dict[str, Any] | None:
        """The ``state`` message for a seat (None: a spectator); None before the first game."""
        game = self.room.game
        if game is None:
            return None
        if seat not in self._states:
            state = self._engine_state
            legal: list[dict[str, Any]] = []
            blocked: list[dict[str, Any]] = []
            if seat is not None and not engine.is_over(state):
                legal = [action for action in self._legal_actions if action["seat"] == seat]
                blocked = engine.blocked_actions(state, seat)
            ref = next(
                (
                    json.loads(key.split(":", 1)[1])
                    for key, version in game.refs.items()
                    if version == self.room.version and key.startswith(f"{seat}:")
                ),
                None,
            )
            message: StateMessage = {
                "type": "state",
                "version": self.room.version,
                "view": engine.view_for(state, seat),
                "legal": legal,
                "blocked": blocked,
                "deadline": game.deadline,
                "ref": ref,
            }
            self._states[seat] = dict(message)
        return self._states[seat]

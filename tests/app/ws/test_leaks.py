"""Over whole games, no message to a seat names a card it cannot see, a token, or the seed."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

import engine
from app.rooms import play
from app.rooms.model import Room, room_of_text
from app.store.base import Commit
from app.store.memory import MemoryRoomStore
from tests.app.conftest import base_settings
from tests.app.live import Client, bearer, connect_client, create_room, live_server, play_out


class KeepingStore(MemoryRoomStore):
    """The memory store, keeping every committed version of the (one) room: a move appended
    is made again on the version before it, as a process reading the room would."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: dict[int, Room] = {}

    async def commit(self, commit: Commit) -> bool:
        written = await super().commit(commit)
        if written:
            self.versions[commit.version] = (
                play.replay(self.versions[commit.version - 1], commit.data)
                if commit.step
                else room_of_text(commit.data)
            )
        return written


def hidden_cards(state: Any, seat: int | None) -> set[int]:
    """Card ids ``seat`` cannot see (None: a spectator): other hands, the deck, covered piles."""
    hidden = set(state.deck)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    for pile, covered in zip(state.piles, state.covered, strict=True):
        hidden.update(pile if covered else pile[:-1])
    return hidden


def named_cards(message: Any) -> set[int]:
    """Every card id a message names: card objects, and ``card``/``cards`` fields."""
    found: set[int] = set()
    if isinstance(message, dict):
        if isinstance(message.get("id"), int) and "kind" in message:
            found.add(message["id"])
        if isinstance(message.get("card"), int):
            found.add(message["card"])
        cards = message.get("cards")
        if isinstance(cards, list):
            found.update(card for card in cards if isinstance(card, int))
        for value in message.values():
            found |= named_cards(value)
    elif isinstance(message, list):
        for item in message:
            found |= named_cards(item)
    return found


def check(client: Client, seat: int | None, store: KeepingStore, secrets: list[str]) -> int:
    """Check every message the client got; returns how many named at least one card."""
    with_cards = 0
    for message in client.received:
        text = json.dumps(message)
        for secret in secrets:
            assert secret not in text, f"a secret reached seat {seat}"
        version = message.get("version") or message.get("room", {}).get("version")
        if version is None:
            continue
        room = store.versions[version]
        if room.game is None:
            continue
        named = named_cards(message)
        with_cards += bool(named)
        leaked = named & hidden_cards(engine.loads(room.game.state), seat)
        assert not leaked, f"seat {seat} was shown hidden cards {leaked} at version {version}"
    return with_cards


@pytest.mark.parametrize(
    ("seats", "options"),
    [(3, {"rules": "advanced"}), (2, {"rules": "simple_actions", "draft": True})],
)
async def test_no_message_names_a_card_the_seat_cannot_see(
    seats: int, options: dict[str, Any]
) -> None:
    store = KeepingStore()
    async with live_server(base_settings(), store=store) as live, live.http() as http:
        code, host = await create_room(http, seats=seats, spectators=True, **options)
        tokens = [host]
        for n in range(seats - 2):
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"P{n}"})
            tokens.append(joined.json()["token"])
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        players = [await connect_client(live, code, token) for token in tokens]
        spectator = await connect_client(live, code)
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        # The spectator reads as the game goes (one that falls a queue behind is dropped).
        await asyncio.gather(
            *(play_out(client, seat, random.Random(seat)) for seat, client in enumerate(players)),
            spectator.game_over(),
        )
        final = await live.runtime.service.load(code)
        assert final is not None and final.game is not None

    secrets = [*tokens, str(final.game.seed)]
    for seat, client in enumerate(players):
        assert check(client, seat, store, secrets) > 50
    assert check(spectator, None, store, secrets) > 50

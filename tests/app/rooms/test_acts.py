"""``act``: applied once per ref, stale versions refused, the engine's refusals passed on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from tests.app.conftest import MakeSettings
from tests.app.live import Client, Live, bearer, connect_client, create_room, live_server


@dataclass
class Duel:
    live: Live
    code: str
    tokens: list[str]
    clients: list[Client]

    def mover(self) -> tuple[int, Client]:
        """The seat that must act now (by the latest state every client has) and its client."""
        state = self.clients[0].state
        assert state is not None
        seat: int = state["view"]["to_act"][0]
        return seat, self.clients[seat]


@pytest.fixture
async def duel(make_settings: MakeSettings) -> AsyncIterator[Duel]:
    """Two people connected to a started game."""
    async with live_server(make_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=2)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        tokens = [host, guest["token"]]
        clients = [await connect_client(live, code, token) for token in tokens]
        for client in clients:
            await client.wait_for("room")
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        for client in clients:
            await client.wait_for("state")
        yield Duel(live, code, tokens, clients)
        for client in clients:
            await client.close()


async def test_a_repeated_ref_is_answered_never_applied_twice(duel: Duel) -> None:
    seat, client = duel.mover()
    assert client.state is not None
    version = client.state["version"]
    action = client.state["legal"][0]
    await client.act(action, ref="once", version=version)
    applied = await client.wait_for("state", lambda m: m["ref"] == "once")
    assert applied["version"] == version + 1
    await client.act(action, ref="once", version=version)
    answered = await client.wait_for("applied")
    assert answered == {"type": "applied", "ref": "once", "version": version + 1}
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    assert not [m for m in client.received if m["type"] == "error"]
    other = duel.clients[1 - seat]
    seen = await other.wait_for("state", lambda m: m["version"] == version + 1)
    assert seen["ref"] is None  # refs are the acting seat's own business


def state_versions(client: Client) -> list[int]:
    return [message["version"] for message in client.received if message["type"] == "state"]


async def test_a_stale_version_is_refused_and_the_latest_state_is_not_sent_again(
    duel: Duel,
) -> None:
    _, client = duel.mover()
    assert client.state is not None
    current = client.state["version"]
    await client.act(client.state["legal"][0], ref="old", version=current - 1)
    error = await client.wait_for("error")
    assert (error["code"], error["ref"]) == ("stale_version", "old")
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    assert client.state["version"] == current  # the state to choose again from, held already
    assert state_versions(client).count(current) == 1


async def test_the_tab_that_loses_a_race_gets_each_version_once(duel: Duel) -> None:
    """Issue 22, probe 9: the loser got the winner's state twice (broadcast and refusal)."""
    seat, first = duel.mover()
    second = await connect_client(duel.live, duel.code, duel.tokens[seat])
    await second.wait_for("state")
    assert first.state is not None and second.state is not None
    version = first.state["version"]
    action = first.state["legal"][0]
    await asyncio.gather(
        first.act(action, ref="first", version=version),
        second.act(action, ref="second", version=version),
    )
    won = [
        await tab.wait_for("state", lambda m: m["version"] == version + 1)
        for tab in (first, second)
    ]
    loser = second if won[0]["ref"] == "first" else first
    if not any(message["type"] == "error" for message in loser.received):
        await loser.wait_for("error")
    refused = [m for tab in (first, second) for m in tab.received if m["type"] == "error"]
    assert [message["code"] for message in refused] == ["stale_version"]
    for tab in (first, second):
        await tab.send({"type": "ping"})
        await tab.wait_for("pong")
        versions = state_versions(tab)
        assert len(versions) == len(set(versions)), versions
    await second.close()


async def test_out_of_turn_wrong_seat_and_illegal_actions_are_refused(duel: Duel) -> None:
    seat, client = duel.mover()
    waiting = duel.clients[1 - seat]
    assert waiting.state is not None and client.state is not None
    await waiting.act({"type": "end_turn"}, ref=1)
    assert (await waiting.wait_for("error"))["code"] == "not_your_turn"
    await client.act({"type": "end_turn", "seat": 1 - seat}, ref=2)
    assert (await client.wait_for("error"))["code"] == "wrong_seat"
    await client.act({"type": "discard", "card": 999}, ref=3)
    refused = await client.wait_for("error")
    assert refused["ref"] == 3 and refused["code"] not in ("bad_message", "stale_version")
    assert refused["message"].endswith(".")


async def test_a_token_reconnects_its_seat_from_another_tab(duel: Duel) -> None:
    seat, client = duel.mover()
    assert client.state is not None
    hand = client.state["view"]["hand"]
    await client.close()
    tab = await connect_client(duel.live, duel.code, duel.tokens[seat])
    state = await tab.wait_for("state")
    assert state["view"]["seat"] == seat and state["view"]["hand"] == hand
    # The old tab's goodbye may land after the new tab's hello (a new version): then the act is
    # stale, and the client acts again on the fresh state, as any client does.
    while True:
        assert tab.state is not None
        await tab.act(tab.state["legal"][0], ref="from the new tab")
        seen = state["version"]
        reply = await tab.wait_for(
            "state", lambda m, seen=seen: m["ref"] == "from the new tab" or m["version"] > seen
        )
        if reply["ref"] == "from the new tab":
            break
        state = reply
    await tab.close()

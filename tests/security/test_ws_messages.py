"""Issue 22, probes 8 and 9 over the WebSocket: strict types, clean chat, one state per version."""

from __future__ import annotations

from typing import Any

from tests.app.live import Client
from tests.security.conftest import Serve
from tests.security.ws_clients import duel, seated


async def settled(client: Client) -> None:
    """Wait until the server has answered everything this client sent so far."""
    await client.send({"type": "ping"})
    await client.wait_for("pong")


def mover_of(clients: list[Client]) -> tuple[int, Client]:
    state = clients[0].state
    assert state is not None
    seat: int = state["view"]["to_act"][0]
    return seat, clients[seat]


async def test_loose_types_in_an_act_are_refused_and_change_nothing(serve: Serve) -> None:
    server = serve()
    code, tokens = await duel(server.endpoint)
    clients = [await seated(server.endpoint, code, token) for token in tokens]
    seat, client = mover_of(clients)
    assert client.state is not None
    version, view, action = client.state["version"], client.state["view"], client.state["legal"][0]
    hostile: list[dict[str, Any]] = [
        {"ref": True, "version": version, "action": action},
        {"ref": "a", "version": str(version), "action": action},
        {"ref": "b", "version": float(version), "action": action},
        {"ref": "c", "version": version, "action": {**action, "seat": float(seat)}},
        {"ref": "d", "version": version, "action": {**action, "seat": bool(seat)}},
        {"ref": "e", "version": version, "action": {**action, "seat": str(seat)}},
        {"ref": "f", "version": version, "action": {**action, "extra": 1}},
    ]
    for message in hostile:
        await client.send({"type": "act", **message})
    await settled(client)
    errors = [m for m in client.received if m["type"] == "error"]
    assert [error["code"] for error in errors] == ["bad_message"] * len(hostile)
    assert [error["ref"] for error in errors[1:]] == ["a", "b", "c", "d", "e", "f"]
    assert client.state["view"] == view, "a refused act changed the game"
    await client.act(action, ref="the real one")
    applied = await client.wait_for("state", lambda m: m["ref"] == "the real one")
    assert applied["version"] > version and applied["view"] != view


async def test_chat_refuses_controls_bidi_overrides_and_blank_text(serve: Serve) -> None:
    server = serve()
    code, tokens = await duel(server.endpoint)
    ann, bob = [await seated(server.endpoint, code, token) for token in tokens]
    for text, refusal in [
        ("nul\u0000", "bad_text"),
        ("bell\u0007", "bad_text"),
        ("gnirts\u202e", "bad_text"),
        ("   ", "blank_text"),
        ("\u2066isolate", "bad_text"),
        (7, "bad_message"),
    ]:
        await ann.send({"type": "chat", "text": text})
        error = await ann.wait_for("error")
        assert error["code"] == refusal, text
        assert error["message"].endswith(".")
    await ann.send({"type": "chat", "text": "  fair play  "})
    heard = await bob.wait_for("chat")
    assert heard["text"] == "fair play"
    assert [m["text"] for m in bob.received if m["type"] == "chat"] == ["fair play"]


async def test_the_tab_that_loses_a_race_gets_each_version_once(
    serve: Serve, store_kind: str
) -> None:
    """Two tabs of one seat (on two processes when they share Redis) act at one version."""
    first = serve()
    servers = [first, serve() if store_kind == "redis" else first]
    code, tokens = await duel(first.endpoint)
    watcher = await seated(first.endpoint, code, None)
    assert watcher.state is not None
    seat = watcher.state["view"]["to_act"][0]
    tabs = [await seated(server.endpoint, code, tokens[seat]) for server in servers]
    state = tabs[0].state
    assert state is not None
    version = state["version"]
    # A discard leaves the seat to act again (advanced rules), so the loser is refused for
    # its version, not its turn.
    action = next(action for action in state["legal"] if action["type"] == "discard")
    for index, tab in enumerate(tabs):
        await tab.act(action, ref=f"tab {index}", version=version)
    for tab in tabs:
        await tab.wait_for("state", lambda m: m["version"] == version + 1)
        await settled(tab)
    for tab in tabs:
        versions = [m["version"] for m in tab.received if m["type"] == "state"]
        assert len(versions) == len(set(versions)), versions
    refusals = [m["code"] for tab in tabs for m in tab.received if m["type"] == "error"]
    assert refusals == ["stale_version"]

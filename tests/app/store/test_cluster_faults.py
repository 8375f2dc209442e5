"""A Redis Cluster that changes under a live game: the primary holding the room fails over, and
the room's slot moves to another primary. Two server processes serve one game throughout; every
action a player saw acknowledged must be in the recorded game, and nothing else in their name."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.app.live import Client, bearer, connect_client, create_room
from tests.app.processes import (
    ServerProcess,
    migrated_database,
    running_servers,
    server_env,
)
from tests.app.redis_target import RedisTarget
from tests.redis_cluster import RedisCluster

pytestmark = pytest.mark.redis

STALL = 30.0
"""The longest a player waits for the next message: a failover takes a few seconds, and the
server retries a command for up to 15 s before it answers ``unavailable``."""
PHASE_SECONDS = 1.0
"""How long a slot move holds each of its middle states (keys split between the two nodes;
every key at the target but the slot not yet given to it): a resharding tool moving many slots
may hold them that long."""


@pytest.fixture
def on_cluster(redis_cluster: RedisCluster, cluster_prefix: str) -> RedisTarget:
    return RedisTarget(redis_cluster.url, cluster_prefix, redis_cluster)


@pytest.fixture
def two_servers(on_cluster: RedisTarget, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two processes on the cluster; each commit waits for a replica (``WAIT 1``), without
    which a move acknowledged just before a failover may be lost (replication is asynchronous)."""
    database = migrated_database(tmp_path / "games.db")
    env = server_env(on_cluster, database, redis_wait_replicas="1")
    with running_servers(env, 2) as servers:
        yield servers


class Progress:
    """How far play has gone (acknowledged actions over all seats), for a test that acts on
    the cluster once play has gone so far."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Condition()

    async def changed(self, acknowledged: int = 0) -> None:
        async with self._changed:
            self.count += acknowledged
            self._changed.notify_all()

    async def until(self, done: Callable[[], bool]) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(done), STALL)

    async def reach(self, count: int) -> None:
        await self.until(lambda: self.count >= count)


@dataclass
class Player:
    """A seat played with random legal actions, keeping what it sent and what the server
    acknowledged. It acts on each newer state in its turn without waiting for the answer to
    its last act, as the browser does: a state can reach a connection after a later one made
    it stale, so not every applied act is seen acknowledged."""

    client: Client
    seat: int
    progress: Progress
    rng: random.Random
    sent: dict[str | int, dict[str, Any]] = field(default_factory=dict)
    """Each act sent, by its ``ref`` (in the order sent)."""
    acknowledged: list[dict[str, Any]] = field(default_factory=list)
    """The action of each act whose ``ref`` came back on a ``state`` or an ``applied``: the
    server applied it."""
    acknowledged_refs: set[str | int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)
    """The chat lines said in the room while it played."""

    async def play(self) -> dict[str, Any]:
        """Until the game is over (returns its last state). An act answered ``unavailable`` is
        sent again with the same ``ref``, as the protocol says: applied at most once."""
        acted_on = -1
        while True:
            try:
                message = await self.client.recv(STALL)
            except TimeoutError:
                latest = self.client.state["version"] if self.client.state else None
                raise AssertionError(
                    f"seat {self.seat} heard nothing for {STALL} s (its latest state: {latest})"
                ) from None
            if message["type"] == "error":
                self.errors.append(message["code"])
                assert message["ref"] in self.sent, message
                if message["code"] == "unavailable":
                    await self.client.send(self.sent[message["ref"]])
                continue
            if message["type"] == "chat":
                self.heard.append(message["text"])
                await self.progress.changed()
            if message["type"] not in ("state", "applied"):
                continue
            ref = message.get("ref")
            if ref is not None and ref not in self.acknowledged_refs:
                assert ref in self.sent, message
                self.acknowledged_refs.add(ref)
                self.acknowledged.append(self.sent[ref]["action"])
                await self.progress.changed(acknowledged=1)
            if message["type"] == "applied":
                continue  # an act sent again after ``unavailable`` had been applied
            if message["view"]["over"]:
                return message
            mine = self.seat in message["view"]["to_act"] and message["legal"]
            if mine and message["version"] > acted_on:
                acted_on = message["version"]
                act = {
                    "type": "act",
                    "ref": f"{self.seat}-{len(self.sent) + 1}",
                    "version": message["version"],
                    "action": self.rng.choice(message["legal"]),
                }
                self.sent[act["ref"]] = act
                await self.client.send(act)


async def _game(servers: list[ServerProcess]) -> tuple[str, list[Player], Progress]:
    """A started game of two people and an easy bot, each person on a different process."""
    one, other = (server.endpoint for server in servers)
    async with one.http() as http:
        code, host = await create_room(http, seats=3)
        bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        clients = [
            await connect_client(one, code, host),
            await connect_client(other, code, bob["token"]),
        ]
        for client in clients:
            await client.room_until(lambda room: all(s["connected"] for s in room["seats"][:2]))
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        assert started.status_code == 200, started.text
    progress = Progress()
    players = [
        Player(client, seat, progress, random.Random(seat)) for seat, client in enumerate(clients)
    ]
    return code, players, progress


async def _recorded_actions(server: ServerProcess, player: Player) -> list[dict[str, Any]]:
    """The actions of the finished game as the database has it, once it is recorded."""
    room = await player.client.room_until(lambda room: room["game"]["recorded"])
    async with server.endpoint.http() as http:
        response = await http.get(f"/api/games/{room['game']['id']}")
    assert response.status_code == 200, response.text
    return [step["action"] for step in response.json()["replay"] if step["action"] is not None]


def _assert_nothing_lost(players: list[Player], recorded: list[dict[str, Any]]) -> None:
    """Each person's acknowledged actions are in the record, in order; and the record holds
    nothing in their name that they did not send, nor anything twice."""
    for player in players:
        theirs = [action for action in recorded if action["seat"] == player.seat]
        assert player.acknowledged, f"seat {player.seat} saw nothing acknowledged"
        assert _in_order(player.acknowledged, theirs), f"seat {player.seat}: an ack was lost"
        sent = [act["action"] for act in player.sent.values()]
        assert _in_order(theirs, sent), f"seat {player.seat}: applied but never sent (or twice)"
    assert any(action["seat"] == 2 for action in recorded), "the bot never moved"


def _in_order(items: list[dict[str, Any]], within: list[dict[str, Any]]) -> bool:
    """Whether ``items`` appear in ``within`` in the same order (not necessarily together)."""
    rest = iter(within)
    return all(any(item == candidate for candidate in rest) for item in items)


def _until_kept(cluster: RedisCluster, port: int, chat_key: str, text: str) -> None:
    """Until a node importing the room's slot holds a chat line with ``text`` (read with
    ``ASKING``, as a client redirected there does)."""
    deadline = time.monotonic() + STALL
    with cluster.node(port).client() as client:
        while True:
            pipe = client.pipeline(transaction=False)
            pipe.execute_command("ASKING")
            pipe.lrange(chat_key, 0, -1)
            _, lines = pipe.execute()
            if any(text in line for line in lines):
                return
            assert time.monotonic() < deadline, f"{text!r} was never kept"
            time.sleep(0.05)


def _assert_no_traceback(servers: list[ServerProcess]) -> None:
    for server in servers:
        assert server.process.poll() is None, server.logged
        assert "Traceback" not in server.logged, server.logged


async def test_a_failover_of_the_rooms_primary_loses_no_acknowledged_action(
    two_servers: list[ServerProcess], on_cluster: RedisTarget
) -> None:
    cluster = on_cluster.cluster
    assert cluster is not None
    code, players, progress = await _game(two_servers)
    doomed = cluster.primary_of_key(on_cluster.room_key(code))
    failed_over_at: list[int] = []

    async def fail_over_mid_game() -> None:
        await progress.reach(8)
        # kill -9 while the players keep playing; the call returns once the replica took over.
        promoted = await asyncio.to_thread(cluster.fail_over, doomed)
        assert cluster.primary_of_key(on_cluster.room_key(code)) == promoted
        failed_over_at.append(progress.count)
        # The killed node comes back as the new primary's replica, so that commits find a
        # replica to wait for again.
        await asyncio.to_thread(cluster.restart, doomed)

    ann, bob = players
    ann_end, bob_end, _ = await asyncio.gather(ann.play(), bob.play(), fail_over_mid_game())

    assert ann_end["view"]["players"] == bob_end["view"]["players"]
    assert progress.count > failed_over_at[0], "nothing was played after the failover"
    _assert_nothing_lost(players, await _recorded_actions(two_servers[0], players[0]))
    _assert_no_traceback(two_servers)


async def test_a_slot_moving_during_play_loses_nothing_and_refuses_nothing(
    two_servers: list[ServerProcess], on_cluster: RedisTarget
) -> None:
    cluster = on_cluster.cluster
    assert cluster is not None
    code, players, progress = await _game(two_servers)
    ann, bob = players
    slot = cluster.keyslot(on_cluster.room_key(code))
    target = next(port for port in cluster.primaries() if port != cluster.primary_of_slot(slot))

    async def move_the_slot_mid_game() -> None:
        await progress.reach(6)
        await ann.client.send({"type": "chat", "text": "before the move"})
        await progress.until(lambda: "before the move" in bob.heard)
        move = await asyncio.to_thread(cluster.begin_slot_move, slot, target)
        # Migrating, every key still at the source: it serves them as before.
        await progress.reach(progress.count + 2)
        # Split: the room's state and its chat lines on different nodes. A script that needs
        # both is refused (TRYAGAIN) until the rest follows, as when a resharding tool moves
        # the slot batch by batch. The players play on meanwhile.
        assert await asyncio.to_thread(move.migrate, 1) == 1
        assert await asyncio.to_thread(move.keys_left)
        await ann.client.send({"type": "chat", "text": "while split"})
        await asyncio.sleep(PHASE_SECONDS)
        await asyncio.to_thread(move.migrate)
        # Every key at the target, the slot not yet given to it: the source answers ASK.
        await ann.client.send({"type": "chat", "text": "while asked elsewhere"})
        await asyncio.sleep(PHASE_SECONDS)
        # Both lines are kept (at the target) before the slot is given to it.
        chat_key = f"{on_cluster.prefix}{{{code}}}:chat"
        for text in ("while split", "while asked elsewhere"):
            await asyncio.to_thread(_until_kept, cluster, target, chat_key, text)
        await asyncio.to_thread(move.finish)
        await ann.client.send({"type": "chat", "text": "after the move"})

    ann_end, bob_end, _ = await asyncio.gather(ann.play(), bob.play(), move_the_slot_mid_game())

    assert ann_end["view"]["players"] == bob_end["view"]["players"]
    assert cluster.primary_of_key(on_cluster.room_key(code)) == target
    _assert_nothing_lost(players, await _recorded_actions(two_servers[1], bob))
    _assert_no_traceback(two_servers)
    # No client noticed beyond latency: no act refused but for a state gone stale (as in any
    # game), no chat line lost.
    refusals = ann.errors + bob.errors
    assert set(refusals) <= {"stale_version", "not_your_turn"}, refusals
    said = ["before the move", "while split", "while asked elsewhere", "after the move"]
    # The last line may arrive after the game's end, when Bob stopped playing: he listens on.
    while len(bob.heard) < len(said):
        message = await bob.client.recv(STALL)
        if message["type"] == "chat":
            bob.heard.append(message["text"])
    assert bob.heard == said

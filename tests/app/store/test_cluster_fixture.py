"""The local Redis Cluster the cluster tests stand on: it is whole, spreads keys, fails over, and
moves a chosen slot with its keys."""

from __future__ import annotations

import pytest
from redis.cluster import RedisCluster as ClusterClient
from redis.exceptions import MovedError

from tests.redis_cluster import SLOTS, RedisCluster

pytestmark = pytest.mark.redis


def _client(cluster: RedisCluster) -> ClusterClient:
    return ClusterClient.from_url(cluster.url, decode_responses=True)


def test_three_primaries_each_with_a_replica_cover_every_slot(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    primaries = redis_cluster.primaries()
    assert len(primaries) == 3
    assert len({redis_cluster.replica_of(primary) for primary in primaries}) == 3
    owned = [entry.slots for entry in redis_cluster.view() if entry.port in primaries]
    assert sum(len(slots) for slots in owned) == SLOTS
    for node in redis_cluster.running_nodes():
        with node.client() as client:
            assert "cluster_state:ok" in client.execute_command("CLUSTER", "INFO")


def test_keys_spread_over_the_three_primaries(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    with _client(redis_cluster) as client:
        for number in range(60):
            client.set(f"{cluster_prefix}{number}", number)
    held = {}
    for port in redis_cluster.primaries():
        with redis_cluster.node(port).client() as node:
            held[port] = len(list(node.scan_iter(f"{cluster_prefix}*")))
    assert sum(held.values()) == 60
    assert all(count > 0 for count in held.values()), held


def test_a_hash_tag_keeps_keys_on_one_primary(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    keys = [f"{cluster_prefix}{{ROOM}}:{part}" for part in ("room", "chat", "refs")]
    assert len({redis_cluster.keyslot(key) for key in keys}) == 1
    assert len({redis_cluster.primary_of_key(key) for key in keys}) == 1


def test_a_killed_primary_is_replaced_by_its_replica_and_rejoins_as_a_replica(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    key = f"{cluster_prefix}{{FAIL}}:room"
    doomed = redis_cluster.primary_of_key(key)
    with redis_cluster.node(doomed).client() as client:
        client.hset(key, "version", 7)
        # Replication is asynchronous: only a write a replica has confirmed survives for sure.
        assert client.execute_command("WAIT", 1, 5000) == 1
    replica = redis_cluster.replica_of(doomed)

    promoted = redis_cluster.fail_over(doomed)

    assert promoted == replica
    assert redis_cluster.primary_of_key(key) == promoted
    assert doomed not in redis_cluster.primaries()
    with _client(redis_cluster) as client:
        assert client.hget(key, "version") == "7"
    redis_cluster.restart(doomed)
    assert redis_cluster.replica_of(promoted) == doomed
    assert len(redis_cluster.primaries()) == 3


def test_a_chosen_slot_moves_to_another_primary_with_its_keys(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    keys = [f"{cluster_prefix}{{MOVE}}:room", f"{cluster_prefix}{{MOVE}}:chat"]
    slot = redis_cluster.keyslot(keys[0])
    source = redis_cluster.primary_of_slot(slot)
    target = next(port for port in redis_cluster.primaries() if port != source)
    with _client(redis_cluster) as client:
        client.hset(keys[0], "version", 3)
        client.rpush(keys[1], "hello")

        move = redis_cluster.begin_slot_move(slot, target)
        assert move.migrate(limit=1) == 1
        # Half moved: one key on each side, and a client still reads both (ASK redirects).
        assert len(move.keys_left()) == 1
        assert client.hget(keys[0], "version") == "3"
        assert client.lrange(keys[1], 0, -1) == ["hello"]
        move.finish()

        assert redis_cluster.primary_of_slot(slot) == target
        assert client.hget(keys[0], "version") == "3"
        assert client.lrange(keys[1], 0, -1) == ["hello"]
    with (
        redis_cluster.node(source).client() as old_owner,
        pytest.raises(MovedError, match=f" 127.0.0.1:{target}$"),
    ):
        old_owner.hget(keys[0], "version")


def test_healing_finishes_a_slot_move_a_test_left_half_done(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> None:
    keys = [f"{cluster_prefix}{{HEAL}}:room", f"{cluster_prefix}{{HEAL}}:chat"]
    slot = redis_cluster.keyslot(keys[0])
    target = next(
        port for port in redis_cluster.primaries() if port != redis_cluster.primary_of_slot(slot)
    )
    with _client(redis_cluster) as client:
        client.hset(keys[0], "version", 5)
        client.rpush(keys[1], "hi")
        move = redis_cluster.begin_slot_move(slot, target)
        move.migrate(limit=1)

        redis_cluster.heal()

        assert redis_cluster.primary_of_slot(slot) == target
        assert client.hget(keys[0], "version") == "5"
        assert client.lrange(keys[1], 0, -1) == ["hi"]

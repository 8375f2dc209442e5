"""The load bench's Redis: one of the run's own (pinned beside the generator) or the local Redis
Cluster, with the counters read from every node's ``INFO`` per step and a room's memory."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from bench.servers import pin, progress
from bench.swarm import Room, median
from tests.redis_cluster import RedisCluster, cluster_tools_problem

REDIS_URL = os.environ.get("CASH_STASH_BENCH_REDIS_URL")
"""A Redis to use instead of the run's own."""


IGNORED_COMMANDS = {"info", "ping", "cluster", "client", "hello", "command", "config", "memory"}
"""Commands that are the benchmark's or the client's housekeeping, not the game's."""


@dataclass
class RedisStep:
    """What the Redis nodes did during a step, per move (primaries only, but ``replicated``)."""

    commands: dict[str, float]
    """Calls per move by command, those made inside scripts included (as Redis counts them)."""
    bytes_in: float
    """Bytes per move from clients (replication excluded)."""
    bytes_out: float
    """Bytes per move to clients, announcements to subscribers included."""
    replicated: float
    """Bytes per move sent by primaries to their replicas."""
    cpu_share: float
    """Of a core, all the nodes together (replicas included)."""


def redis_counters(urls: list[str]) -> list[dict[str, Any]]:
    """``INFO`` of every node (its role, command counts, bytes and CPU)."""
    counters = []
    for url in urls:
        with redis.Redis.from_url(url, decode_responses=True) as client:
            info = client.info("all")
        counters.append(
            {
                "primary": info["role"] == "master",
                "commands": {
                    name.removeprefix("cmdstat_"): int(value["calls"])
                    for name, value in info.items()
                    if name.startswith("cmdstat_")
                    and name.removeprefix("cmdstat_").split("|")[0] not in IGNORED_COMMANDS
                },
                # Redis counts replication in its totals too: taken out, it is shown apart.
                "in": int(info["total_net_input_bytes"])
                - int(info.get("total_net_repl_input_bytes", 0)),
                "out": int(info["total_net_output_bytes"])
                - int(info.get("total_net_repl_output_bytes", 0)),
                "replicated": int(info.get("total_net_repl_output_bytes", 0)),
                "cpu": float(info["used_cpu_sys"]) + float(info["used_cpu_user"]),
            }
        )
    return counters


def redis_step(
    before: list[dict[str, Any]], after: list[dict[str, Any]], moves: int, elapsed: float
) -> RedisStep:
    per_move = 1 / max(moves, 1)
    commands: dict[str, float] = {}
    bytes_in = bytes_out = replicated = cpu = 0.0
    for old, new in zip(before, after, strict=True):
        cpu += new["cpu"] - old["cpu"]
        if not new["primary"]:
            continue
        for name, calls in new["commands"].items():
            commands[name] = commands.get(name, 0.0) + (calls - old["commands"].get(name, 0))
        bytes_in += new["in"] - old["in"]
        bytes_out += new["out"] - old["out"]
        replicated += new["replicated"] - old["replicated"]
    return RedisStep(
        commands={name: calls * per_move for name, calls in commands.items() if calls},
        bytes_in=bytes_in * per_move,
        bytes_out=bytes_out * per_move,
        replicated=replicated * per_move,
        cpu_share=cpu / elapsed,
    )


def forget(url: str, prefix: str) -> None:
    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)


@dataclass
class Backing:
    """The Redis the game servers use."""

    url: str
    cluster: bool
    nodes: list[str]
    """Every node's URL (a cluster's replicas too), to read their counters."""


def redis_memory(backing: Backing) -> int:
    """Bytes of memory the primaries use, together."""
    total = 0
    for url in backing.nodes:
        with redis.Redis.from_url(url) as client:
            info = client.info("all")
        if info["role"] == "master":
            total += int(info["used_memory"])
    return total


MEMORY_SAMPLE = 50
"""Rooms whose keys are measured one by one (``MEMORY USAGE``) at the end of a run."""


def room_memory(
    backing: Backing, prefix: str, rooms: list[Room], memory_before: int
) -> dict[str, float]:
    """A mid-game room's memory in Redis: ``MEMORY USAGE`` of its own keys (its hash and chat
    list) for the ``MEMORY_SAMPLE`` rooms furthest into their game; and the primaries' memory
    per room (what the run added, the buckets' indexes included, over its rooms)."""
    late = sorted(rooms, key=lambda room: -room.game_moves)[:MEMORY_SAMPLE]
    client: Any = (
        redis.RedisCluster.from_url(backing.url)
        if backing.cluster
        else redis.Redis.from_url(backing.url)
    )
    with client:
        own = [
            sum(
                client.memory_usage(key, samples=0) or 0
                for key in (f"{prefix}{{{room.code}}}:room", f"{prefix}{{{room.code}}}:chat")
            )
            for room in late
        ]
    return {
        "rooms": len(late),
        "moves": median(room.game_moves for room in late) if late else 0.0,
        "own": median(own) if own else 0.0,
        "per_room": (redis_memory(backing) - memory_before) / len(rooms),
    }


@contextlib.contextmanager
def redis_for_run(args: argparse.Namespace) -> Iterator[Backing]:
    """The Redis the game server uses: a local Redis Cluster (``--cluster``), or
    ``CASH_STASH_BENCH_REDIS_URL``, or a ``redis-server`` started for this run; those the run
    starts are pinned to the generator's core and stopped after it."""
    if args.cluster:
        with cluster_for_run() as backing:
            yield backing
        return
    if REDIS_URL:
        progress(f"Redis: {REDIS_URL} (not pinned; its counters include any other client's)")
        yield Backing(REDIS_URL, cluster=False, nodes=[REDIS_URL])
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server not found: install Redis or set CASH_STASH_BENCH_REDIS_URL")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        pin(process.pid, 1)
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            try:
                with redis.Redis.from_url(url) as client:
                    client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            raise SystemExit(f"the run's redis-server did not start (exit {process.poll()})")
        yield Backing(url, cluster=False, nodes=[url])
    finally:
        process.terminate()
        process.wait(15)


@contextlib.contextmanager
def cluster_for_run() -> Iterator[Backing]:
    """The tests' local Redis Cluster (three primaries, a replica each), every node pinned to
    the generator's core; torn down, keys and all, after the run."""
    problem = cluster_tools_problem()
    if problem is not None:
        raise SystemExit(problem)
    progress("Redis Cluster: starting six nodes")
    with RedisCluster() as cluster:
        for node in cluster.nodes:
            assert node.process is not None
            pin(node.process.pid, 1)
        yield Backing(cluster.url, cluster=True, nodes=[node.url for node in cluster.nodes])

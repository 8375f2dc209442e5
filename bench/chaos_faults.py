"""The chaos soak's schedule of faults: each one done to the soak's own services, named, and
timed from when it hit to when everything it broke was back.

Each fault is a blocking function (the Redis Cluster's helpers poll until the nodes agree),
run by ``bench/chaos.py`` on a thread while the players play."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from redis.crc import key_slot

from bench.chaos_services import AppProcess, LocalPostgres
from tests.redis_cluster import Port, RedisCluster


@dataclass(frozen=True, slots=True)
class Durations:
    """How long each fault lasts: the issue's numbers, compressed for the suite."""

    app_down: float = 5.0
    """A killed app process is started again after this long."""
    postgres_down: float = 30.0
    pause: float = 5.0
    """One Redis node's ``CLIENT PAUSE``."""
    shard_down: float = 5.0
    """A shard with no replica is back after this long."""
    replica_back: float = 20.0
    """A killed primary comes back, as a replica, this long after its replica took over
    (meanwhile that shard has no replica)."""


@dataclass
class Fault:
    name: str
    started: float
    """``time.monotonic()`` when it hit."""
    ended: float = 0.0
    """When what it broke was back (0 while it lasts)."""
    detail: str = ""
    problems: list[str] = field(default_factory=list)
    """What went wrong in doing it that is the server's fault (a process not stopping)."""


@dataclass
class Services:
    cluster: RedisCluster
    postgres: LocalPostgres
    apps: list[AppProcess]
    room_keys: Callable[[], list[str]]
    """The Redis keys of every room's state (to find the primary holding most rooms)."""
    said: Callable[[str], None]
    """Where a fault says what it does, as it does it."""


def busiest_primary(services: Services) -> tuple[Port, int]:
    """The primary holding the most rooms, and how many it holds: each room's slot worked out
    here and the slot map read once (asking the cluster about each of a thousand rooms keeps
    this thread busy, taking the interpreter's lock, long enough to stall the players)."""
    cluster = services.cluster
    running = {node.port for node in cluster.running_nodes()}
    owners = [
        entry
        for entry in cluster.view()
        if entry.is_primary and entry.slots and not entry.failing and entry.port in running
    ]
    held: dict[Port, int] = {entry.port: 0 for entry in owners}
    for key in services.room_keys():
        slot = key_slot(key.encode())
        port = next(entry.port for entry in owners if slot in entry.slots)
        held[port] += 1
    port = max(held, key=lambda p: held[p])
    return port, held[port]


def kill_app(services: Services, fault: Fault, durations: Durations) -> None:
    app = services.apps[0]
    fault.detail = f"process {app.index} (port {app.port}) killed, started again after"
    fault.detail += f" {durations.app_down:g} s"
    app.kill()
    time.sleep(durations.app_down)
    app.start()


def rolling_restart(services: Services, fault: Fault, durations: Durations) -> None:
    fault.detail = "SIGTERM to each process in turn, each started again once it exited"
    for app in services.apps:
        code = app.terminate()
        if code != 0:
            fault.problems.append(f"process {app.index} exited {code} on SIGTERM")
        services.said(f"process {app.index} stopped (exit {code}); starting it again")
        app.start()


def kill_primary(services: Services, fault: Fault, durations: Durations) -> None:
    cluster = services.cluster
    port, rooms = busiest_primary(services)
    replica = cluster.fail_over(port)
    services.said(f"port {port} ({rooms} rooms) killed; replica {replica} took over")
    time.sleep(durations.replica_back)
    cluster.restart(port)
    fault.detail = (
        f"port {port} ({rooms} rooms) killed, replica {replica} took over; port {port} back"
        f" as its replica {durations.replica_back:g} s later"
    )


def shard_without_replica(services: Services, fault: Fault, durations: Durations) -> None:
    cluster = services.cluster
    port, rooms = busiest_primary(services)
    replica = cluster.replica_of(port)
    cluster.node(replica).kill()
    cluster.wait_until_ok()
    services.said(f"replica {replica} killed; now its primary {port} ({rooms} rooms)")
    cluster.node(port).kill()
    time.sleep(durations.shard_down)
    cluster.node(port).start()
    cluster.wait_until_ok()
    cluster.restart(replica)
    fault.detail = (
        f"replica {replica} then primary {port} ({rooms} rooms) killed; the primary back"
        f" after {durations.shard_down:g} s, then the replica"
    )


def postgres_down(services: Services, fault: Fault, durations: Durations) -> None:
    fault.detail = f"stopped (fast) for {durations.postgres_down:g} s"
    services.postgres.pause()
    time.sleep(durations.postgres_down)
    services.postgres.resume()


def pause_redis(services: Services, fault: Fault, durations: Durations) -> None:
    port, rooms = busiest_primary(services)
    fault.detail = f"CLIENT PAUSE {durations.pause:g} s on primary {port} ({rooms} rooms)"
    with services.cluster.node(port).client() as client:
        client.execute_command("CLIENT", "PAUSE", int(durations.pause * 1000), "ALL")
    time.sleep(durations.pause)

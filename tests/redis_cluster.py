"""A real Redis Cluster on loopback ports: three primaries with a replica each, for tests and bench.

Each node is a ``redis-server --cluster-enabled yes`` process in a directory of its own, with
nothing persisted but the cluster's own ``nodes.conf`` (so a killed node can come back and rejoin
as a replica). ``cluster-node-timeout`` is short so that a failover takes seconds, not minutes.

    python -m tests.redis_cluster        # start one, print a node's URL, run until interrupted

The helpers are what failover and resharding tests need: which primary holds a key's slot, kill -9
of a primary and waiting for its replica to take over, restarting a killed node, and moving one
chosen slot to another primary with a pause in the middle. They block (they poll the nodes until
the cluster agrees), so an asyncio test calls them through ``asyncio.to_thread``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import redis

from tests.ports import HOST, PortPicker, worker_slice

SLOTS = 16384
BUS_PORT_OFFSET = 10000
"""Each node also listens on its port + 10000 for the cluster bus."""
SETTLE_SECONDS = 30.0
"""The longest a helper waits for the cluster to agree again (a failover takes 2-4 s)."""

Port = int
NodeId = str


def cluster_tools_problem() -> str | None:
    """None when redis-server and redis-cli (Redis 7 or later, for sharded pub/sub) are here,
    else what is missing."""
    missing = [tool for tool in ("redis-server", "redis-cli") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found (Debian: apt-get install redis-server)"
    version = subprocess.run(
        ["redis-server", "--version"], capture_output=True, text=True, check=False
    ).stdout
    major = version.split(" v=", 1)[-1].split(".", 1)[0]
    if not major.isdigit() or int(major) < 7:
        return f"Redis 7 or later is needed for sharded pub/sub, found: {version.strip()}"
    return None


@dataclass(frozen=True)
class NodeEntry:
    """One line of ``CLUSTER NODES``: how one node sees another (or itself)."""

    node_id: NodeId
    port: Port
    flags: frozenset[str]
    primary_id: NodeId | None
    """For a replica, the primary it follows."""
    slots: frozenset[int]
    """Slots this node owns (importing and migrating marks left out)."""

    @property
    def is_primary(self) -> bool:
        return "master" in self.flags

    @property
    def failing(self) -> bool:
        return bool(self.flags & {"fail", "fail?", "handshake", "noaddr"})


def parse_cluster_nodes(text: str) -> list[NodeEntry]:
    """``CLUSTER NODES`` as entries (the format is in Redis's documentation of the command)."""
    entries = []
    for line in text.splitlines():
        if not line.strip():
            continue
        node_id, address, flags, primary, _ping, _pong, _epoch, _link, *slot_fields = line.split()
        port = int(address.split("@", 1)[0].rsplit(":", 1)[1] or 0)
        slots: set[int] = set()
        for slot_field in slot_fields:
            if slot_field.startswith("["):
                continue
            first, _, last = slot_field.partition("-")
            slots.update(range(int(first), int(last or first) + 1))
        entries.append(
            NodeEntry(
                node_id=node_id,
                port=port,
                flags=frozenset(flags.split(",")),
                primary_id=None if primary == "-" else primary,
                slots=frozenset(slots),
            )
        )
    return entries


_node_ports = PortPicker(worker_slice(20000, 30000), also=(BUS_PORT_OFFSET,))
"""Node ports below the kernel's ephemeral range, so that no outgoing connection grabs one
meanwhile, and each pytest-xdist worker's own (``tests/ports.py``)."""


def free_node_ports(count: int) -> list[Port]:
    """``count`` ports whose cluster bus port (+10000) is free too."""
    return [_node_ports.take() for _ in range(count)]


@dataclass
class Node:
    """One ``redis-server`` of the cluster, running or killed."""

    port: Port
    directory: Path
    node_timeout_ms: int
    persistent: bool = False
    """Whether the node keeps its data in an append-only file (written before each reply,
    flushed to disk every second), so that a node killed and started again comes back with
    it; without, it comes back empty."""
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process (in its directory, so a restart finds its ``nodes.conf``) and wait
        until it answers."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port", str(self.port),
                "--bind", HOST,
                "--dir", str(self.directory),
                "--logfile", "redis.log",
                "--daemonize", "no",
                "--save", "",
                "--appendonly", "yes" if self.persistent else "no",
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(self.node_timeout_ms),
                # A replica takes over however long it was cut off: tests kill nodes on purpose.
                "--cluster-replica-validity-factor", "0",
                # A (re)joining replica syncs at once instead of waiting 5 s for others to join.
                "--repl-diskless-sync-delay", "0",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + SETTLE_SECONDS
        while True:
            if not self.running:
                raise RuntimeError(f"redis-server on port {self.port} exited:\n{self.log_tail()}")
            with contextlib.suppress(redis.RedisError), self.client() as client:
                if client.ping():
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"redis-server on port {self.port} does not answer")
            time.sleep(0.05)

    def kill(self) -> None:
        """kill -9: no chance to tell anyone, as when a machine dies."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def client(self) -> redis.Redis:
        return redis.Redis(host=HOST, port=self.port, decode_responses=True, socket_timeout=5)

    def log_tail(self, lines: int = 20) -> str:
        log = self.directory / "redis.log"
        if not log.exists():
            return "(no log)"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@dataclass
class RedisCluster:
    """Six nodes: three primaries with a replica each. Use as a context manager, or call
    ``start`` and ``stop``."""

    node_timeout_ms: int = 1000
    persistent: bool = False
    """Each node's ``Node.persistent``."""
    nodes: list[Node] = field(default_factory=list)
    root: Path | None = None

    def __enter__(self) -> RedisCluster:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The URL of a running node; a cluster client finds every other node from it."""
        return self.running_nodes()[0].url

    def start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="redis-cluster-"))
        try:
            for port in free_node_ports(6):
                node = Node(port, self.root / str(port), self.node_timeout_ms, self.persistent)
                self.nodes.append(node)
                node.start()
            created = subprocess.run(
                [
                    "redis-cli",
                    "--cluster",
                    "create",
                    *(f"{HOST}:{node.port}" for node in self.nodes),
                    "--cluster-replicas",
                    "1",
                    "--cluster-yes",
                ],
                capture_output=True,
                text=True,
                timeout=SETTLE_SECONDS,
                check=False,
            )
            if created.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed:\n{created.stdout}")
            self.wait_until_ok(replicas_linked=True)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Kill every node and remove their directories."""
        for node in self.nodes:
            node.kill()
        self.nodes.clear()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def node(self, port: Port) -> Node:
        return next(node for node in self.nodes if node.port == port)

    def running_nodes(self) -> list[Node]:
        return [node for node in self.nodes if node.running]

    def view(self, port: Port | None = None) -> list[NodeEntry]:
        """``CLUSTER NODES`` as one running node (the first, unless ``port``) sees it."""
        node = self.node(port) if port is not None else self.running_nodes()[0]
        with node.client() as client:
            return parse_cluster_nodes(client.execute_command("CLUSTER", "NODES"))

    def node_id(self, port: Port) -> NodeId:
        with self.node(port).client() as client:
            node_id: NodeId = client.execute_command("CLUSTER", "MYID")
            return node_id

    def primaries(self) -> list[Port]:
        """The ports of the running primaries that own slots."""
        running = {node.port for node in self.running_nodes()}
        return sorted(
            entry.port
            for entry in self.view()
            if entry.is_primary and entry.slots and entry.port in running
        )

    def replica_of(self, primary: Port, *, seconds: float = 10.0) -> Port:
        """The port of a running replica that follows ``primary``, as ``primary`` sees it. A
        node just restarted may still be marked failing there for a moment: asked again
        until ``seconds`` pass."""
        primary_id = self.node_id(primary)
        deadline = time.monotonic() + seconds
        while True:
            running = {node.port for node in self.running_nodes()}
            for entry in self.view(primary):
                if entry.primary_id == primary_id and entry.port in running and not entry.failing:
                    return entry.port
            if time.monotonic() >= deadline:
                raise LookupError(f"no running replica follows port {primary}")
            time.sleep(0.1)

    def keyslot(self, key: str) -> int:
        with self.running_nodes()[0].client() as client:
            slot: int = client.execute_command("CLUSTER", "KEYSLOT", key)
            return slot

    def primary_of_slot(self, slot: int) -> Port:
        for entry in self.view():
            if entry.is_primary and slot in entry.slots and not entry.failing:
                return entry.port
        raise LookupError(f"no primary owns slot {slot}")

    def primary_of_key(self, key: str) -> Port:
        """The port of the primary that holds ``key`` (its hash tag's slot, if it has one)."""
        return self.primary_of_slot(self.keyslot(key))

    def wait_until_ok(
        self, *, replicas_linked: bool = False, also: Callable[[], str] | None = None
    ) -> None:
        """Until every running node says ``cluster_state:ok``, they all agree that running
        primaries own every slot, (``replicas_linked``) every running replica is in sync, and
        ``also`` (a problem, or "") has nothing more to say."""
        deadline = time.monotonic() + SETTLE_SECONDS
        problem = "not yet asked"
        while True:
            with contextlib.suppress(redis.RedisError):
                problem = self._problem(replicas_linked=replicas_linked)
                if problem == "" and also is not None:
                    problem = also()
                if problem == "":
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster did not settle: {problem}")
            time.sleep(0.05)

    def _problem(self, *, replicas_linked: bool) -> str:
        """What keeps the cluster from being settled; "" once it is."""
        running = self.running_nodes()
        running_ports = {node.port for node in running}
        owners_seen: set[tuple[tuple[int, NodeId], ...]] = set()
        for node in running:
            with node.client() as client:
                info = client.execute_command("CLUSTER", "INFO")
                if "cluster_state:ok" not in info:
                    return f"port {node.port}: cluster state is not ok"
                owners: dict[int, NodeId] = {}
                for entry in parse_cluster_nodes(client.execute_command("CLUSTER", "NODES")):
                    if entry.port in running_ports and entry.failing:
                        return f"port {node.port}: port {entry.port} still looks failed"
                    if not entry.is_primary or not entry.slots:
                        continue
                    if entry.port not in running_ports or entry.failing:
                        return f"port {node.port}: slots still owned by port {entry.port}"
                    owners.update(dict.fromkeys(entry.slots, entry.node_id))
                if len(owners) != SLOTS:
                    return f"port {node.port}: {SLOTS - len(owners)} slots without a primary"
                owners_seen.add(tuple(sorted(owners.items())))
                if replicas_linked:
                    replication = client.info("replication")
                    if (
                        replication["role"] == "slave"
                        and replication.get("master_link_status") != "up"
                    ):
                        return f"port {node.port}: replica not in sync"
        if len(owners_seen) != 1:
            return "the nodes do not agree on which primary owns which slot"
        return ""

    def fail_over(self, primary: Port) -> Port:
        """kill -9 ``primary``, wait until its replica has taken its slots and the cluster is ok
        again; returns the new primary's port."""
        replica = self.replica_of(primary)
        self.node(primary).kill()
        self.wait_until_ok()
        if replica not in self.primaries():
            raise AssertionError(f"port {replica} did not take over from port {primary}")
        return replica

    def restart(self, port: Port) -> None:
        """Start a killed node again; it finds it has been replaced and rejoins as a replica.
        Returns once it is in sync with its primary and every node sees the cluster ok."""
        node = self.node(port)
        if node.running:
            raise ValueError(f"port {port} is running")
        node.start()

        def not_yet_a_replica() -> str:
            with node.client() as client:
                role = client.info("replication")["role"]
            return "" if role == "slave" else f"port {port} is still a {role}"

        self.wait_until_ok(replicas_linked=True, also=not_yet_a_replica)

    def heal(self) -> None:
        """Restart every killed node and finish any slot move left half done, so that the next
        test starts on three primaries with a replica each and every key where its slot is."""
        for node in self.nodes:
            if not node.running:
                self.restart(node.port)
        ports = {entry.node_id: entry.port for entry in self.view()}
        for port in self.primaries():
            for slot, migrating, other in self._slot_marks(port):
                if migrating:
                    target = ports[other]
                    SlotMove(self, slot, port, target, self.node_id(port), other).finish()
        for port in self.primaries():
            for slot, _, _ in self._slot_marks(port):
                # Importing from a source that never started migrating: nothing arrived.
                with self.node(port).client() as client:
                    client.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        self.wait_until_ok(replicas_linked=True)

    def _slot_marks(self, port: Port) -> list[tuple[int, bool, NodeId]]:
        """The slots a primary is migrating (True) to, or importing (False) from, another node:
        ``[slot->-id]`` and ``[slot-<-id]`` on its own line of ``CLUSTER NODES``."""
        with self.node(port).client() as client:
            lines = client.execute_command("CLUSTER", "NODES").splitlines()
        own = next(line.split() for line in lines if "myself" in line.split()[2])
        marks = []
        for mark in own[8:]:
            if not mark.startswith("["):
                continue
            migrating = "->-" in mark
            slot, other = mark.strip("[]").split("->-" if migrating else "-<-")
            marks.append((int(slot), migrating, other))
        return marks

    def begin_slot_move(self, slot: int, target: Port) -> SlotMove:
        """Start moving ``slot`` from its primary to the primary ``target``: the target imports,
        the source migrates (the first two steps of Redis's documented resharding sequence).
        Until ``SlotMove.finish``, the slot is half moved and clients meet ``ASK`` redirects."""
        source = self.primary_of_slot(slot)
        if source == target:
            raise ValueError(f"port {target} already owns slot {slot}")
        move = SlotMove(self, slot, source, target, self.node_id(source), self.node_id(target))
        with self.node(target).client() as client:
            client.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", move.source_id)
        with self.node(source).client() as client:
            client.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", move.target_id)
        return move

    def move_slot(self, slot: int, target: Port) -> None:
        """Move ``slot`` and all its keys to the primary ``target``, start to end."""
        move = self.begin_slot_move(slot, target)
        move.migrate()
        move.finish()


@dataclass
class SlotMove:
    """One slot on its way from one primary to another."""

    cluster: RedisCluster
    slot: int
    source: Port
    target: Port
    source_id: NodeId
    target_id: NodeId

    def keys_left(self) -> list[str]:
        with self.cluster.node(self.source).client() as client:
            keys: list[str] = client.execute_command("CLUSTER", "GETKEYSINSLOT", self.slot, 1000)
            return keys

    def migrate(self, limit: int | None = None, *, batch: int = 10) -> int:
        """MIGRATE the slot's keys (at most ``limit``) from the source to the target in batches;
        returns how many were moved."""
        moved = 0
        with self.cluster.node(self.source).client() as client:
            while limit is None or moved < limit:
                size = batch if limit is None else min(batch, limit - moved)
                keys = client.execute_command("CLUSTER", "GETKEYSINSLOT", self.slot, size)
                if not keys:
                    break
                client.execute_command(
                    "MIGRATE", HOST, self.target, "", 0, 5000, "KEYS", *keys
                )  # fmt: skip
                moved += len(keys)
        return moved

    def finish(self) -> None:
        """Move any keys left, then give the slot to the target: on the target first, then the
        source, then every other primary (the order Redis's documentation asks for)."""
        self.migrate()
        others = [
            port for port in self.cluster.primaries() if port not in (self.source, self.target)
        ]
        for port in (self.target, self.source, *others):
            with self.cluster.node(port).client() as client:
                client.execute_command("CLUSTER", "SETSLOT", self.slot, "NODE", self.target_id)
        self.cluster.wait_until_ok()
        if self.cluster.primary_of_slot(self.slot) != self.target:
            raise AssertionError(f"slot {self.slot} did not move to port {self.target}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--node-timeout", type=int, default=1000, help="cluster-node-timeout in milliseconds"
    )
    args = parser.parse_args(argv)
    # SIGTERM ends the run as Ctrl-C does: through the same tear-down.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with (
        contextlib.suppress(KeyboardInterrupt),
        RedisCluster(node_timeout_ms=args.node_timeout) as cluster,
    ):
        sys.stdout.write(f"{cluster.url}\n")
        sys.stdout.flush()
        signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())

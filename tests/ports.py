"""Loopback ports for the tests' own servers, never the same for two pytest-xdist workers.

Each worker (``PYTEST_XDIST_WORKER``: gw0, gw1, …) picks from its own slice of a range below
the kernel's ephemeral ports (32768 and up on Linux), so that neither another worker nor an
outgoing connection takes a port between the choice and the bind. Within its slice a process
hands ports out in turn from a random start, each checked free first, so it never hands out
the same port twice before the slice wraps around (two servers started together get two).
"""

from __future__ import annotations

import os
import random
import socket

HOST = "127.0.0.1"


def worker_slice(low: int, high: int) -> range:
    """This worker's share of the ports ``low`` to ``high`` (all of them outside xdist)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return range(low, high)
    count = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    index = int(worker.removeprefix("gw")) % count
    size = (high - low) // count
    return range(low + index * size, low + (index + 1) * size)


def port_is_free(port: int) -> bool:
    """Whether a listener could bind ``port`` now (without SO_REUSEADDR: a port still in
    TIME_WAIT counts as taken)."""
    with socket.socket() as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


class PortPicker:
    """Hands out free ports of ``ports`` in turn; ``also`` are offsets that must be free too
    (a Redis Cluster node's bus listens on its port + 10000)."""

    def __init__(self, ports: range, *, also: tuple[int, ...] = ()) -> None:
        self.ports = ports
        self.also = also
        self._next = random.randrange(len(ports))

    def take(self) -> int:
        for _ in range(len(self.ports)):
            port = self.ports[self._next % len(self.ports)]
            self._next += 1
            if all(port_is_free(port + offset) for offset in (0, *self.also)):
                return port
        raise RuntimeError(f"no free port in {self.ports}")


_servers = PortPicker(worker_slice(10000, 20000))


def free_port() -> int:
    """A free loopback port for a server this test starts."""
    return _servers.take()

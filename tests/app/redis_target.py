"""Where a test's rooms live: the test Redis, or the local Redis Cluster (``redis_target``).

Kept out of ``conftest.py``: pytest loads a conftest under a module name of its own, so a class
defined there would be a different class from the one a test module imports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.store.redis import RedisRoomStore
from tests.redis_cluster import RedisCluster


@dataclass(frozen=True)
class RedisTarget:
    """A Redis node or cluster, and the key prefix of one test on it."""

    url: str
    prefix: str
    cluster: RedisCluster | None = None
    """The cluster, for tests that fail its nodes over or move its slots."""

    @property
    def settings(self) -> dict[str, Any]:
        """The settings that put a server's rooms here (``base_settings(**target.settings)``)."""
        return {
            "redis_url": self.url,
            "redis_prefix": self.prefix,
            "redis_cluster": self.cluster is not None,
        }

    def env(self) -> dict[str, str]:
        """The same settings as a server process's ``CASH_STASH_*`` variables."""
        return {
            f"CASH_STASH_{name.upper()}": str(value).lower() if isinstance(value, bool) else value
            for name, value in self.settings.items()
        }

    def store(self) -> RedisRoomStore:
        return RedisRoomStore(self.url, prefix=self.prefix, cluster=self.cluster is not None)

    def room_key(self, code: str) -> str:
        """The key of a room's state: its code is the hash tag every key of the room shares."""
        return f"{self.prefix}{{{code}}}:room"

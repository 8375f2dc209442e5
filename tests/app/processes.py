"""Real ``cash-stash serve`` processes on loopback ports, for tests that signal or kill them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from app.db.migrate import upgrade
from tests.app.conftest import REDIS_URL
from tests.app.live import WAIT, Endpoint, free_port
from tests.app.redis_target import RedisTarget


@dataclass
class ServerProcess:
    """One server process and everything it has logged so far."""

    process: subprocess.Popen[str]
    endpoint: Endpoint
    log: list[str] = field(default_factory=list)

    @property
    def logged(self) -> str:
        return "".join(self.log)

    def terminate(self) -> None:
        self.process.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(WAIT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(WAIT)


def server_env(redis: str | RedisTarget, database: Path, **settings: str) -> dict[str, str]:
    """The environment of a server on ``redis`` (a key prefix on the test Redis, or a target);
    ``settings`` as ``CASH_STASH_*`` values."""
    target = redis if isinstance(redis, RedisTarget) else RedisTarget(REDIS_URL, redis)
    return {
        **os.environ,
        **target.env(),
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "CASH_STASH_WS_MESSAGES_PER_SECOND": "1000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_PER_SECOND": "1000000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_BURST": "1000000",
        "CASH_STASH_JOIN_LIMIT": "1000",
        "CASH_STASH_CREATE_LIMIT": "1000",
        "CASH_STASH_REQUEST_RATE_PER_SECOND": "10000",
        "CASH_STASH_REQUEST_BURST": "10000",
        "CASH_STASH_LOBBY_CACHE_MS": "0",
        "CASH_STASH_DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        **{f"CASH_STASH_{name.upper()}": value for name, value in settings.items()},
    }


def migrated_database(path: Path) -> Path:
    """A SQLite file with the schema in place, for servers that record finished games."""
    upgrade(f"sqlite+aiosqlite:///{path}")
    return path


def start_servers(env: dict[str, str], count: int) -> list[ServerProcess]:
    """``count`` processes, each serving once this returns (all stopped if one fails)."""
    command = Path(sys.executable).parent / "cash-stash"
    servers: list[ServerProcess] = []
    for _ in range(count):
        port = free_port()
        process = subprocess.Popen(
            [command, "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        servers.append(ServerProcess(process, Endpoint(port)))
    try:
        for server in servers:
            _wait_until_serving(server)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


@contextlib.contextmanager
def running_servers(env: dict[str, str], count: int) -> Iterator[list[ServerProcess]]:
    """``start_servers``, stopped again afterwards (a fixture's whole life)."""
    servers = start_servers(env, count)
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()


def _wait_until_serving(server: ServerProcess) -> None:
    """Read the server's log until it says it is listening (uvicorn binds its socket after
    the application's startup); then keep collecting it."""
    stderr = server.process.stderr
    assert stderr is not None
    for line in stderr:
        server.log.append(line)
        if "Uvicorn running on" in line:
            threading.Thread(target=lambda: server.log.extend(stderr), daemon=True).start()
            return
    raise AssertionError("the server exited:\n" + server.logged)

"""The chaos soak's own services: a Postgres in a scratch directory, and game server processes
that can be killed, stopped and started again on their port, their log lines timed as read.

Used by ``bench/chaos.py``; the Redis Cluster is ``tests/redis_cluster.py``'s."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.ports import free_port as free_loopback_port

HOST = "127.0.0.1"
EXIT_SECONDS = 15.0
"""How long a process told to stop (SIGTERM) may take before the soak calls it a failure."""


def free_port() -> int:
    """A free port below the kernel's ephemeral range: a process killed here is started again
    on the same port, which an outgoing connection must not take meanwhile (and, in the test
    suite, a port no other pytest-xdist worker hands out)."""
    return free_loopback_port()


def postgres_bindir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are: ``pg_config --bindir``, else Debian's layout."""
    if shutil.which("pg_config"):
        found = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found and (Path(found) / "initdb").exists():
            return Path(found)
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


def postgres_problem() -> str | None:
    """None when a Postgres of the soak's own can be started here, else what is missing."""
    if postgres_bindir() is None:
        return "initdb and pg_ctl not found (Debian: apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root, and runuser (to run initdb as another user) is missing"
    return None


@dataclass
class LocalPostgres:
    """A Postgres cluster of the soak's own in a scratch directory, on a free loopback port;
    stopped and started again by the Postgres fault. Postgres refuses to run as root: as root,
    its commands run as the ``postgres`` user."""

    port: int = 0
    root: Path | None = None

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@{HOST}:{self.port}/chaos"

    def _run(self, *command: str) -> None:
        bindir = postgres_bindir()
        assert bindir is not None
        argv = [str(bindir / command[0]), *command[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="chaos-postgres-"))
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self.port = free_port()
        data = str(self.root / "data")
        self._run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.resume()
        self._run("createdb", "-h", HOST, "-p", str(self.port), "-U", "postgres", "chaos")

    def resume(self) -> None:
        """Start the server (again) and return once it accepts connections."""
        assert self.root is not None
        options = f"-p {self.port} -k {self.root} -c listen_addresses={HOST} -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.root / "data"), "-l", str(self.root / "log"),
            "-o", options, "-w", "start",
        )  # fmt: skip

    def pause(self) -> None:
        """Stop the server (fast: open connections are cut, as in an outage)."""
        assert self.root is not None
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        if self.root is None:
            return
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.pause()
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None


@dataclass(frozen=True, slots=True)
class LogLine:
    at: float
    """``time.monotonic()`` when the soak read it."""
    process: int
    text: str


STARTED = "Application startup complete"


@dataclass
class AppProcess:
    """One ``cash-stash serve`` on a port of its own, started again on the same port after a
    fault; every line it logs goes to the shared ``log``, with when it was read."""

    index: int
    port: int
    env: Mapping[str, str]
    log: list[LogLine]
    process: subprocess.Popen[str] | None = None
    up: bool = False
    """Whether clients should connect here now (false from the moment a fault hits it)."""
    exits: list[int] = field(default_factory=list)
    """The exit code of each run that ended."""

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, seconds: float = 60.0) -> None:
        command = [str(Path(sys.executable).parent / "cash-stash"), "serve", "--port"]
        process = subprocess.Popen(
            [*command, str(self.port)],
            env=dict(self.env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        stderr = process.stderr
        started = threading.Event()

        def read() -> None:
            for line in stderr:
                self.log.append(LogLine(time.monotonic(), self.index, line.rstrip("\n")))
                if STARTED in line:
                    started.set()

        threading.Thread(target=read, daemon=True).start()
        self.process = process
        if not started.wait(seconds) or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"server {self.index} did not start on port {self.port}")
        self.up = True

    def kill(self) -> None:
        """kill -9: no chance to close a connection or finish a write."""
        self.up = False
        assert self.process is not None
        self.process.kill()
        self.exits.append(self.process.wait())

    def terminate(self) -> int:
        """SIGTERM, as a deploy stops a process; its exit code (the process is killed, and the
        code is -9, if it outlives ``EXIT_SECONDS``)."""
        self.up = False
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.exits.append(code)
        return code

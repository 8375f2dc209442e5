"""A ``cash-stash serve`` process for a benchmark: started, waited for, its log kept drained.

Imported as ``bench.servers`` (a bench run as a script puts the repository's root on its path
first)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

CORES = sorted(os.sched_getaffinity(0))
"""The cores this run may use, read before it pins itself to one of them (a child inherits
its parent's affinity, so asking again after pinning would find a single core)."""


def pin(pid: int, core: int) -> None:
    """Pin a process (its threads to come, too) to one of ``CORES``, and check it held."""
    if len(CORES) > 1:
        wanted = {CORES[core % len(CORES)]}
        os.sched_setaffinity(pid, wanted)
        if os.sched_getaffinity(pid) != wanted:
            raise SystemExit(f"could not pin process {pid} to core {wanted}")


def wait_for_line(process: subprocess.Popen[str], text: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if text in line:
            return
    raise SystemExit(f"a server did not start (exit {process.wait()})")


def progress(text: str) -> None:
    """A line on stderr saying what the run is doing now (setting up 4,000 seats takes a while)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


STARTED = "Application startup complete"
"""What uvicorn logs once the application has started and the port is open."""


def serve(
    env: Mapping[str, str], port: int, *, log: list[str] | None = None, seconds: float = 60.0
) -> subprocess.Popen[str]:
    """Start the game server on ``port`` with ``env`` and return once it serves. Its log goes
    on being read on a thread (a full pipe would block the server), into ``log`` if given; a
    server that exits or has not started within ``seconds`` stops the bench, with what it
    logged."""
    command = [str(Path(sys.executable).parent / "cash-stash"), "serve", "--port", str(port)]
    process = subprocess.Popen(
        command, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    stderr = process.stderr
    lines: list[str] = [] if log is None else log
    deadline = time.monotonic() + seconds
    for line in stderr:
        lines.append(line)
        if STARTED in line:
            threading.Thread(target=lambda: lines.extend(stderr), daemon=True).start()
            return process
        if time.monotonic() > deadline:
            break
    process.kill()
    raise SystemExit(f"a server did not start on port {port}:\n" + "".join(lines))

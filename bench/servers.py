"""A ``cash-stash serve`` process for a benchmark: started, waited for, its log kept drained.

Imported as ``bench.servers`` (a bench run as a script puts the repository's root on its path
first)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

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

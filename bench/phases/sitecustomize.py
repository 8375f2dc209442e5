"""Where a move's CPU goes, timed inside the serving process (``bench/load.py --phases``).

Python imports this module at start-up when its folder is on ``PYTHONPATH``; it does nothing
unless ``CASH_STASH_BENCH_PHASES`` names a file. Then it wraps each function of ``PHASES`` with
a clock (``perf_counter_ns``, about 0.3 µs a call), times every collection of the garbage
collector, and on ``SIGUSR1`` writes the running totals, with the process's CPU time, to
``<file>.<pid>`` as one JSON object. The bench reads them before and after each step.

A sampling profiler with native frames stops the process at every sample, which inflated
the collector and the C calls several times; these clocks run only in the functions named,
on the event loop's thread, where everything a move does runs, so their time is CPU time
(nothing in them waits). The functions are the server's internals: when one is renamed,
the server fails to start under ``--phases`` and says which.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_UVICORN = "uvicorn.protocols.websockets.websockets_sansio_impl:WebSocketsSansIOProtocol"

PHASES: list[tuple[str, str]] = [
    ("frames read (uvicorn, websockets)", f"{_UVICORN}.data_received"),
    ("keepalive pings sent", f"{_UVICORN}.send_keepalive_ping"),
    ("act checked (pydantic)", "app.ws.messages:client_message.validate_python"),
    ("move applied", "app.rooms.play:Move.apply"),
    ("  the engine's move", "engine:apply_action"),
    ("  the room copied", "app.rooms.model:Room.clone_for_move"),
    ("commands written to Redis", "app.resp.connection:RespConnection.call"),
    ("Redis replies read", "app.resp.connection:RespConnection.data_received"),
    ("announcements parsed", "app.store.channels:parse_event"),
    ("game index told", "app.matchmaking.live:GameIndex.committed"),
    ("states rendered and sent", "app.ws.hub:Hub._fan_out"),
    ("  rendered", "app.ws.connection:Connection._render"),
    ("    the engine's views", "engine:views_for"),
    ("    the engine's legal actions", "engine:legal_actions"),
    ("    the engine's blocked actions", "engine:blocked_for"),
    ("  sent (compressed, framed, written)", "app.transport.websocket:SendNowProtocol.send_now"),
    ("    compressed", "app.transport.deflate:SharedCompression.deflated"),
]
"""(Label, ``module:attribute.path``): a label's indent says it runs inside the one above."""

COUNTED: list[tuple[str, str]] = [
    ("own commit announced before its answer", "app.ws.hub:Hub._after_answer"),
    ("scheduler poked", "app.rooms.scheduler:Scheduler.poke"),
    ("scheduler's looks for due rooms", "app.store.redis:RedisRoomStore.due"),
    ("tasks created", "asyncio:create_task"),
]
"""Functions whose calls are only counted, not timed (coroutine functions among them, whose
call only makes the coroutine)."""

COLLECTOR = "garbage collector"

_totals: dict[str, list[int]] = {}
_written = 0


def _wrap(label: str, target: str, *, timed_too: bool = True) -> None:
    module_name, _, path = target.partition(":")
    *owner_path, name = path.split(".")
    owner: Any = importlib.import_module(module_name)
    for part in owner_path:
        owner = getattr(owner, part)
    function = getattr(owner, name)
    total = _totals.setdefault(label, [0, 0])
    clock = time.perf_counter_ns

    def counted(*args: Any, **kwargs: Any) -> Any:
        total[1] += 1
        return function(*args, **kwargs)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += clock() - started
            total[1] += 1

    setattr(owner, name, timed if timed_too else counted)


def _collector() -> Callable[[str, dict[str, Any]], None]:
    total = _totals.setdefault(COLLECTOR, [0, 0])
    started = [0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter_ns()
        else:
            total[0] += time.perf_counter_ns() - started[0]
            total[1] += 1

    return timed


def _write(path: str) -> None:
    global _written
    _written += 1
    totals = {"written": _written, "cpu_ns": time.process_time_ns(), "phases": _totals}
    mine = f"{path}.{os.getpid()}"  # the processes of one run share the environment
    written = Path(mine + ".part")
    written.write_text(json.dumps(totals))
    written.replace(mine)


def install(path: str) -> None:
    for label, target in PHASES:
        _wrap(label, target)
    for label, target in COUNTED:
        _wrap(label, target, timed_too=False)
    gc.callbacks.append(_collector())
    signal.signal(signal.SIGUSR1, lambda number, frame: _write(path))


if os.environ.get("CASH_STASH_BENCH_PHASES"):
    install(os.environ["CASH_STASH_BENCH_PHASES"])

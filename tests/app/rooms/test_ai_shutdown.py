"""Issue 30, point 7: after SIGTERM, a server whose AI pool is busy leaves no process behind
(the forkserver, the workers and the resource tracker stop with it)."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from pathlib import Path

from tests.app.live import WAIT, Client, bearer, connect_client, create_room, play_out
from tests.app.processes import ServerProcess, running_servers, server_env

ROOMS = 3


def children() -> dict[int, list[int]]:
    """Every live process's children, by parent id (``/proc``)."""
    tree: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if fields[0] != "Z":
            tree.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return tree


def descendants(pid: int) -> set[int]:
    tree = children()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has stopped: only its exit status is left)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.add(pid)
    return running


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


async def start_ai_rooms(server: ServerProcess) -> list[Client]:
    """Rooms of three Hard AI seats and one person, who stays (a table nobody sits at has its
    AI stopped) and is returned connected."""
    clients = []
    async with server.endpoint.http() as http:
        for _ in range(ROOMS):
            code, host = await create_room(http, seats=4)
            for _ in range(3):
                added = await http.post(
                    f"/api/rooms/{code}/bots", json={"level": "hard"}, headers=bearer(host)
                )
                assert added.status_code == 201, added.text
            started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
            assert started.status_code == 200, started.text
            client = await connect_client(server.endpoint, code, host)
            await client.wait_for("state")
            clients.append(client)
    return clients


async def busy_workers(server: ServerProcess) -> set[int]:
    """The server's descendant processes, once some of them are using CPU (deciding)."""
    deadline = time.monotonic() + WAIT
    while True:
        before = {pid: cpu_ticks(pid) for pid in alive(descendants(server.process.pid))}
        await asyncio.sleep(0.2)
        working = [pid for pid in alive(set(before)) if cpu_ticks(pid) > before[pid]]
        if working:
            return alive(descendants(server.process.pid))
        assert time.monotonic() < deadline, "no AI worker ever got busy"


async def test_sigterm_with_a_busy_ai_pool_leaves_no_process_behind(tmp_path: Path) -> None:
    env = server_env(
        "unused:",
        tmp_path / "games.db",
        ai_workers="2",
        disconnect_grace_seconds="0",
        shutdown_seconds="2",
    )
    del env["CASH_STASH_REDIS_URL"]
    with running_servers(env, 1) as (server,):
        clients = await start_ai_rooms(server)
        # Each person plays their turns at once, so the AI's turns come.
        people = [
            asyncio.create_task(play_out(client, 0, random.Random(index)))
            for index, client in enumerate(clients)
        ]
        spawned = await busy_workers(server)
        assert len(spawned) >= 3, "a forkserver and two workers at least"
        server.terminate()
        server.process.wait(WAIT)
        for person in people:
            person.cancel()
        await asyncio.gather(*people, return_exceptions=True)
        for _ in range(int(WAIT / 0.1)):  # the last ones may be a moment behind it
            if not alive(spawned):
                break
            await asyncio.sleep(0.1)
        assert not alive(spawned), (
            f"left running after the server exited: {sorted(alive(spawned))}\n{server.logged}"
        )


def test_a_process_pool_keeps_its_workers_where_aclose_finds_them() -> None:
    """``AiRunner.aclose`` terminates the workers it finds in ``ProcessPoolExecutor._processes``
    (no public API lists them before Python 3.14): this fails if CPython moves them."""
    executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"))
    try:
        assert executor.submit(abs, -1).result(timeout=WAIT) == 1
        workers = list(executor._processes.values())
        assert workers, "the pool's workers are no longer in _processes"
        assert all(isinstance(worker, BaseProcess) and worker.is_alive() for worker in workers)
    finally:
        executor.shutdown()

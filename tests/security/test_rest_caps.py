"""Issue 22, probe 6 over HTTP: room creation per address, the ceiling on waiting rooms and
their idle expiry, a paged room list; and the client address only a trusted proxy may name."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable

import httpx
import pytest
import redis
from websockets.sync.client import connect

from tests.app.conftest import REDIS_URL
from tests.app.live import WAIT
from tests.app.processes import ServerProcess
from tests.security.conftest import Serve


def create(http: httpx.Client, **fields: object) -> httpx.Response:
    return http.post("/api/rooms", json={"name": "Ann", **fields})


def present(stack: contextlib.ExitStack, server: ServerProcess, created: httpx.Response) -> str:
    """Connect the room's host for as long as ``stack`` lasts (a room is listed only while
    someone is in it); the room's code."""
    body = created.json()
    ws = stack.enter_context(
        connect(f"ws://127.0.0.1:{server.endpoint.port}/ws/{body['code']}", open_timeout=WAIT)
    )
    ws.send(json.dumps({"type": "hello", "token": body["token"]}))
    ws.recv(WAIT)  # sent once the host's arrival is committed
    code: str = body["code"]
    return code


def test_one_address_creates_a_few_rooms_a_minute(serve: Serve) -> None:
    server = serve(create_limit="3")
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http:
        statuses = [create(http).status_code for _ in range(5)]
        refused = create(http)
    assert statuses == [201, 201, 201, 429, 429]
    assert refused.json()["code"] == "too_many_rooms_created"
    assert refused.headers["retry-after"] == "60"


def test_rooms_waiting_to_start_have_a_ceiling(serve: Serve) -> None:
    server = serve(max_waiting_rooms="2")
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http:
        first = create(http, seats=2).json()
        assert create(http).status_code == 201
        full = create(http)
        assert full.status_code == 429 and full.json()["code"] == "too_many_rooms"
        # A room that starts no longer waits: there is room for one more.
        headers = {"Authorization": f"Bearer {first['token']}"}
        assert http.post(f"/api/rooms/{first['code']}/bots", headers=headers, json={}).is_success
        assert http.post(f"/api/rooms/{first['code']}/start", headers=headers).is_success
        assert create(http).status_code == 201


def test_an_idle_waiting_room_expires_and_frees_its_place(serve: Serve) -> None:
    # Long enough for the host to connect and say hello under a loaded run of the suite (at 1
    # s the room once expired before its host's hello), short enough to wait for.
    server = serve(max_waiting_rooms="1", waiting_room_ttl_seconds="4")
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http:
        with contextlib.ExitStack() as stack:
            code = present(stack, server, create(http, visibility="public"))
            assert http.get("/api/rooms").headers["x-total-count"] == "1"
        deadline = time.monotonic() + WAIT
        while http.get(f"/api/rooms/{code}").status_code == 200:
            assert time.monotonic() < deadline, "the idle room never expired"
            time.sleep(0.1)
        assert http.get("/api/rooms").json() == []
        assert http.get("/api/rooms").headers["x-total-count"] == "0"
        assert create(http).status_code == 201


def test_the_room_list_comes_a_page_of_at_most_50_at_a_time(serve: Serve) -> None:
    server = serve(waiting_rooms_per_address="100")
    with (
        httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http,
        contextlib.ExitStack() as stack,
    ):
        codes = [present(stack, server, create(http, visibility="public")) for _ in range(60)]
        create(http, visibility="public")  # nobody in it
        present(stack, server, create(http, visibility="private"))
        first = http.get("/api/rooms")
        second = http.get("/api/rooms", params={"offset": 50})
        assert http.get("/api/rooms", params={"limit": 51}).status_code == 422
    assert first.headers["x-total-count"] == second.headers["x-total-count"] == "60"
    assert len(first.json()) == 50 and len(second.json()) == 10
    listed = [room["code"] for room in first.json() + second.json()]
    assert sorted(listed) == sorted(codes), "every public room once, no private one"
    assert listed[0] == codes[-1], "the most recently changed first"


def redis_commands_during(action: Callable[[], object]) -> list[str]:
    """Every command Redis ran (its own scripts' included) while ``action`` ran."""
    sentinel = uuid.uuid4().hex
    seen: list[str] = []
    ready = threading.Event()
    client = redis.Redis.from_url(REDIS_URL)

    def watch() -> None:
        with client.monitor() as monitor:
            ready.set()
            for command in monitor.listen():
                seen.append(command["command"])
                if sentinel in command["command"]:
                    return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    assert ready.wait(WAIT)
    action()
    client.echo(sentinel)
    watcher.join(WAIT)
    client.close()
    return seen


@pytest.mark.parametrize("serve", [pytest.param("redis", marks=pytest.mark.redis)], indirect=True)
def test_listing_rooms_in_redis_reads_an_index_not_the_rooms(serve: Serve) -> None:
    """Redis only: the memory store has no commands to watch."""
    server = serve(waiting_rooms_per_address="100")
    with (
        httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http,
        contextlib.ExitStack() as stack,
    ):
        codes = [present(stack, server, create(http, visibility="public")) for _ in range(60)]
        pages: list[httpx.Response] = []
        commands = redis_commands_during(lambda: pages.append(http.get("/api/rooms")))
    assert len(pages[0].json()) == 50
    read_rooms = [c for c in commands if any(f"room:{code}" in c for code in codes)]
    assert read_rooms == [], "listing read rooms one by one"
    assert any("ZREVRANGE" in c.upper() for c in commands), "the page came from the index"


def test_only_a_trusted_proxy_names_the_client_address(serve: Serve) -> None:
    """The limit counts the peer unless it is a proxy of ``CASH_STASH_FORWARDED_ALLOW_IPS``."""
    untrusted = serve(create_limit="2", forwarded_allow_ips="10.9.9.9")
    trusted = serve(create_limit="2", forwarded_allow_ips="127.0.0.1")
    forged = [{"X-Forwarded-For": f"203.0.113.{n}"} for n in range(4)]
    with httpx.Client(base_url=untrusted.endpoint.base_url, timeout=10) as http:
        spoofed = [
            http.post("/api/rooms", json={"name": "A"}, headers=h).status_code for h in forged
        ]
    with httpx.Client(base_url=trusted.endpoint.base_url, timeout=10) as http:
        proxied = [
            http.post("/api/rooms", json={"name": "A"}, headers=h).status_code for h in forged
        ]
        # Behind the proxy, one player's address is still limited.
        same = [
            http.post("/api/rooms", json={"name": "A"}, headers=forged[0]).status_code
            for _ in range(2)
        ]
    assert spoofed == [201, 201, 429, 429], "a forged header from a stranger is ignored"
    assert proxied == [201, 201, 201, 201], "the trusted proxy's header names each player"
    assert same == [201, 429]

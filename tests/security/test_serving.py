"""The probes' server fixture itself: real processes, really on the store they name."""

from __future__ import annotations

import httpx

from tests.security.conftest import Serve


def test_processes_share_rooms_only_on_redis(serve: Serve, store_kind: str) -> None:
    first, second = serve(), serve()
    created = httpx.post(f"{first.endpoint.base_url}/api/rooms", json={"name": "Ann"}, timeout=10)
    assert created.status_code == 201, created.text
    code = created.json()["code"]
    seen = httpx.get(f"{second.endpoint.base_url}/api/rooms/{code}", timeout=10)
    assert seen.status_code == (200 if store_kind == "redis" else 404)

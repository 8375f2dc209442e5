"""Issue 44: no route had a request-rate limit per client address (eight connections read 444
lobby pages a second); now every route but health and metrics draws on a token bucket."""

from __future__ import annotations

import httpx

from tests.security.conftest import Serve


def test_one_address_past_its_burst_is_refused_and_told_when_to_come_back(serve: Serve) -> None:
    # A refill of one request every 1,000 s: none comes back while the test runs.
    server = serve(request_burst="5", request_rate_per_second="0.001")
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http:
        statuses = [http.get("/api/lobby").status_code for _ in range(5)]
        refused = [http.get(path) for path in ("/api/lobby", "/api/rooms", "/", "/api/nothing")]
        health = [http.get("/healthz").status_code for _ in range(10)]
        metrics = http.get("/metrics")
        other = http.get("/api/lobby", headers={"X-Forwarded-For": "198.51.100.7"})
    assert statuses == [200] * 5
    for answer in refused:
        assert answer.status_code == 429
        assert answer.json()["code"] == "too_many_requests"
        assert answer.json()["detail"].startswith("Too many requests")
        assert 999 <= int(answer.headers["retry-after"]) <= 1000
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert health == [200] * 10
    assert metrics.status_code != 429
    assert other.status_code == 200  # its own bucket

"""Issue 22, probe 5: the headers of every answer, and the doors an operator alone may open
(``/docs``, ``/openapi.json``, ``/metrics``); issue 21's friendly not-found page."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.app.processes import ServerProcess
from tests.security.conftest import Serve


@pytest.fixture
def http(shared_server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=shared_server.endpoint.base_url, timeout=10) as client:
        yield client


HTML_ADDRESSES = [
    "/",
    "/help",
    "/leaderboard",
    "/r/ABCD1234",
    "/players/0123456789abcdef0123456789abcdef",
    "/static/index.html",
    "/static/help.html",
]


@pytest.mark.parametrize("path", HTML_ADDRESSES)
def test_every_page_forbids_framing_wherever_it_is_served_from(
    http: httpx.Client, path: str
) -> None:
    response = http.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/rooms"),
        ("GET", "/healthz"),
        ("GET", "/static/js/api.js"),
        ("GET", "/api/nothing-here"),
        ("POST", "/api/rooms"),
    ],
)
def test_every_answer_says_nosniff_and_no_referrer(
    http: httpx.Client, method: str, path: str
) -> None:
    response = http.request(method, path, json={})
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/metrics"])
def test_operator_doors_are_closed_by_default(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 404
    assert "swagger" not in response.text.lower()


def test_the_metrics_need_their_bearer_token(serve: Serve) -> None:
    server = serve(metrics_token="s3cret-scrape", api_docs="true")
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as http:
        assert http.get("/metrics").status_code == 401
        wrong = http.get("/metrics", headers={"Authorization": "Bearer guess"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "unauthorized"
        right = http.get("/metrics", headers={"Authorization": "Bearer s3cret-scrape"})
        assert right.status_code == 200 and "cash_stash_connections" in right.text
        # Turned on, the description is served; still no page that would load a CDN's script.
        assert http.get("/openapi.json").json()["info"]["title"] == "Cash Stash"
        assert http.get("/docs").status_code == 404


@pytest.mark.parametrize("path", ["/no/such/page", "/rooms", "/games", "/r"])
def test_an_unknown_page_is_the_client_with_a_404(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text.lower()
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


@pytest.mark.parametrize("path", ["/api/nothing", "/api/rooms/ABCD1234/nothing", "/static/nope.js"])
def test_an_unknown_api_address_stays_json(http: httpx.Client, path: str) -> None:
    response = http.get(path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"

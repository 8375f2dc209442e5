"""Issue 22, probes 2, 3 and 8 over HTTP: huge bodies, input that made 500s, and loose input.

Every refusal is a small ``{code, detail}`` answer that never repeats the input, and the
keep-alive connection survives it.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.app.processes import ServerProcess

LIMIT = 4096


@pytest.fixture
def server(shared_server: ServerProcess) -> ServerProcess:
    return shared_server


@pytest.fixture
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.endpoint.base_url, timeout=10) as client:
        yield client


def raw_exchange(server: ServerProcess, head: bytes, body_chunks: Iterator[bytes]) -> bytes:
    """Send a request's head, then body chunks until the server answers or hangs up; return
    what it answered (empty if it reset the connection first)."""
    with socket.create_connection(("127.0.0.1", server.endpoint.port), timeout=10) as sock:
        sock.sendall(head)
        answer = b""
        try:
            sock.setblocking(False)
            for chunk in body_chunks:
                with contextlib.suppress(BlockingIOError):
                    answer += sock.recv(65536)
                if answer:
                    break
                with contextlib.suppress(BlockingIOError):
                    sock.sendall(chunk)
            sock.setblocking(True)
            # A refusal closes the connection: its whole answer is what comes before the end.
            while received := sock.recv(65536):
                answer += received
        except (BrokenPipeError, ConnectionResetError):
            pass
        return answer


CHUNKED_HEAD = (
    b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)


def test_a_declared_100_mb_body_is_refused_before_a_byte_is_read(server: ServerProcess) -> None:
    head = (
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 104857600\r\n\r\n"
    )
    started = time.monotonic()
    answer = raw_exchange(server, head, iter([]))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"code":"body_too_large"' in answer
    assert time.monotonic() - started < 2


def test_a_chunked_body_past_the_limit_is_refused(server: ServerProcess) -> None:
    body = b'{"name": "' + b"x" * LIMIT + b'"}'
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    answer = raw_exchange(server, CHUNKED_HEAD + chunked, iter([]))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"code":"body_too_large"' in answer


def test_a_100_mb_chunked_body_is_cut_off_early(server: ServerProcess) -> None:
    chunk = b"x" * 1024
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for _ in range(100 * 1024):  # 100 MB if nobody stops it
            sent.append(len(chunk))
            yield f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"

    started = time.monotonic()
    answer = raw_exchange(server, CHUNKED_HEAD, chunks())
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sum(sent) < 20 * 1024 * 1024, "the server kept reading far past its limit"
    assert time.monotonic() - started < 5


def test_a_validation_error_repeats_no_more_than_an_excerpt(http: httpx.Client) -> None:
    long_name = "N" * 3000
    response = http.post("/api/rooms", json={"name": "Ann", "room_name": long_name})
    assert response.status_code == 422
    assert len(response.content) < 1000
    assert long_name[:100] not in response.text
    body = response.json()
    assert body["code"] == "invalid_request" and body["detail"].startswith("room_name")
    assert [problem["loc"] for problem in body["errors"]] == [["body", "room_name"]]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"name": "a", "seats": 1e400}',
        b'{"name": "a", "turn_seconds": Infinity}',
        b'{"name": "a", "turn_seconds": NaN}',
        b'{"name": "a", "turn_seconds": -Infinity}',
        b'{"name": "\\ud800"}',
        b'{"name": "a", "\\udfff": 1}',
        b'{"name": "a", "rounds": 1e400}',
        b'{"name": "a", "seats": 3.0}',
        b"[1, 2",
        b"\xff\xfe",
    ],
)
def test_hostile_bodies_get_a_422_and_the_connection_stays_open(
    http: httpx.Client, raw: bytes
) -> None:
    response = http.post("/api/rooms", content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert set(response.json()) >= {"code", "detail"}
    assert response.headers.get("connection") != "close"
    assert http.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/leaderboard?offset=9223372036854775808",
        "/api/leaderboard?offset=-1",
        "/api/leaderboard?limit=100000000000000000000",
        # A fixed id: pytest-xdist workers must all collect the same test names.
        "/api/players/00000000-0000-4000-8000-000000000000/games?offset=9223372036854775808",
        "/api/players/" + "p" * 5000 + "/games",
        "/api/games/" + "g" * 5000,
        "/api/rooms?offset=9223372036854775808",
        "/api/rooms?limit=51",
        "/api/rooms/ABCDEFGH/bots/9223372036854775808",
    ],
)
def test_out_of_range_parameters_are_refused_not_crashed_on(http: httpx.Client, path: str) -> None:
    method = "DELETE" if "/bots/" in path else "GET"
    response = http.request(method, path, headers={"Authorization": "Bearer some-token"})
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "invalid_request"


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"seats": "3"}, "seats"),
        ({"seats": True}, "seats"),
        ({"turn_seconds": "30"}, "turn_seconds"),
        ({"move_seconds": "3600"}, "move_seconds"),
        ({"move_seconds": 3600.0}, "move_seconds"),
        ({"move_seconds": True}, "move_seconds"),
        ({"mode": 1}, "mode"),
        ({"draft": "false"}, "draft"),
        ({"draft": 0}, "draft"),
        ({"rounds": "3"}, "rounds"),
        ({"player_id": 7}, "player_id"),
    ],
)
def test_rest_bodies_take_json_types_only(
    http: httpx.Client, fields: dict[str, object], where: str
) -> None:
    response = http.post("/api/rooms", json={"name": "Ann", **fields})
    assert response.status_code == 422, response.text
    assert where in response.json()["detail"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("   ", "blank_text"),
        ("Ann\x00", "bad_text"),
        ("Ann\x07", "bad_text"),
        ("\u202eevil", "bad_text"),
        ("two\nlines", "bad_text"),
    ],
)
def test_names_refuse_controls_bidi_overrides_and_blanks(
    http: httpx.Client, name: str, code: str
) -> None:
    for path, body in (
        ("/api/rooms", {"name": name}),
        ("/api/rooms", {"name": "Ann", "room_name": name}),
    ):
        response = http.post(path, json=body)
        assert response.status_code == 422, response.text
        assert response.json()["code"] == code
    created = http.post("/api/rooms", json={"name": "Ann"}).json()
    joined = http.post(f"/api/rooms/{created['code']}/join", json={"name": name})
    assert joined.status_code == 422 and joined.json()["code"] == code
    renamed = http.patch(
        f"/api/rooms/{created['code']}",
        json={"room_name": name},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    assert renamed.status_code == 422 and renamed.json()["code"] == code


def test_a_name_is_kept_without_its_outer_spaces(http: httpx.Client) -> None:
    created = http.post("/api/rooms", json={"name": "  Ann  "}).json()
    summary = http.get(f"/api/rooms/{created['code']}").json()
    assert summary["seats"][0]["name"] == "Ann"
    assert summary["options"]["room_name"] == "Ann's table"

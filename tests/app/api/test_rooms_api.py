"""The room REST routes: create, list, look up, join, and what only the host may do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.rooms.credentials import CODE_ALPHABET, CODE_LENGTH
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder, bearer


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(base_settings(join_limit=5), recorder=ListRecorder())
    with TestClient(app) as test_client:
        yield test_client


def create(client: TestClient, **options: Any) -> tuple[str, str]:
    response = client.post("/api/rooms", json={"name": "Ann", **options})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["seat"] == 0
    return body["code"], body["token"]


def test_a_new_room_has_an_unambiguous_code_and_its_creator_as_host(client: TestClient) -> None:
    code, token = create(client, seats=3, rules="simple", turn_seconds=30, rounds="million")
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    assert len(token) >= 22  # 128 bits, URL-safe base64
    summary = client.get(f"/api/rooms/{code}").json()
    assert summary["host"] == 0 and summary["status"] == "waiting"
    assert summary["options"] == {
        "room_name": "Ann's table",
        "rules": "simple",
        "draft": False,
        "seats": 3,
        "visibility": "private",
        "mode": "live",
        "turn_seconds": 30,
        "move_seconds": 86_400,
        "rounds": "million",
        "hints": False,
        "spectators": False,
    }
    assert summary["seats"][0]["name"] == "Ann" and summary["seats"][1:] == [None, None]
    assert token not in str(summary)


def test_codes_are_read_leniently(client: TestClient) -> None:
    code, _ = create(client)
    assert client.get(f"/api/rooms/{code.lower()}").status_code == 200
    assert client.get("/api/rooms/UUUUUUUU").status_code == 404


def test_a_room_nobody_is_in_is_not_listed(client: TestClient) -> None:
    """Listed rooms need someone connected (issue 30): ``tests/security/test_rest_caps.py``
    connects and finds them listed."""
    create(client, visibility="public", seats=2, room_name="Open table")
    create(client, visibility="private")
    assert client.get("/api/rooms").json() == []


def test_joining_fills_seats_in_order_until_the_room_is_full(client: TestClient) -> None:
    code, _ = create(client, seats=2)
    joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    full = client.post(f"/api/rooms/{code}/join", json={"name": "Cy"})
    assert full.status_code == 409 and full.json()["code"] == "room_full"


def test_host_only_routes_need_the_hosts_token(client: TestClient) -> None:
    code, host = create(client)
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    route = f"/api/rooms/{code}/bots"
    assert client.post(route, json={"level": "easy"}).json()["code"] == "missing_token"
    wrong = client.post(route, json={"level": "easy"}, headers=bearer("x" * 22))
    assert wrong.status_code == 401
    not_host = client.post(route, json={"level": "easy"}, headers=bearer(guest))
    assert not_host.status_code == 403 and not_host.json()["code"] == "not_host"
    assert client.post(route, json={"level": "hard"}, headers=bearer(host)).json() == {"seat": 2}


def test_the_host_adds_and_removes_bots_and_waiting_players(client: TestClient) -> None:
    code, host = create(client, seats=4)
    client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
    client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [seat["name"] for seat in seats] == ["Ann", "Bob", "Easy Bot", "Easy Bot 2"]
    assert client.delete(f"/api/rooms/{code}/bots/1", headers=bearer(host)).status_code == 404
    removed = client.delete(f"/api/rooms/{code}/bots/2", headers=bearer(host))
    assert removed.status_code == 200 and removed.json()["seats"][2] is None
    kicked = client.delete(f"/api/rooms/{code}/players/1", headers=bearer(host))
    assert kicked.json()["seats"][1] is None
    own = client.delete(f"/api/rooms/{code}/players/0", headers=bearer(host))
    assert own.json()["code"] == "host_seat"


def test_settings_change_before_the_start_and_the_engine_judges_them(client: TestClient) -> None:
    code, host = create(client, seats=4)
    client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    changed = client.patch(
        f"/api/rooms/{code}", json={"seats": 2, "draft": True}, headers=bearer(host)
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["options"]["draft"] is True and len(changed.json()["seats"]) == 2
    too_many = client.patch(f"/api/rooms/{code}", json={"seats": 5}, headers=bearer(host))
    assert too_many.status_code == 422  # the draft variant is for 2 or 3 players
    assert too_many.json()["code"]
    client.patch(f"/api/rooms/{code}", json={"draft": False}, headers=bearer(host))
    client.patch(f"/api/rooms/{code}", json={"seats": 3}, headers=bearer(host))
    client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
    shrink = client.patch(f"/api/rooms/{code}", json={"seats": 2}, headers=bearer(host))
    assert shrink.json()["code"] == "seats_taken"
    nothing = client.patch(f"/api/rooms/{code}", json={"seats": None}, headers=bearer(host))
    assert nothing.status_code == 422 and nothing.json()["code"] == "bad_options"
    no_clock = client.patch(f"/api/rooms/{code}", json={"turn_seconds": None}, headers=bearer(host))
    assert no_clock.status_code == 200 and no_clock.json()["options"]["turn_seconds"] is None


def test_starting_closes_up_open_seats_and_locks_the_lobby(client: TestClient) -> None:
    code, host = create(client, seats=5)
    assert (
        client.post(f"/api/rooms/{code}/start", headers=bearer(host)).json()["code"]
        == "not_enough_players"
    )
    client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
    started = client.post(f"/api/rooms/{code}/start", headers=bearer(host))
    assert started.status_code == 200
    assert started.json()["options"]["seats"] == 2 and len(started.json()["seats"]) == 2
    again = client.post(f"/api/rooms/{code}/start", headers=bearer(host))
    assert again.json()["code"] == "already_started"
    late = client.post(f"/api/rooms/{code}/join", json={"name": "Late"})
    assert late.json()["code"] == "already_started"
    assert (
        client.post(f"/api/rooms/{code}/rematch", headers=bearer(host)).json()["code"]
        == "not_finished"
    )


def test_join_attempts_are_rate_limited_per_address(client: TestClient) -> None:
    code, _ = create(client, seats=6)
    statuses = [
        client.post(f"/api/rooms/{code}/join", json={"name": f"P{n}"}).status_code for n in range(7)
    ]
    assert statuses[:5] == [200] * 5
    assert statuses[5:] == [429, 429]


def test_bad_bodies_are_refused(client: TestClient) -> None:
    assert client.post("/api/rooms", json={"name": "Ann", "seats": 7}).status_code == 422
    assert client.post("/api/rooms", json={"name": ""}).status_code == 422
    assert client.post("/api/rooms", json={"name": "A", "rules": "chess"}).status_code == 422
    assert client.post("/api/rooms", json={"name": "A", "turn_seconds": 1}).status_code == 422
    draft_for_four = client.post("/api/rooms", json={"name": "A", "seats": 4, "draft": True})
    assert draft_for_four.status_code == 422


def test_a_turn_based_table_takes_one_of_four_times_to_move(client: TestClient) -> None:
    code, _ = create(client, mode="turn", move_seconds=28_800)
    options = client.get(f"/api/rooms/{code}").json()["options"]
    assert options["mode"] == "turn" and options["move_seconds"] == 28_800
    for seconds in (3600, 86_400, 259_200):
        create(client, mode="turn", move_seconds=seconds)
    for refused in (0, 60, 7200, 86_401, -3600, 3600.0, "3600", True):
        answer = client.post(
            "/api/rooms", json={"name": "A", "mode": "turn", "move_seconds": refused}
        )
        assert answer.status_code == 422, refused
    assert client.post("/api/rooms", json={"name": "A", "mode": "async"}).status_code == 422


def test_only_a_private_turn_based_table_may_have_no_time_limit(client: TestClient) -> None:
    code, host = create(client, mode="turn", move_seconds=None)
    assert client.get(f"/api/rooms/{code}").json()["options"]["move_seconds"] is None
    public = client.post(
        "/api/rooms",
        json={"name": "A", "mode": "turn", "move_seconds": None, "visibility": "public"},
    )
    assert public.status_code == 422 and public.json()["code"] == "move_limit_needed"
    made_public = client.patch(
        f"/api/rooms/{code}", json={"visibility": "public"}, headers=bearer(host)
    )
    assert made_public.status_code == 422 and made_public.json()["code"] == "move_limit_needed"
    # A live table keeps the choice but does not use it: no time limit is no concern of its.
    live, _ = create(client, visibility="public", move_seconds=None)
    assert client.get(f"/api/rooms/{live}").json()["options"]["mode"] == "live"


def test_the_host_changes_the_mode_and_time_to_move_until_the_start(client: TestClient) -> None:
    code, host = create(client, visibility="public")
    turned = client.patch(
        f"/api/rooms/{code}", json={"mode": "turn", "move_seconds": 3600}, headers=bearer(host)
    )
    assert turned.status_code == 200, turned.text
    assert turned.json()["options"]["mode"] == "turn"
    assert turned.json()["options"]["move_seconds"] == 3600
    unlimited = client.patch(
        f"/api/rooms/{code}", json={"move_seconds": None}, headers=bearer(host)
    )
    assert unlimited.json()["code"] == "move_limit_needed", "a public table needs a limit"
    private = client.patch(
        f"/api/rooms/{code}",
        json={"visibility": "private", "move_seconds": None},
        headers=bearer(host),
    )
    assert private.status_code == 200 and private.json()["options"]["move_seconds"] is None
    bad = client.patch(f"/api/rooms/{code}", json={"move_seconds": 5}, headers=bearer(host))
    assert bad.status_code == 422
    no_mode = client.patch(f"/api/rooms/{code}", json={"mode": None}, headers=bearer(host))
    assert no_mode.status_code == 422 and no_mode.json()["code"] == "bad_options"
    client.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
    client.post(f"/api/rooms/{code}/start", headers=bearer(host))
    late = client.patch(f"/api/rooms/{code}", json={"move_seconds": 3600}, headers=bearer(host))
    assert late.json()["code"] == "already_started"
    assert client.get(f"/api/rooms/{code}").json()["options"]["move_seconds"] is None


def test_looking_up_unknown_codes_counts_against_the_same_limit(client: TestClient) -> None:
    statuses = [client.get(f"/api/rooms/ZZZZZZZ{n}").status_code for n in range(7)]
    assert statuses == [404] * 5 + [429] * 2

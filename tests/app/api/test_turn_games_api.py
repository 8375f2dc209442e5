"""``POST /api/turn-games``: the turn-based games a browser's seat tokens open, and nothing
about a room its token does not open."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.routes.your_games import MOST_TURN_SEATS_ASKED as MOST_SEATS_ASKED
from app.main import create_app
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder, bearer

DAY = 86_400


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(base_settings(), recorder=ListRecorder())
    with TestClient(app) as test_client:
        yield test_client


def table(client: TestClient, host: str, guest: str, **options: Any) -> dict[str, Any]:
    """A two-seat room of ``host`` and ``guest``, dealt: its code and each one's token."""
    created = client.post("/api/rooms", json={"name": host, "seats": 2, **options})
    assert created.status_code == 201, created.text
    code, host_token = created.json()["code"], created.json()["token"]
    joined = client.post(f"/api/rooms/{code}/join", json={"name": guest}).json()
    started = client.post(f"/api/rooms/{code}/start", headers=bearer(host_token))
    assert started.status_code == 200, started.text
    return {"code": code, host: host_token, guest: joined["token"]}


def asked(client: TestClient, *seats: tuple[str, str]) -> list[dict[str, Any]]:
    response = client.post(
        "/api/turn-games", json={"seats": [{"code": c, "token": t} for c, t in seats]}
    )
    assert response.status_code == 200, response.text
    games: list[dict[str, Any]] = response.json()["games"]
    return games


def test_a_seat_of_a_turn_based_game_is_told_whose_move_it_is_and_until_when(
    client: TestClient,
) -> None:
    before = time.time()
    room = table(client, "Ann", "Bea", mode="turn", move_seconds=DAY, room_name="Slow table")
    (ann,) = asked(client, (room["code"], room["Ann"]))
    (bea,) = asked(client, (room["code"], room["Bea"]))
    assert ann["code"] == room["code"] and ann["room_name"] == "Slow table"
    assert (ann["seat"], bea["seat"]) == (0, 1)
    assert ann["players"] == bea["players"] == ["Ann", "Bea"]
    assert ann["status"] == "playing" and ann["move_seconds"] == DAY
    (acting,) = ann["to_act"]
    assert ann["your_move"] == (acting == 0) and bea["your_move"] == (acting == 1)
    assert before + DAY <= ann["deadline"] <= time.time() + DAY
    assert bea["deadline"] == ann["deadline"]
    assert room["Ann"] not in str(ann) and room["Bea"] not in str(ann)


def test_games_waiting_for_the_asker_come_first(client: TestClient) -> None:
    first = table(client, "Ann", "Bea", mode="turn")
    second = table(client, "Cy", "Dee", mode="turn")
    # One seat of each table: the one the first waits for, the one the second does not.
    (probe,) = asked(client, (first["code"], first["Ann"]))
    mover, idle = ("Ann", "Bea") if probe["your_move"] else ("Bea", "Ann")
    (probe,) = asked(client, (second["code"], second["Cy"]))
    waiter = "Dee" if probe["your_move"] else "Cy"
    games = asked(client, (second["code"], second[waiter]), (first["code"], first[mover]))
    assert [(g["code"], g["your_move"]) for g in games] == [
        (first["code"], True),
        (second["code"], False),
    ]
    (not_yours,) = asked(client, (first["code"], first[idle]))
    assert not not_yours["your_move"]


def test_a_table_without_a_time_limit_has_no_deadline(client: TestClient) -> None:
    room = table(client, "Ann", "Bea", mode="turn", move_seconds=None)
    (ann,) = asked(client, (room["code"], room["Ann"]))
    assert ann["move_seconds"] is None and ann["deadline"] is None


def test_a_token_that_opens_nothing_and_a_live_table_are_left_out(client: TestClient) -> None:
    turn = table(client, "Ann", "Bea", mode="turn")
    live = table(client, "Cy", "Dee")
    waiting = client.post("/api/rooms", json={"name": "Eve", "mode": "turn"}).json()
    for unopened in [
        (turn["code"], live["Cy"]),  # a token of another room
        (turn["code"], "x" * 22),
        (live["code"], live["Cy"]),  # a live table
        ("ZZZZZZZZ", turn["Ann"]),  # no such room
    ]:
        assert asked(client, unopened) == []
    (eve,) = asked(client, (live["code"], live["Dee"]), (waiting["code"], waiting["token"]))
    assert eve["code"] == waiting["code"] and eve["status"] == "waiting"
    assert eve["to_act"] == [] and eve["deadline"] is None and not eve["your_move"]
    assert eve["players"] == ["Eve", None, None, None]


@pytest.mark.parametrize(
    "body",
    [
        {"seats": [{"code": "ZZZZZZZZ", "token": "t"}] * (MOST_SEATS_ASKED + 1)},
        {"seats": [{"code": "zzzzzzzz", "token": "t"}]},  # codes as the server wrote them
        {"seats": [{"code": "ZZZZZZZ", "token": "t"}]},
        {"seats": [{"code": "ZZZZZZZZ", "token": "no spaces"}]},
        {"seats": [{"code": "ZZZZZZZZ", "token": "t" * 65}]},
        {"seats": [{"code": "ZZZZZZZZ", "token": 7}]},
        {"seats": [{"code": "ZZZZZZZZ", "token": "t", "seat": 0}]},
        {"seats": [], "more": True},
        {"seats": {"code": "ZZZZZZZZ", "token": "t"}},
        {},
    ],
)
def test_a_malformed_question_is_refused(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post("/api/turn-games", json=body)
    assert response.status_code == 422, response.text


def test_no_seats_no_games(client: TestClient) -> None:
    assert asked(client) == []


def test_asking_counts_against_the_address_like_every_route() -> None:
    app = create_app(base_settings(request_burst=3, request_rate_per_second=0.001))
    with TestClient(app) as limited:
        answers = [limited.post("/api/turn-games", json={"seats": []}) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["code"] == "too_many_requests"

"""``POST /api/your-games``: the games a browser's seat tokens open (turn-based tables, and
live ones until their game ends), and nothing about a room its token does not open; and
``POST /api/turn-games``, which answers the same questions for turn-based tables alone."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.routes.your_games import MOST_SEATS_ASKED, MOST_TURN_SEATS_ASKED
from app.main import create_app
from tests.app.conftest import MakeSettings, base_settings
from tests.app.live import (
    ListRecorder,
    bearer,
    connect_client,
    create_room,
    live_server,
    play_out,
)

DAY = 86_400
YOURS, TURNS = "/api/your-games", "/api/turn-games"
MOST_ASKED = {YOURS: MOST_SEATS_ASKED, TURNS: MOST_TURN_SEATS_ASKED}


@pytest.fixture(params=[YOURS, TURNS])
def route(request: pytest.FixtureRequest) -> str:
    """Each route, for the questions both answer alike about turn-based tables."""
    path: str = request.param
    return path


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


def asked(client: TestClient, *seats: tuple[str, str], route: str = YOURS) -> list[dict[str, Any]]:
    response = client.post(route, json={"seats": [{"code": c, "token": t} for c, t in seats]})
    assert response.status_code == 200, response.text
    games: list[dict[str, Any]] = response.json()["games"]
    return games


def test_a_seat_of_a_turn_based_game_is_told_whose_move_it_is_and_until_when(
    client: TestClient, route: str
) -> None:
    before = time.time()
    room = table(client, "Ann", "Bea", mode="turn", move_seconds=DAY, room_name="Slow table")
    (ann,) = asked(client, (room["code"], room["Ann"]), route=route)
    (bea,) = asked(client, (room["code"], room["Bea"]), route=route)
    assert ann["code"] == room["code"] and ann["room_name"] == "Slow table"
    mode = "turn" if route == YOURS else None  # the turn-based route's entries have no mode
    assert ann.get("mode") == bea.get("mode") == mode
    assert (ann["seat"], bea["seat"]) == (0, 1)
    assert ann["players"] == bea["players"] == ["Ann", "Bea"]
    assert ann["status"] == "playing" and ann["move_seconds"] == DAY
    (acting,) = ann["to_act"]
    assert ann["your_move"] == (acting == 0) and bea["your_move"] == (acting == 1)
    assert before + DAY <= ann["deadline"] <= time.time() + DAY
    assert bea["deadline"] == ann["deadline"]
    assert room["Ann"] not in str(ann) and room["Bea"] not in str(ann)


def test_games_waiting_for_the_asker_come_first(client: TestClient, route: str) -> None:
    first = table(client, "Ann", "Bea", mode="turn")
    second = table(client, "Cy", "Dee", mode="turn")
    # One seat of each table: the one the first waits for, the one the second does not.
    (probe,) = asked(client, (first["code"], first["Ann"]), route=route)
    mover, idle = ("Ann", "Bea") if probe["your_move"] else ("Bea", "Ann")
    (probe,) = asked(client, (second["code"], second["Cy"]), route=route)
    waiter = "Dee" if probe["your_move"] else "Cy"
    games = asked(
        client, (second["code"], second[waiter]), (first["code"], first[mover]), route=route
    )
    assert [(g["code"], g["your_move"]) for g in games] == [
        (first["code"], True),
        (second["code"], False),
    ]
    (not_yours,) = asked(client, (first["code"], first[idle]), route=route)
    assert not not_yours["your_move"]


def test_a_table_without_a_time_limit_has_no_deadline(client: TestClient, route: str) -> None:
    room = table(client, "Ann", "Bea", mode="turn", move_seconds=None)
    (ann,) = asked(client, (room["code"], room["Ann"]), route=route)
    assert ann["move_seconds"] is None and ann["deadline"] is None


def test_a_token_that_opens_nothing_is_left_out(client: TestClient, route: str) -> None:
    turn = table(client, "Ann", "Bea", mode="turn")
    live = table(client, "Cy", "Dee")
    waiting = client.post("/api/rooms", json={"name": "Eve", "mode": "turn"}).json()
    for unopened in [
        (turn["code"], live["Cy"]),  # a token of another room
        (turn["code"], "x" * 22),
        ("ZZZZZZZZ", turn["Ann"]),  # no such room
    ]:
        assert asked(client, unopened, route=route) == []
    (eve,) = asked(
        client, (live["code"], live["Dee"]), (waiting["code"], waiting["token"]), route=TURNS
    )
    assert eve["code"] == waiting["code"]  # a live table is not a turn-based game
    (eve,) = asked(client, (waiting["code"], waiting["token"]), route=route)
    assert eve["code"] == waiting["code"] and eve["status"] == "waiting"
    assert eve["to_act"] == [] and eve["deadline"] is None and not eve["your_move"]
    assert eve["players"] == ["Eve", None, None, None]


def test_a_live_table_in_play_comes_first_without_a_time_to_move(client: TestClient) -> None:
    turn = table(client, "Ann", "Bea", mode="turn")
    (probe,) = asked(client, (turn["code"], turn["Ann"]))
    mover = "Ann" if probe["your_move"] else "Bea"
    live = table(client, "Cy", "Dee", turn_seconds=60)
    lobby = client.post("/api/rooms", json={"name": "Eve"}).json()
    games = asked(
        client,
        (turn["code"], turn[mover]),
        (lobby["code"], lobby["token"]),
        (live["code"], live["Dee"]),
    )
    assert [(g["code"], g["mode"], g["status"]) for g in games] == [
        (live["code"], "live", "playing"),
        (turn["code"], "turn", "playing"),
        (lobby["code"], "live", "waiting"),
    ]
    dee = games[0]
    assert dee["seat"] == 1 and dee["players"] == ["Cy", "Dee"]
    assert dee["move_seconds"] is None and dee["deadline"] is not None
    assert dee["your_move"] == (dee["to_act"] == [1])
    assert live["Dee"] not in str(games) and live["Cy"] not in str(games)


async def test_a_live_table_is_no_longer_listed_once_its_game_is_over(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, token = await create_room(http, seats=2, rules="simple")
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(token))
        ann = await connect_client(live, code, token)
        await http.post(f"/api/rooms/{code}/start", headers=bearer(token))
        await ann.wait_for("state")
        seats = {"seats": [{"code": code, "token": token}]}
        (playing,) = (await http.post("/api/your-games", json=seats)).json()["games"]
        assert (playing["mode"], playing["status"]) == ("live", "playing")
        await play_out(ann, 0, random.Random(3))
        assert (await http.post("/api/your-games", json=seats)).json()["games"] == []
        await ann.close()


@pytest.mark.parametrize(
    "body",
    [
        None,  # one seat more than the route takes
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
def test_a_malformed_question_is_refused(
    client: TestClient, route: str, body: dict[str, Any] | None
) -> None:
    if body is None:
        body = {"seats": [{"code": "ZZZZZZZZ", "token": "t"}] * (MOST_ASKED[route] + 1)}
    response = client.post(route, json=body)
    assert response.status_code == 422, response.text


def test_as_many_seats_as_the_route_takes_are_answered(client: TestClient, route: str) -> None:
    assert asked(client, *[("ZZZZZZZZ", "t")] * MOST_ASKED[route], route=route) == []


def test_no_seats_no_games(client: TestClient, route: str) -> None:
    assert asked(client, route=route) == []


def test_asking_counts_against_the_address_like_every_route(route: str) -> None:
    app = create_app(base_settings(request_burst=3, request_rate_per_second=0.001))
    with TestClient(app) as limited:
        answers = [limited.post(route, json={"seats": []}) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["code"] == "too_many_requests"

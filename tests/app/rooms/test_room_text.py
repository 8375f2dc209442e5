"""A room as the store keeps it: its JSON, then its game's log apart, never escaped into it."""

from __future__ import annotations

import random

import orjson
import pytest

import engine
from app.rooms import lobby, play
from app.rooms.model import (
    Game,
    Room,
    RoomOptions,
    Seat,
    extended_log,
    room_of_text,
    room_text,
)
from tests.app.tables import started_room


def _started(seed: int) -> Room:
    names = ["Zoë", "李", 'Bob\n"quoted"']  # names the log's words quote
    return started_room(
        [Seat(name=name, token_hash=str(n) * 64) for n, name in enumerate(names)], seed=seed
    )


def _played(seed: int, moves: int) -> tuple[Room, engine.State]:
    """A room after ``moves`` random moves, and the engine's own state of that game."""
    room, rng = _started(seed), random.Random(seed)
    assert room.game is not None
    full = engine.loads(engine.dumps(room.engine_state()))  # the deal's log, whole
    for _ in range(moves):
        if room.status != "playing":
            break
        legal = engine.legal_actions(room.engine_state())
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1
        full = engine.apply_action(full, action)
        if rng.random() < 0.3:
            room = room_of_text(room_text(room))  # as a process that read it from the store
    return room, full


def test_the_games_log_is_the_engines_whole_log_however_the_room_was_read() -> None:
    for seed in range(4):
        room, full = _played(seed, 80)
        assert room.game is not None
        assert orjson.loads(room.game.log) == engine.log_entries(full)
        again = room_of_text(room_text(room))
        assert again.game is not None and again.game.log == room.game.log
        assert again.model_dump() == room.model_dump()


def test_the_log_is_stored_after_the_rooms_json_not_inside_it() -> None:
    room, full = _played(1, 60)
    text = room_text(room)
    head, newline, log = text.partition("\n")
    assert newline and "\n" not in log
    assert orjson.loads(log) == engine.log_entries(full)
    assert "log" not in orjson.loads(head)["game"]
    assert orjson.loads(orjson.loads(head)["game"]["state"])["log"] == []
    # The state is the engine's, its log aside.
    assert orjson.loads(orjson.loads(head)["game"]["state"]) == {
        **orjson.loads(engine.dumps(full)),
        "log": [],
    }


def test_a_room_without_a_game_is_its_json_alone() -> None:
    host = Seat(name="Ann", token_hash="a" * 64)
    room = lobby.new_room(code="ABCDE", options=RoomOptions(room_name="Wait"), host=host, now=1.0)
    assert room_text(room) == room.model_dump_json()
    assert room_of_text(room_text(room)).model_dump() == room.model_dump()


def test_a_room_stored_before_the_log_was_kept_apart_keeps_its_log() -> None:
    room, full = _played(2, 30)
    assert room.game is not None
    old = room.clone()
    assert old.game is not None
    old.game.state = engine.dumps(full)  # the log inside the state, nothing after the JSON
    read = room_of_text(old.model_dump_json())
    assert read.game is not None
    assert orjson.loads(read.game.log) == engine.log_entries(full)
    legal = engine.legal_actions(read.engine_state())
    action = next(a for a in legal if a["type"] != "concede")
    moved = play.apply(read, seat=action["seat"], action=action, now=3.0, mover="player")
    assert moved.game is not None
    after = engine.apply_action(full, action)
    assert orjson.loads(moved.game.log) == engine.log_entries(after)


@pytest.mark.parametrize("log", ["", "{}", "[1", "nonsense"])
def test_a_stored_room_with_a_broken_log_is_refused(log: str) -> None:
    room, _ = _played(3, 5)
    with pytest.raises(ValueError):
        room_of_text(f"{room.model_dump_json()}\n{log}")


def test_entries_are_added_to_the_logs_text_without_decoding_it() -> None:
    first, second = {"event": "a", "n": 1}, {"event": "b", "text": "é\n"}
    assert extended_log("[]", []) == "[]"
    assert extended_log("[]", [first]) == orjson.dumps([first]).decode()
    text = extended_log(extended_log("[]", [first]), [second, first])
    assert orjson.loads(text) == [first, second, first]
    assert extended_log(text, []) is text


def _finished(seed: int) -> Room:
    room, _ = _played(seed, 100_000)
    assert room.status == "finished" and room.unrecorded
    return room


@pytest.mark.parametrize("seed", range(3))
def test_the_rooms_json_is_pydantics_data_whatever_the_room_holds(seed: int) -> None:
    host = Seat(name="Ann", token_hash="a" * 64)
    waiting = lobby.new_room(
        code="ABCDE",
        options=RoomOptions(room_name="Wait", visibility="public", turn_seconds=30, rounds=3),
        host=host,
        now=1.5,
    )
    playing, _ = _played(seed, 25)
    away = playing.clone()
    assert away.seats[1] is not None and away.game is not None
    away.seats[1].away = True
    away.seats[1].disconnected_at = 12.25
    away.game.deadline = 99.5
    away.game.refs['1:"é"'] = 7
    finished = _finished(seed)
    finished.next_record_at = 3.0
    finished.record_attempts = 2
    for room in (waiting, playing, away, finished):
        head = room_text(room).partition("\n")[0]
        assert orjson.loads(head) == orjson.loads(room.model_dump_json())
        assert room_of_text(room_text(room)) == room


def test_every_field_of_a_room_is_stored_as_pydantic_names_it() -> None:
    """``room_text`` encodes the models' fields as they are: no alias, no field left out
    (but the game's log, stored after the JSON), no serializer of pydantic's own."""
    for model in (Room, RoomOptions, Seat, Game):
        assert not model.__pydantic_decorators__.field_serializers, model
        assert not model.__pydantic_decorators__.model_serializers, model
        for name, field in model.model_fields.items():
            assert field.alias is None and field.serialization_alias is None, name
            assert bool(field.exclude) == (model is Game and name == "log"), name

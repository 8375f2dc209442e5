"""A snapshot's texts are exactly its messages: the shared part of the views is spliced in,
each carries the log entries after those its connection sent, and the room summary is sent
again exactly when what it shows changed."""

from __future__ import annotations

import json
import random
import statistics
from typing import Any

import engine
import engine.ai
from app.rooms import play
from app.rooms.lobby import engine_config
from app.rooms.model import Room, Seat, room_of_text, room_text
from app.rooms.public import GamePublic, RoomPublic, SeatPublic, room_public
from app.transport.deflate import SharedCompression
from app.ws.snapshot import LogMark, Snapshot
from tests.app.tables import people, started_room


def _started(seats: int, seed: int) -> Room:
    return started_room(people(seats), seed=seed)


def test_every_seats_text_is_its_state_message_and_shows_only_its_own_hand() -> None:
    for seats, seed in ((2, 1), (4, 2), (6, 3)):
        room, rng = _started(seats, seed), random.Random(seed)
        # The same game played by the engine alone, its log kept whole in its state.
        names = [seat.name for seat in room.seats if seat is not None]
        full = engine.new_game(engine_config(room.options, players=seats, seed=seed, names=names))
        for move in range(120):
            if room.status != "playing":
                break
            if move % 5 == 0:
                # Every other time as another process reads it: from the store's text.
                room = room_of_text(room_text(room)) if move % 10 else room
                snapshot = Snapshot(room)
                state = room.engine_state()
                for seat in [None, *range(seats)]:
                    rendered = snapshot.state_text(seat)
                    message = snapshot.state_message(seat)
                    assert rendered is not None and message is not None
                    text, mark = rendered
                    sent = json.loads(text)
                    assert sent == json.loads(json.dumps(message))
                    assert sent["log_from"] == 0
                    assert mark.entries == len(engine.log_entries(full))
                    assert sent["view"] == json.loads(json.dumps(engine.view_for(full, seat)))
                    assert sent["view"] == json.loads(json.dumps(room.view_for(seat)))
                    assert sent["view"]["seat"] == seat
                    if seat is not None and not engine.is_over(state):
                        # Shared between seats as rendered, but each seat's own all the same.
                        assert sent["blocked"] == engine.blocked_actions(state, seat)
                        mine = [a for a in engine.legal_actions(state) if a["seat"] == seat]
                        assert sent["legal"] == mine
            legal = engine.legal_actions(room.engine_state())
            action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
            room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
            room.version += 1
            full = engine.apply_action(full, action)


def _joined(held: list[Any] | None, sent: dict[str, Any]) -> list[Any]:
    """The whole log a client holds after ``sent``: the entries it held up to ``log_from``,
    then the ones ``sent`` carries (it must hold exactly ``log_from`` of them)."""
    if sent["log_from"] == 0:
        return list(sent["view"]["log"])
    assert held is not None and len(held) == sent["log_from"]
    return [*held, *sent["view"]["log"]]


def test_later_states_carry_only_the_entries_after_those_sent_and_join_to_the_whole_log() -> None:
    for seats, seed in ((2, 21), (4, 22), (6, 23)):
        room, rng = _started(seats, seed), random.Random(seed)
        names = [seat.name for seat in room.seats if seat is not None]
        full = engine.new_game(engine_config(room.options, players=seats, seed=seed, names=names))
        # For each seat and a spectator, a connection that is sent every version, and one
        # sent every third (a connection misses versions committed while its hub read one).
        marks: dict[tuple[int | None, int], LogMark | None] = {}
        held: dict[tuple[int | None, int], list[Any]] = {}
        for move in range(200):
            # Every other time as another process reads it: from the store's text.
            room = room_of_text(room_text(room)) if move % 2 else room
            versions = [room]
            if move % 5 == 0:
                # Then a change that adds nothing to the log (someone left, say).
                room = room.clone()
                room.version += 1
                versions.append(room)
            for shown in versions:
                snapshot = Snapshot(shown)
                for seat in [None, *range(seats)]:
                    whole = snapshot.state_message(seat)
                    assert whole is not None
                    for every in (1, 3):
                        if move % every:
                            continue
                        mark = marks.get((seat, every))
                        rendered = snapshot.state_text(seat, mark)
                        assert rendered is not None
                        text, marks[seat, every] = rendered
                        sent = json.loads(text)
                        if mark is None:
                            assert sent["log_from"] == 0
                        else:
                            assert sent["log_from"] == mark.entries > 0
                            new = len(whole["view"]["log"]) - mark.entries
                            assert len(sent["view"]["log"]) == new
                            assert (new == 0) == (shown is not versions[0])
                        log = held[seat, every] = _joined(held.get((seat, every)), sent)
                        assert log == engine.log_entries(full)
                        # Joined, it is the whole state: the view is complete but its log.
                        joined = {**sent, "view": {**sent["view"], "log": log}, "log_from": 0}
                        assert joined == json.loads(json.dumps(whole))
                        assert marks[seat, every] == snapshot.log_mark()
            if room.status != "playing":
                break
            legal = engine.legal_actions(room.engine_state())
            action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
            room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
            room.version += 1
            full = engine.apply_action(full, action)
        assert room.status == "finished", "the game was played to its end"


def test_a_new_game_in_the_room_sends_its_log_whole() -> None:
    room, rng = _started(3, 31), random.Random(31)
    marks: dict[int | None, LogMark | None] = {}
    while room.status == "playing":
        snapshot = Snapshot(room)
        for seat in (None, 0, 1, 2):
            rendered = snapshot.state_text(seat, marks.get(seat))
            assert rendered is not None
            marks[seat] = rendered[1]
        legal = engine.legal_actions(room.engine_state())
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1
    rematch = play.start(room, seed=32, game_id="g2", now=3.0)
    rematch.version = room.version + 1
    assert rematch.game is not None
    for seat in (None, 0, 1, 2):
        mark = marks[seat]
        assert mark is not None and mark.entries > len(json.loads(rematch.game.log))
        rendered = Snapshot(rematch).state_text(seat, mark)
        assert rendered is not None
        sent = json.loads(rendered[0])
        assert sent["log_from"] == 0
        assert sent["view"]["log"] == json.loads(rematch.game.log) != []
        # A mark of a game with as many entries as the new one is no more its log.
        same_length = LogMark("g", rendered[1].entries, rendered[1].end)
        again = Snapshot(rematch).state_text(seat, same_length)
        assert again is not None and json.loads(again[0])["log_from"] == 0


def _summary_text(room: Room) -> str:
    return room_public(room).model_dump_json(exclude={"version"})


def _changed(room: Room, path: str, value: object) -> Room:
    """A copy of ``room`` with one field, given by its dotted path (``seats.1.away``), set."""
    changed = room.clone()
    *parents, name = path.split(".")
    target: Any = changed
    for part in parents:
        target = target[int(part)] if part.isdigit() else getattr(target, part)
    if name.isdigit():
        target[int(name)] = value
    else:
        setattr(target, name, value)
    return changed


_CHANGES = [
    ("status", "finished"),
    ("host", 1),
    ("options.room_name", "Other"),
    ("options.visibility", "public"),
    ("options.turn_seconds", 30),
    ("options.rounds", "million"),
    ("seats.1.name", "Zed"),
    ("seats.1.away", True),
    ("seats.1.level", "hard"),
    ("seats.1.disconnected_at", 5.0),
    ("seats.1.disconnected_at", None),
    ("seats.2", None),
    ("game.id", "another"),
    ("game.winners", [1]),
    ("game.totals", [1, 2, 3, 4]),
    # Not in the summary: a connection need not send it again for these.
    ("version", 99),
    ("seats.1.timeouts", 2),
    ("seats.1.token_hash", "f" * 64),
    ("game.deadline", 99.0),
    ("game.state", "{}"),
]


def test_the_summary_is_sent_again_exactly_when_what_it_shows_changed() -> None:
    assert set(RoomPublic.model_fields) == {
        "code",
        "version",
        "status",
        "host",
        "options",
        "seats",
        "open_seats",
        "game",
    }, "a field was added to the room summary: Snapshot.room_summary must follow it"
    assert set(SeatPublic.model_fields) == {"seat", "name", "kind", "level", "away", "connected"}
    assert set(GamePublic.model_fields) == {"id", "over", "winners", "totals", "recorded"}
    room, rng = _started(4, 7), random.Random(7)
    for move in range(30):
        if move % 10 == 0:
            for path, value in _CHANGES:
                changed = _changed(room, path, value)
                same_key = Snapshot(room).room_summary == Snapshot(changed).room_summary
                assert same_key == (_summary_text(room) == _summary_text(changed)), path
        legal = engine.legal_actions(room.engine_state())
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1


def test_a_snapshot_finds_each_token_s_seat_as_the_room_does() -> None:
    room = _started(4, 3).clone()
    room.seats[2] = None  # an open seat
    room.seats[3] = Seat(name="Bot", level="easy")  # an AI seat, without a token
    snapshot = Snapshot(room)
    for token_hash in ["a" * 64, "1" * 64, "2" * 64, "3" * 64, "f" * 64]:
        assert snapshot.seat_of(token_hash) == room.seat_of(token_hash)
    assert [snapshot.seat_of(h) for h in ("a" * 64, "1" * 64, "2" * 64)] == [0, 1, None]


def test_a_state_carries_the_ref_only_to_the_seat_whose_act_made_it() -> None:
    room, rng = _started(4, 11), random.Random(11)
    for move in range(40):
        legal = engine.legal_actions(room.engine_state())
        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
        # Every third move is the AI's or the clock's: no ref, though older ones are kept.
        ref: str | int | None = None if move % 3 == 2 else (move if move % 2 else f"r{move}")
        mover: play.Mover = "player" if ref is not None else "ai"
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover=mover, ref=ref)
        room.version += 1  # as the commit does: the version the ref was remembered with
        snapshot = Snapshot(room)
        for seat in [None, *range(4)]:
            rendered = snapshot.state_text(seat)
            assert rendered is not None
            sent = json.loads(rendered[0])
            expected = ref if seat == action["seat"] else None
            assert sent["ref"] == expected, (move, seat)
        if room.status != "playing":
            break


def _state_sizes_after_move_20(seed: int, *, wire: bool = False) -> tuple[list[int], list[int]]:
    """A 4-player game the Easy AI plays for every seat, each seat and a spectator sent
    every version: the sizes of their states after move 20 (``wire``: as per-message deflate
    sends them), and of the logs in them."""
    room, rng = _started(4, seed), random.Random(seed)
    easy = engine.ai.player("easy")
    marks: dict[int | None, LogMark | None] = {}
    states: list[int] = []
    logs: list[int] = []
    compression = SharedCompression()
    for move in range(400):
        snapshot = Snapshot(room, compression)
        for seat in (None, 0, 1, 2, 3):
            rendered = snapshot.state_text(seat, marks.get(seat))
            assert rendered is not None
            text, marks[seat] = rendered
            if move > 20:
                states.append(len(compression.deflated(text)) if wire else len(text))
                logs.append(len(json.dumps(json.loads(text)["view"]["log"], separators=(",", ":"))))
        if room.status != "playing":
            break
        seat = room.engine_state().to_act()[0]
        action = easy.decide(room.view_for(seat), rng)
        room = play.apply(room, seat=seat, action=action, now=2.0, mover="ai")
        room.version += 1
    assert room.status == "finished" and len(states) > 100
    return states, logs


def test_a_4_player_state_after_move_20_carries_a_few_hundred_bytes_of_log() -> None:
    for seed in (41, 42):
        _, logs = _state_sizes_after_move_20(seed)
        assert statistics.median(logs) <= 512, seed


def test_a_4_player_state_after_move_20_is_at_most_1_5_kb_on_the_wire_at_the_median() -> None:
    """Without its log a state is still a complete view (about 3.3 KB at the median after move
    20: the stacks, the blocked actions); per-message deflate, on by default and compressed
    once per text (``app/transport/deflate.py``), sends it in well under half of that."""
    states, _ = _state_sizes_after_move_20(43, wire=True)
    assert statistics.median(states) <= 1536

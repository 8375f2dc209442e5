"""Push from the move path: a turn-based table's commit tells each person away from it that a
move, or a challenge's answer, is theirs, and how they placed at the end; once, to them only,
and never with hidden information (``app/push/turns.py``)."""

from __future__ import annotations

import random
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

import engine
from app.db.repository import public_player_id
from app.push.notices import Challenged, GameOver, Notice, YourMove, render
from app.push.turns import final_places, notices_after, once_key, send
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.due import DueWork
from app.rooms.model import Room, RoomOptions, Seat
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.runtime import store_for
from app.store.base import RoomStore
from engine.cards import INFO, Kind
from tests.app.clock import Clock
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder
from tests.app.tables import started_room
from tests.app.turn_play import challenged, chosen, legal_for, next_room

HOUR = 3600.0
DAY = 24 * HOUR
CARD_NAMES = [info.name for info in INFO.values()]


@dataclass
class Told:
    """A notifier that keeps what it is asked to send, with when; a notice whose ``once`` key
    was used already is not kept, as ``PushSender.notify`` does not queue it."""

    sent: list[tuple[str, Notice, float]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    repeated: int = 0

    async def notify(self, player_id: str, notice: Notice, *, once: str | None = None) -> bool:
        if once is not None:
            if once in self.used:
                self.repeated += 1
                return False
            self.used.add(once)
        self.sent.append((player_id, notice, time.time()))
        return True


class Broken:
    async def notify(self, player_id: str, notice: Notice, *, once: str | None = None) -> bool:
        raise RuntimeError("the push queue is broken")


def guest(name: str) -> str:
    """A guest id per name, fixed: the seat keeps it, notices name its public digest."""
    return f"00000000-0000-4000-8000-{name.encode().hex():0>12}"


def person(name: str, *, here: bool = False) -> Seat:
    return Seat(
        name=name,
        token_hash=name[0].lower() * 64,
        player_id=guest(name),
        disconnected_at=None if here else 1.0,
    )


def turn_room(seats: list[Seat], *, seed: int = 4, **options: Any) -> tuple[Room, Room]:
    """The room waiting to start and the room just dealt, at a turn-based table."""
    dealt = started_room(seats, seed=seed, mode="turn", **options)
    waiting = dealt.model_copy(update={"status": "waiting", "game": None})
    return waiting, dealt


def test_the_person_whose_move_it_is_is_told_when_away_from_the_table() -> None:
    waiting, dealt = turn_room([person("Ann"), person("Bea"), person("Cy")])
    assert dealt.game is not None
    first = dealt.game.to_act[0]
    name = ("Ann", "Bea", "Cy")[first]
    assert notices_after(waiting, dealt) == [
        (public_player_id(guest(name)), YourMove(host="Ann", room_code=dealt.code))
    ]
    assert notices_after(dealt, dealt.clone()) == [], "nobody newly to act: nobody told"


def test_a_person_at_the_table_an_ai_seat_and_a_live_table_are_not_told() -> None:
    for seats in (
        [person("Ann", here=True), person("Bea", here=True)],
        [Seat(name="Easy Bot", level="easy"), Seat(name="Hard Bot", level="hard")],
        [Seat(name="Ann", token_hash="a" * 64, disconnected_at=1.0), person("Bea", here=True)],
    ):
        waiting, dealt = turn_room(seats)
        assert notices_after(waiting, dealt) == []
    live = started_room([person("Ann"), person("Bea")], seed=4)
    assert notices_after(live.model_copy(update={"status": "waiting", "game": None}), live) == []


def test_a_person_who_leaves_the_table_on_their_move_is_told() -> None:
    seats = [person("Ann", here=True), person("Bea", here=True)]
    _, dealt = turn_room(seats)
    assert dealt.game is not None
    first = dealt.game.to_act[0]
    name = ("Ann", "Bea")[first]

    def leaving(room: Room, seat: int) -> Room:
        left = room.clone()
        sitter = left.seats[seat]
        assert sitter is not None
        sitter.disconnected_at = 2.0
        return left

    assert notices_after(dealt, leaving(dealt, first)) == [
        (public_player_id(guest(name)), YourMove(host="Ann", room_code=dealt.code))
    ]
    assert notices_after(dealt, leaving(dealt, 1 - first)) == [], "not their move: not told"
    gone = leaving(dealt, first)
    assert notices_after(gone, gone.clone()) == [], "already away: nothing new"


def test_a_challenge_to_answer_names_the_challenger_and_the_set() -> None:
    rng = random.Random(3)
    room = started_room([person("Ann"), person("Bea"), person("Cy")], seed=5, mode="turn")
    previous = room
    while challenged(room) is None:
        previous, room = room, next_room(room, rng=rng)
    defender = challenged(room)
    assert defender is not None
    challenge = engine.view_for(room.engine_state(), None)["challenge"]
    challenger = room.seats[challenge["challenger"]]
    assert challenger is not None
    told = notices_after(previous, room)
    assert told == [
        (
            public_player_id(guest(("Ann", "Bea", "Cy")[defender])),
            Challenged(by=challenger.name, set_kind=Kind(challenge["kind"]), room_code="ABCDE"),
        )
    ]
    # The set is on the table for all to see: the defender's own stack.
    stack = engine.view_for(room.engine_state(), None)["players"][defender]["stack"]
    assert challenge["kind"] in str(stack)


def test_game_over_tells_each_person_away_their_place() -> None:
    seats = [person("Ann"), person("Bea", here=True), Seat(name="Easy Bot", level="easy")]
    room = started_room(seats, seed=9, mode="turn", rules="simple")
    previous = room
    rng = random.Random(1)
    while room.status == "playing":
        previous, room = room, next_room(room, rng=rng)
    assert room.game is not None
    totals, winners = room.game.totals, room.game.winners
    place = 1 if 0 in winners else 1 + sum(total > totals[0] for total in totals)
    assert notices_after(previous, room) == [
        (public_player_id(guest("Ann")), GameOver(place=place, room_code="ABCDE"))
    ], "Bea is at the table; the AI is nobody to tell"
    assert notices_after(room, room.clone()) == [], "told once: recording it tells nobody"


def test_places_follow_the_winners_then_round_wins_then_totals() -> None:
    by_totals = {"winners": [0, 2], "totals": [5, 3, 5, 1], "round_wins": [0, 0, 0, 0]}
    assert final_places(by_totals, two_round_wins=False) == [1, 3, 1, 4]
    by_wins = {"winners": [1], "totals": [9, 1, 5], "round_wins": [1, 2, 0]}
    assert final_places(by_wins, two_round_wins=True) == [2, 1, 3]
    assert final_places(by_wins, two_round_wins=False) == [2, 1, 3]


async def test_a_broken_notifier_never_fails_the_commit() -> None:
    waiting, dealt = turn_room([person("Ann"), person("Bea")])
    await send(Broken(), waiting, dealt)  # logged, not raised
    store = store_for(base_settings())
    await store.start()
    try:
        service = service_on(store)
        service.push = Broken()
        room, token = await Tables(service).create(
            name="Ann",
            player_id=guest("Ann"),
            options=RoomOptions(room_name="T", mode="turn", seats=2),
        )
        await Tables(service).add_bot(room.code, token=token, level="easy")
        started = await Tables(service).start(room.code, token=token)
        assert started.status == "playing"
    finally:
        await store.close()


async def test_a_move_is_told_once_a_version_however_often_its_person_leaves(
    store: RoomStore,
) -> None:
    service = service_on(store)
    told = Told()
    service.push = told
    tables = Tables(service)
    room, ann = await tables.create(
        name="Ann",
        player_id=guest("Ann"),
        options=RoomOptions(room_name="T", mode="turn", seats=2, move_seconds=3600),
    )
    _, _, bea = await tables.join(room.code, name="Bea", player_id=guest("Bea"))
    tokens = [hash_token(ann), hash_token(bea)]
    for token in tokens:
        await service.set_presence(room.code, token, connected=True)
    dealt = await tables.start(room.code, token=ann)
    assert dealt.game is not None and told.sent == [], "both at the table: nobody told"
    first = dealt.game.to_act[0]
    mover = public_player_id(guest(("Ann", "Bea")[first]))

    await service.set_presence(room.code, tokens[1 - first], connected=False)
    assert told.sent == [], "the other person's leaving tells nobody"
    for _ in range(3):
        await service.set_presence(room.code, tokens[first], connected=True)
        await service.set_presence(room.code, tokens[first], connected=False)
    assert [(player, notice.kind) for player, notice, _ in told.sent] == [(mover, "your_move")]
    assert told.repeated == 2, "told on the first leaving only, of three at this version"

    await service.set_presence(room.code, tokens[first], connected=True)
    now = await service.load(room.code)
    assert now is not None and now.game is not None
    moved = await service.act(
        room.code,
        token_hash=tokens[first],
        ref="r1",
        version=now.version,
        action=chosen(legal_for(now, first), random.Random(1)),
    )
    assert moved.room.game is not None
    nexts = [seat for seat in moved.room.game.to_act if seat != first]
    if nexts:
        other = public_player_id(guest(("Ann", "Bea")[nexts[0]]))
        assert told.sent[-1][0] == other, "the next seat, away, is told at the move"


def service_on(store: RoomStore, **settings: Any) -> RoomService:
    return RoomService(
        store=store,
        settings=base_settings(**settings),
        recorder=ListRecorder(),
        ai=AiRunner(0),
    )


PEOPLE = ("Ann", "Bea", "Cy")
ONLINE: dict[str, list[tuple[float, float]]] = {
    "Ann": [(0.0, 3 * HOUR), (DAY, DAY + 2 * HOUR), (2 * DAY, 2 * DAY + 6 * HOUR)],
    "Bea": [(2 * HOUR, 4 * HOUR), (DAY + 10 * HOUR, DAY + 11 * HOUR), (2 * DAY + HOUR, 3 * DAY)],
    "Cy": [],
}
"""When each person has the table open, from the deal; Cy never comes."""
THINK = 120.0
"""How long a person at the table takes over a move."""


def _expected(previous: Room, new: Room, here: set[str]) -> list[tuple[str, str]]:
    """Who the commit of ``new`` should tell, and the kind of notice, as the rule says: each
    person not at the table whose seat newly must act, or, at the end, every one of them."""
    assert new.game is not None
    if new.status == "finished":
        gained = list(range(len(new.seats))) if previous.status == "playing" else []
    else:
        before = previous.game.to_act if previous.status == "playing" and previous.game else []
        gained = [seat for seat in new.game.to_act if seat not in before]
    expected = []
    for seat in gained:
        sitter = new.seats[seat]
        if sitter is None or sitter.is_ai or sitter.name in here:
            continue
        if new.status == "finished":
            kind = "game_over"
        else:
            kind = "challenged" if challenged(new) == seat else "your_move"
        expected.append((public_player_id(guest(sitter.name)), kind))
    return expected


def _expected_on_leaving(before: Room, after: Room, name: str) -> list[tuple[str, str]]:
    """Who a person's leaving should tell: themselves, if the game needs them now and they
    were at the table until then."""
    game = after.game
    if after.status != "playing" or game is None:
        return []
    for seat in game.to_act:
        sitter, was = after.seats[seat], before.seats[seat]
        if sitter is None or was is None or sitter.name != name:
            continue
        if was.disconnected_at is None and sitter.disconnected_at is not None:
            kind = "challenged" if challenged(after) == seat else "your_move"
            return [(public_player_id(guest(name)), kind)]
    return []


def _check_public(notice: Notice, room: Room) -> None:
    """The notice's payload names no card but, for a challenge, the challenged set's kind
    (on the table for all to see), and never the seed."""
    assert room.game is not None
    payload = render(notice).payload()
    assert str(room.game.seed) not in payload
    named = {name for name in CARD_NAMES if re.search(rf"\b{re.escape(name)}\b", payload)}
    allowed = {INFO[notice.set_kind].name} if isinstance(notice, Challenged) else set()
    assert named <= allowed, payload


async def test_a_four_seat_turn_based_game_over_three_days(
    store: RoomStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann, Bea and Cy with an Easy Bot at a table of an hour to move: Ann and Bea come and go,
    Cy never comes. Every one of Cy's moves is played by the clock at its deadline, the seat
    stays his; the AI moves after its pause whoever is there; each push goes to the one person
    it is for, only while they are away, and holds nothing hidden; the game ends."""
    clock = Clock(monkeypatch, now=1_800_000_000.0)
    deals = random.Random(2024)
    monkeypatch.setattr(secrets, "randbits", deals.getrandbits)
    service = service_on(store, ai_pause_seconds=20.0, timeout_level="easy")
    told = Told()
    service.push = told
    rng = random.Random(42)

    start = clock.now
    room, ann = await Tables(service).create(
        name="Ann",
        player_id=guest("Ann"),
        options=RoomOptions(room_name="Ann's", mode="turn", move_seconds=3600, rounds=1),
    )
    code = room.code
    tokens = {"Ann": ann}
    for name in ("Bea", "Cy"):
        _, _, tokens[name] = await Tables(service).join(code, name=name, player_id=guest(name))
    await Tables(service).add_bot(code, token=ann, level="easy")
    here: set[str] = set()
    changes = sorted(
        (start + at, name, connected)
        for name, windows in ONLINE.items()
        for window in windows
        for at, connected in zip(window, (True, False), strict=True)
    )
    expected: list[tuple[str, str]] = []
    told_once: set[str] = set()

    def expect(room: Room, notices: list[tuple[str, str]]) -> None:
        """``notices`` are due at ``room``'s commit; a move's news is told once a version."""
        for player, kind in notices:
            if kind != "game_over":
                if once_key(room, player) in told_once:
                    continue
                told_once.add(once_key(room, player))
            expected.append((player, kind))

    async def presence(name: str, connected: bool) -> Room:
        before = await service.load(code)
        (here.add if connected else here.discard)(name)
        after = await service.set_presence(code, hash_token(tokens[name]), connected=connected)
        if before is not None and not connected:
            expect(after, _expected_on_leaving(before, after, name))
        return after

    while changes and changes[0][0] <= clock.now:
        _, name, connected = changes.pop(0)
        await presence(name, connected)
    previous = await service.load(code)
    assert previous is not None
    dealt = await Tables(service).start(code, token=ann)
    expect(dealt, _expected(previous, dealt, here))
    cy_seat = next(i for i, s in enumerate(dealt.seats) if s is not None and s.name == "Cy")
    cy_token = hash_token(tokens["Cy"])
    moved_at = clock.now
    cy_moves = 0

    for _ in range(20_000):
        room_now = await service.load(code)
        assert room_now is not None and room_now.game is not None
        if room_now.status != "playing":
            break
        cy = room_now.seats[cy_seat]
        assert cy is not None and cy.name == "Cy" and cy.token_hash == cy_token
        assert not cy.away and cy.player_id == guest("Cy"), "Cy's seat is never lost"
        seat = room_now.game.to_act[0]
        sitter = room_now.seats[seat]
        assert sitter is not None
        wake = room_now.wake_at(service.settings.disconnect_grace_seconds, 600.0)
        assert wake is not None, "a turn-based game in play always has its next moment"
        if sitter.is_ai:
            assert room_now.game.ai_due == moved_at + 20.0
        else:
            assert room_now.game.deadline == moved_at + HOUR
        ready = None
        if not sitter.is_ai and sitter.name in here:
            ready = max(moved_at, clock.now) + THINK
        upcoming = min(
            [wake, *([ready] if ready is not None else []), *([changes[0][0]] if changes else [])]
        )
        clock.advance_to(max(upcoming, clock.now))
        if changes and changes[0][0] <= clock.now:
            _, name, connected = changes.pop(0)
            await presence(name, connected)
            continue
        if ready is not None and ready <= clock.now:
            acted = await service.act(
                code,
                token_hash=sitter.token_hash or "",
                ref=f"r{room_now.version}",
                version=room_now.version,
                action=chosen(legal_for(room_now, seat), rng),
            )
            new = acted.room
        else:
            woken = await DueWork(service).wake(code)
            assert woken.room is not None, "something was due"
            new = woken.room
            if seat == cy_seat:
                assert clock.now == room_now.game.deadline == moved_at + HOUR
                cy_moves += 1
        expect(new, _expected(room_now, new, here))
        moved_at = clock.now
    else:
        pytest.fail("the game never ended")

    finished = await service.load(code)
    assert finished is not None and finished.game is not None and finished.status == "finished"
    took = clock.now - start
    assert 2 * DAY < took < 4 * DAY, f"the game took {took / DAY:.1f} days"

    # Every one of Cy's moves was the clock's, each after a timeout line; his seat is his.
    actions = [a for a in finished.game.actions if a["seat"] == cy_seat]
    log = engine_log(finished)
    timeouts = [e for e in log if e.get("event") == "timeout" and e.get("seat") == cy_seat]
    assert cy_moves == len(actions) == len(timeouts) > 0
    assert not any(e.get("event") == "away" for e in log)
    recorded = finished.unrecorded[0].players[cy_seat]
    assert recorded.name == "Cy" and recorded.player_id == guest("Cy")

    # Each push went to the right person, once, while they were away, and said nothing hidden.
    assert [(player, notice.kind) for player, notice, _ in told.sent] == expected
    kinds = {notice.kind for _, notice, _ in told.sent}
    assert kinds == {"your_move", "challenged", "game_over"}
    players = {public_player_id(guest(name)): name for name in PEOPLE}
    for player, notice, when in told.sent:
        assert player in players, "only people are told"
        name = players[player]
        assert not any(start + on <= when < start + off for on, off in ONLINE[name]), (
            f"{name} was told while at the table"
        )
        _check_public(notice, finished)
        if isinstance(notice, YourMove):
            assert notice.host == "Ann" and notice.room_code == code
    over = [(player, n) for player, n, _ in told.sent if isinstance(n, GameOver)]
    assert {players[p] for p, _ in over} == set(PEOPLE) - here
    places = final_places(engine.result(finished.engine_state()), two_round_wins=False)
    for player, notice in over:
        seat = next(i for i, s in enumerate(finished.seats) if s and s.name == players[player])
        assert notice.place == places[seat]


def engine_log(room: Room) -> list[dict[str, Any]]:
    assert room.game is not None
    entries: list[dict[str, Any]] = orjson.loads(room.game.log)
    return entries

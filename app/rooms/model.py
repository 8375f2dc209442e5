"""A live room as the store keeps it: options, seats, the game, its clocks, unrecorded games."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, Field, PrivateAttr, model_validator

import engine
from app.rooms.credentials import hashes_match
from app.rooms.recording import FinishedGame

AiLevel = Literal["easy", "medium", "hard"]
RuleSet = Literal["simple", "simple_actions", "advanced"]
Visibility = Literal["private", "public"]
RoomStatus = Literal["waiting", "playing", "finished"]
Rounds = Annotated[int, Field(ge=1, le=10)] | Literal["million", "two_round_wins"]
TurnSeconds = Annotated[int, Field(ge=5, le=3600)]
RoomMode = Literal["live", "turn"]
MoveSeconds = Literal[3600, 28_800, 86_400, 259_200]
"""A turn-based table's time to move: an hour, eight hours, a day or three days."""

MIN_SEATS = 2
MAX_SEATS = 6
MAX_REMEMBERED_REFS = 64
"""Refs of applied actions remembered per room, to answer a repeated ``act``."""
MAX_DEVICES = 4
"""Other devices a seat's person may open it from (``Seat.devices``): a phone, a tablet, a
second computer; a fifth takes the place of the one given a token longest ago."""


def dump_engine_state(state: Any) -> str:
    """``engine.dumps``'s text of the state with its log left out (the room keeps the log's
    text apart: ``Game.log``), encoded by orjson. A late game's log was nine tenths of the
    state's text, decoded, encoded and escaped again at every move."""
    return orjson.dumps(engine.to_data(state, log=False)).decode()


def load_engine_state(text: str) -> Any:
    """``engine.loads``, decoded by orjson (reads ``engine.dumps``'s text too)."""
    return engine.from_data(orjson.loads(text))


def log_text(entries: list[dict[str, Any]]) -> str:
    """Log entries as the JSON text of an array, as ``Game.log`` holds them."""
    return orjson.dumps(entries).decode()


def extended_log(text: str, entries: list[dict[str, Any]]) -> str:
    """The log's text ``text`` with ``entries`` added at its end, without decoding it."""
    if not entries:
        return text
    added = log_text(entries)
    return added if text == "[]" else f"{text[:-1]},{added[1:]}"


def room_text(room: Room) -> str:
    """The room as the store keeps it: its JSON, then a newline and its game's log as JSON
    text, which is never escaped into the room's JSON nor decoded to play a move.

    The JSON is ``room.model_dump_json()``'s data, encoded by orjson from the models' fields
    (tested to be the same): pydantic took 60 µs a move for it in a served room (its actions
    and remembered refs are plain values it inspects one by one), orjson a sixth of that."""
    text = orjson.dumps(room, default=_fields_of, option=orjson.OPT_UTC_Z).decode()
    return text if room.game is None else f"{text}\n{room.game.log}"


def _fields_of(model: Any) -> dict[str, Any]:
    """What orjson encodes a model as: its fields (a game's without its log, kept apart)."""
    if isinstance(model, Game):
        fields = dict(model.__dict__)
        del fields["log"]
        return fields
    if isinstance(model, BaseModel):
        return model.__dict__
    raise TypeError(f"{type(model).__name__} is not a room's model")


def room_of_text(text: str) -> Room:
    """The room ``room_text`` stored (``ValueError`` if it is not one). A room stored before
    the log was kept apart has its log in its engine state's text: it is taken from there."""
    head, newline, log = text.partition("\n")
    room = Room.model_validate_json(head)
    game = room.game
    if game is not None:
        if newline:
            if not (log.startswith("[") and log.endswith("]")):
                raise ValueError("a stored room's log is not a JSON array")
            game.log = log
        else:
            data = orjson.loads(game.state)
            game.log = log_text(data.get("log", []) if isinstance(data, dict) else [])
    return room


class RoomOptions(BaseModel):
    """What the host chooses, and may change until the game starts."""

    room_name: Annotated[str, Field(min_length=1, max_length=60)]
    rules: RuleSet = "advanced"
    draft: bool = False
    seats: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] = 4
    visibility: Visibility = "private"
    mode: RoomMode = "live"
    """``live``: played now, by people at the table together; ``turn``: a move at a time over
    days, the game kept while nobody is connected."""
    turn_seconds: TurnSeconds | None = None
    """A live table's seconds per turn and per challenge answer; None means no clock."""
    move_seconds: MoveSeconds | None = 86_400
    """A turn-based table's time to move and to answer a challenge; None means no limit (a
    private table only). Not used by a live table."""
    rounds: Rounds = 1
    hints: bool = False
    """Whether seated players may ask for hints during play (a game with any is not rated)."""
    spectators: bool = False
    """Whether the room's code alone lets someone watch (a seat's token always opens the
    room). Left out, it follows the visibility: on in a public room, off in a private one."""

    @model_validator(mode="before")
    @classmethod
    def _spectators_follow_visibility(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("spectators") is None:
            return {**data, "spectators": data.get("visibility") == "public"}
        return data


class Seat(BaseModel):
    """An occupied seat: a person (with a token) or an AI."""

    name: str
    token_hash: str | None = None
    """SHA-256 of the seat token; None for an AI seat."""
    level: AiLevel | None = None
    """Set for an AI seat."""
    player_id: str | None = None
    devices: list[str] = []
    """The token hashes of this person's other devices, signed in to the account their guest
    plays for (``Tables.open_on_device``), oldest first, at most ``MAX_DEVICES``: each opens
    the seat as ``token_hash`` does."""
    away: bool = False
    """The AI plays this person's seat until they come back."""
    timeouts: int = 0
    """Clock timeouts in a row."""
    disconnected_at: float | None = None
    """Since when the person has had no connection (from joining until they first connect);
    None while connected."""
    unopened: bool = False
    """The person has not opened the table since taking the seat (Play now, a guest who
    joined): the seat waits ``seat_open_seconds`` from the deal, not the grace of a person
    who left, before the AI plays it (while someone else is there)."""

    def grace(self, grace_seconds: float, open_seconds: float) -> float:
        """How long the seat waits for its person after ``disconnected_at``."""
        return min(grace_seconds, open_seconds) if self.unopened else grace_seconds

    @property
    def is_ai(self) -> bool:
        return self.level is not None

    @property
    def played_by_ai(self) -> bool:
        return self.level is not None or self.away


class Game(BaseModel):
    """The game in progress (or just finished) in a room."""

    id: str
    seed: int
    """Never leaves the server: not in any view, message or log."""
    state: str
    """``engine.dumps`` of the authoritative state, its log left out (``dump_engine_state``)."""
    log: str = Field("[]", exclude=True)
    """The game's log: the JSON text of an array of the engine's log entries, stored after
    the room's JSON (``room_text``), not in it."""
    to_act: list[int]
    actions: list[dict[str, Any]] = []
    refs: dict[str, int] = {}
    """``"<seat>:<ref>"`` of recent applied acts → the room version they produced."""
    started_at: float
    ended_at: float | None = None
    winners: list[int] = []
    totals: list[int] = []
    deadline: float | None = None
    """When the clock plays for the people in ``to_act``."""
    ai_due: float | None = None
    """When an AI-played seat in ``to_act`` moves (after the human-like pause)."""
    hints: list[int] = []
    """Hints each seat has asked for in this game, by seat (none yet: empty)."""
    practice: bool = False
    """A practice table from a reviewed decision (``app.games.practice``): unrated, not recorded."""
    _decoded: tuple[str, Any] | None = PrivateAttr(default=None)
    """The engine state decoded, with the text of ``state`` it was decoded from or dumped to
    (compared by identity: hashing a text on every move cost more than the lookup saves).
    A copy of the game shares it until a move sets both anew (``keep_engine_state``). It
    lives as long as the game: a process keeps the rooms it holds (``RoomService._held``,
    ``HELD_ROOMS``), so as many states as rooms, each about 3 KB and 27 objects the collector
    tracks (move 20 of a four-seat game): 12 MB at most, 3 MB for 1,000 rooms. Decoding a
    room's state at every move was 3% of a loaded server's Python time."""

    def __eq__(self, other: object) -> bool:
        """Games are equal by their fields: the decoded state only saves decoding ``state``."""
        return type(other) is type(self) and self.__dict__ == other.__dict__

    def keep_engine_state(self, state: Any) -> None:
        """Keep ``state``, which ``self.state`` was dumped from, as this game's decoded state."""
        self._decoded = (self.state, state)

    def decoded_engine_state(self) -> Any | None:
        """The state kept for ``self.state`` (None: not decoded yet)."""
        decoded = self._decoded
        return decoded[1] if decoded is not None and decoded[0] is self.state else None


class Room(BaseModel):
    """One live room, stored as JSON under its code with its version."""

    code: str
    version: int = 0
    game_version: int = 0
    """The version at which anything but presence last changed (a move, the lobby, a stand-in
    taking a seat); 0 in a room stored before it was kept, read as ``version``. An ``act`` is
    checked against it: a state that differs only in who is connected is not stale."""
    host: int = 0
    """The host's seat."""
    status: RoomStatus = "waiting"
    options: RoomOptions
    seats: list[Seat | None]
    """One entry per seat; None is an open seat."""
    game: Game | None = None
    unrecorded: list[FinishedGame] = []
    """Finished games the database has not confirmed yet; the room outlives them."""
    record_attempts: int = 0
    next_record_at: float | None = None
    created_at: float

    def engine_state(self) -> Any:
        """The game's engine state, decoded from ``game.state`` once while it is recent: the
        move that made it and every seat's view of it share one. Only read it (the engine's
        ``apply_action`` works on a copy). Its log is not the game's: ``game.log`` is (a view
        of it takes its log from there: ``view_for``)."""
        game = self.game
        assert game is not None, "only a room with a game has an engine state"
        state = game.decoded_engine_state()
        if state is None:
            state = load_engine_state(game.state)
            game.keep_engine_state(state)
        return state

    def engine_round(self) -> int:
        """``engine_state().round`` (``moves.snapshot_due`` compares a move's room with the
        one it replaced, which holds its state decoded as well)."""
        return int(self.engine_state().round)

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """``engine.view_for`` the game's state, with the game's whole log."""
        game = self.game
        assert game is not None, "only a room with a game has views"
        return {**engine.view_for(self.engine_state(), seat), "log": orjson.loads(game.log)}

    def clone(self) -> Room:
        """A copy to change: every model and container in it is new, so any field may be
        set, appended to or deleted from. The leaves are shared: the engine state's text, the
        recorded action dicts and finished games, which nothing changes in place. (Copying
        them too, through a JSON round trip, was a tenth of the cost of a move.)"""
        game = self.game
        return self.model_copy(
            update={
                "options": self.options.model_copy(),
                "seats": [
                    None
                    if seat is None
                    else seat.model_copy(update={"devices": list(seat.devices)})
                    for seat in self.seats
                ],
                "game": None
                if game is None
                else game.model_copy(
                    update={
                        "to_act": list(game.to_act),
                        "actions": list(game.actions),
                        "refs": dict(game.refs),
                        "winners": list(game.winners),
                        "totals": list(game.totals),
                        "hints": list(game.hints),
                    }
                ),
                "unrecorded": list(self.unrecorded),
            }
        )

    def clone_for_move(self, seat: int) -> Room:
        """``clone`` for a move by ``seat`` (``play.apply``), which changes the room, its
        game and that seat only: the options, the other seats and the game's lists a move
        never changes (its hints, winners and totals: a finished game's are set anew) are
        the ones of this room. Nothing changes a room in place but a clone of it, so sharing
        them is safe; copying them was a third of a move's copy.

        Copied by pydantic's ``model_copy``, which keeps each game's decoded engine state
        (``Game._decoded``). A copy written by hand past pydantic's attributes took 46 µs at
        move 40 of a four-seat game, ``model_copy`` 60 µs (the whole ``clone``: 107 against
        157 µs; best of three runs of 5,000 on a loaded two-core machine)."""
        game = self.game
        assert game is not None, "a move is made in a game"
        seats = list(self.seats)
        mover = seats[seat]
        seats[seat] = None if mover is None else mover.model_copy()
        return self.model_copy(
            update={
                "seats": seats,
                "game": game.model_copy(
                    update={"actions": list(game.actions), "refs": dict(game.refs)}
                ),
                "unrecorded": list(self.unrecorded),
            }
        )

    def acts_on(self, version: int) -> bool:
        """Whether an ``act`` chosen from the state of ``version`` may apply now: only
        presence changed since (``game_version``)."""
        return (self.game_version or self.version) <= version <= self.version

    def seat_of(self, token_hash: str) -> int | None:
        """The seat a token (given by its hash) opens, the seat's own or one of its person's
        devices' (``Seat.devices``), checking every one in constant time."""
        found = None
        for index, seat in enumerate(self.seats):
            if seat is None:
                continue
            opens = hashes_match(token_hash, seat.token_hash)
            for device in seat.devices:
                opens = hashes_match(token_hash, device) or opens
            if opens:
                found = index
        return found

    def seat_of_player(self, owns: Callable[[str | None], bool]) -> int | None:
        """The first seat a person holds whose guest id ``owns`` accepts (a device signed in
        to the account that guest plays for); None if there is none. AI seats hold none."""
        return next(
            (
                index
                for index, seat in enumerate(self.seats)
                if seat is not None and seat.token_hash is not None and owns(seat.player_id)
            ),
            None,
        )

    def occupied(self) -> int:
        return sum(seat is not None for seat in self.seats)

    def someone_here(self) -> bool:
        """Whether a person is connected to their seat. A game goes on only while one is: a
        room with nobody but AI at the table would spend the AI's workers for nobody."""
        return any(
            seat is not None and not seat.played_by_ai and seat.disconnected_at is None
            for seat in self.seats
        )

    def wake_at(self, grace_seconds: float, open_seconds: float) -> float | None:
        """The next moment a process must look at this room, or None if nothing is pending:
        an unrecorded game's next try; while ``someone_here``, the game's deadline, its AI's
        move and the end of the grace of each person who left, or of ``open_seconds`` for one
        who never opened the table (``Seat.grace``; a live game waits, its clocks and AI seats
        stopped, while nobody is here). A turn-based game: its deadline and AI move, always.

        Asked twice at every commit (the room and the one it replaces): written as plain
        loops, 1.1 µs against 6.4 µs in generators."""
        record = (self.next_record_at or self.created_at) if self.unrecorded else None
        game = self.game
        if self.status != "playing" or game is None:
            return record
        if self.options.mode == "turn":
            # A turn-based game goes on with nobody here: its clock and AI seats run, and a
            # person who left is not waited for (they come back when they like).
            due = record
            for when in (game.deadline, game.ai_due):
                if when is not None and (due is None or when < due):
                    due = when
            return due
        here = False
        due = record
        for seat in self.seats:
            if seat is None or seat.level is not None or seat.away:  # open, or played by AI
                continue
            left = seat.disconnected_at
            if left is None:
                here = True
                continue
            if seat.unopened and open_seconds < grace_seconds:
                left += open_seconds
            else:
                left += grace_seconds
            if due is None or left < due:
                due = left
        if not here:
            return record
        for when in (game.deadline, game.ai_due):
            if when is not None and (due is None or when < due):
                due = when
        return due

    def listed(self) -> bool:
        """Shown in the public list of rooms waiting for players: public, with an open seat,
        and someone connected to it (rooms nobody is in cannot fill the list)."""
        return (
            self.options.visibility == "public"
            and self.status == "waiting"
            and self.occupied() < self.options.seats
            and self.someone_here()
        )

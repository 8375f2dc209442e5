"""One committed room as this process's connections see it: decoded once, rendered per seat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Self, TypeVar, cast, overload

import orjson

import engine
from app.rooms.model import Room
from app.rooms.public import RoomPublic, game_recorded, room_public
from app.transport.deflate import SharedCompression
from app.ws.messages import RoomMessage, StateMessage

_OPTIONS = orjson.OPT_NON_STR_KEYS
_Value = TypeVar("_Value")


class cached(Generic[_Value]):
    """``functools.cached_property`` without its lock: on Python 3.11 each first reading
    takes an ``RLock``, and a snapshot, used on the event loop's thread only, reads a dozen
    for the first time at every move."""

    def __init__(self, compute: Callable[[Any], _Value]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _Value: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Self | _Value:
        if instance is None:
            return self
        # Kept in the instance's own dict, which is read before this (non-data) descriptor.
        value = instance.__dict__[self._name] = self._compute(instance)
        return value


_NONE: list[dict[str, Any]] = []
"""The legal or blocked actions of a seat that has none: one list, never changed."""


def encode(message: dict[str, Any]) -> str:
    """A wire message as the one JSON text frame it is sent in (orjson: a view is encoded
    once per seat per move, and the standard library took a tenth of the server's time)."""
    return orjson.dumps(message, option=_OPTIONS).decode()


@dataclass(frozen=True, slots=True)
class LogMark:
    """How much of a game's log a connection has sent: the log as of the last ``state`` it
    sent, which its client holds whole. Its next ``state`` carries only what follows."""

    game: str
    """The game's id: a new game in the room (a rematch) starts its log over."""
    entries: int
    """How many entries the log had."""
    end: int
    """Where the log's text had its closing bracket. Within one game the text only grows at
    its end (``extended_log``), so what was added since starts there."""


class Snapshot:
    """A room at one version; every connection to it shares the decoding and each seat's
    message, rendered once to the text that is sent (spectators share one) for each place
    in the log the connections holding it start from.

    ``compression`` is the process's (its runtime's): each seat's text is told to it as
    ``joined`` from the seat's own head and the tail every seat shares, so that the tail is
    compressed once. Without it (the tests' and benches' snapshots that nothing sends) a text
    is only joined."""

    def __init__(self, room: Room, compression: SharedCompression | None = None) -> None:
        self.room = room
        self._compression = compression
        self._texts: dict[tuple[int | None, int], tuple[bytes, LogMark]] = {}
        """Each seat's state text and the log it leaves its client with, by seat and
        ``log_from``: most connections of a seat had the same previous version."""
        self._heads: dict[tuple[int, int, str | int | None, int], bytes] = {}
        """A state message's fields but its view, as JSON text up to the view's opening
        brace, by the identity of its legal and blocked lists, its ref and its ``log_from``:
        the seats waiting for others share theirs."""
        self._logs: dict[int, tuple[bytes, LogMark]] = {}
        """The log entries from ``log_from`` on as JSON text, and the log they complete."""
        self._own: dict[int | None, bytes] = {}
        """Each seat's own view fields as text (``_own_fields``)."""
        self._tails: dict[tuple[int, bool], tuple[bytes, LogMark]] = {}
        """The end of a state's text from its shared view fields on, by ``log_from``."""

    @property
    def version(self) -> int:
        return self.room.version

    def seat_of(self, token_hash: str) -> int | None:
        """The seat a token (by its hash) holds at this version."""
        return self._seat_by_token.get(token_hash)

    @cached
    def _seat_by_token(self) -> dict[str, int]:
        """Each person's seat by their token's hash (and their devices': ``Seat.devices``),
        for all the connections that ask. Looked up, not compared in constant time as
        ``Room.seat_of`` does: the hashes asked about are the server's own (each checked that
        way when its connection opened), not guesses."""
        seats: dict[str, int] = {}
        for index, seat in enumerate(self.room.seats):
            if seat is None or seat.token_hash is None:
                continue
            seats[seat.token_hash] = index
            for device in seat.devices:
                seats[device] = index
        return seats

    @cached
    def _engine_state(self) -> Any:
        """Held for as long as the snapshot: its connections may render it after the shared
        table of recent states has moved on."""
        return self.room.engine_state()

    @cached
    def _legal_actions(self) -> dict[int, list[dict[str, Any]]]:
        """Each seat's legal actions, worked out once for all the room's connections."""
        by_seat: dict[int, list[dict[str, Any]]] = {}
        for action in engine.legal_actions(self._engine_state):
            by_seat.setdefault(action["seat"], []).append(action)
        return by_seat

    @cached
    def _blocked(self) -> dict[int, list[dict[str, Any]]]:
        """Each seat's blocked actions; the seats waiting for others share one list."""
        return engine.blocked_for(self._engine_state)

    @cached
    def _views(self) -> dict[int | None, dict[str, Any]]:
        """Every seat's view and the spectators', their public part built once."""
        views: dict[int | None, dict[str, Any]] = engine.views_for(self._engine_state)
        return views

    @cached
    def _own_keys(self) -> tuple[str, ...]:
        """The fields of a view that are a seat's own (its seat and hand): in a seat's view,
        not the very object of the spectators' view (``engine.views_for`` gives every seat
        the same ones)."""
        public = self._views[None]
        seat = next((view for key, view in self._views.items() if key is not None), public)
        return tuple(key for key, value in seat.items() if public.get(key) is not value)

    @cached
    def _shared_fields(self) -> bytes:
        """The spectators' view without the own fields and the log, encoded once for every
        seat, without its braces (it follows a seat's own fields; the log follows it)."""
        own = self._own_keys
        public = self._views[None]
        shared = {key: value for key, value in public.items() if key not in own and key != "log"}
        return orjson.dumps(shared, option=_OPTIONS)[1:-1]

    @cached
    def _log(self) -> list[dict[str, Any]]:
        """The game's log, decoded for the messages built as objects (``state_message``)
        and to count a whole log's entries."""
        game = self.room.game
        assert game is not None
        log: list[dict[str, Any]] = orjson.loads(game.log)
        return log

    def _log_from(self, since: LogMark | None) -> int:
        """Where the log of a state to a connection that has sent the log ``since`` starts:
        after those entries, when they are this game's; else 0 (the whole log)."""
        game = self.room.game
        assert game is not None
        log = game.log
        if (
            since is None
            or since.game != game.id
            or since.end >= len(log)
            or log[since.end] not in ",]"
        ):
            return 0
        return since.entries

    def _log_part(self, since: LogMark | None, log_from: int) -> tuple[bytes, LogMark]:
        """The log entries a state to a connection that has sent ``since`` carries (from
        ``log_from``, which ``_log_from`` gives for it), as JSON text, and the log its client
        then holds. The game's log text as stored, or the end of it, spliced in: never
        encoded (a late game's log alone is 16 KB), and decoded only to count the entries."""
        part = self._logs.get(log_from)
        if part is None:
            game = self.room.game
            assert game is not None
            log, end = game.log, len(game.log) - 1
            if log_from == 0:
                part = (log.encode(), LogMark(game.id, len(self._log), end))
            else:
                assert since is not None
                # What follows the entries sent: "]" (none), or ",{…},{…}]".
                rest = log[since.end + 1 :]
                added = b"[" + rest.encode() if rest else b"[]"
                part = (added, LogMark(game.id, log_from + len(orjson.loads(added)), end))
            self._logs[log_from] = part
        return part

    def _own_fields(self, seat: int | None) -> bytes:
        """A seat's own view fields (``_own_keys``) as JSON text without braces; the shared
        fields follow them."""
        fields = self._own.get(seat)
        if fields is None:
            view = self._views[seat]
            own = {key: view[key] for key in self._own_keys}
            fields = self._own[seat] = orjson.dumps(own, option=_OPTIONS)[1:-1]
        return fields

    def _tail(
        self, since: LogMark | None, log_from: int, after_fields: bool
    ) -> tuple[bytes, LogMark]:
        """What every seat's state that starts its log at ``log_from`` ends with: the
        shared view fields, the log from there and the closing braces (``after_fields``: the
        view has fields before its log); and the log it leaves its client with. One object
        for all those states (``joined``)."""
        tail = self._tails.get((log_from, after_fields))
        if tail is None:
            log, mark = self._log_part(since, log_from)
            opening = b',"log":' if after_fields else b'"log":'
            text = b"".join([self._shared_fields, opening, log, b"}}"])
            tail = self._tails[(log_from, after_fields)] = (text, mark)
        return tail

    @cached
    def _refs(self) -> dict[int, str | int]:
        """The ``ref`` of the act that made this version, by the seat that sent it: the last
        one remembered, if it made this version (refs are remembered in the order applied)."""
        game = self.room.game
        if game is None or not game.refs:
            return {}
        key, version = next(reversed(game.refs.items()))
        if version != self.room.version:
            return {}
        seat, _, ref = key.partition(":")
        return {int(seat): orjson.loads(ref)}

    @cached
    def _room_public(self) -> RoomPublic:
        return room_public(self.room)

    @cached
    def room_summary(self) -> tuple[Any, ...]:
        """What the public summary (``room_public``) shows but its version, as plain values:
        a connection sends the summary again only when these changed since it last sent one
        (a move changes only the version). Building the summary itself to compare it cost a
        tenth of a move's rendering. Follows ``room_public`` field by field (tested)."""
        room, game = self.room, self.room.game
        return (
            room.status,
            room.host,
            room.options.__dict__,
            [
                None
                if seat is None
                else (seat.name, seat.level, seat.away, seat.disconnected_at is None)
                for seat in room.seats
            ],
            None if game is None else (game.id, game.winners, game.totals, game_recorded(room)),
        )

    @cached
    def room_text(self) -> str:
        return RoomMessage(room=self._room_public).model_dump_json()

    def state_text(
        self, seat: int | None, since: LogMark | None = None
    ) -> tuple[bytes, LogMark] | None:
        """``state_message`` as sent, in UTF-8, to a connection that has sent the log
        ``since`` (None: nothing of this game's), and the log its client then holds; None
        before the first game.

        Its view carries the log entries after ``since``, or the whole log (``log_from``
        0) when ``since`` is not this game's. Rendered once per seat and ``log_from`` for
        every connection of that seat, and joined from pieces of text rather than encoded
        whole (its view last). Bytes, not a string: the frame carries bytes, and decoding
        each text to encode it again for every connection copied every view twice."""
        fields = self._fields(seat)
        if fields is None:
            return None
        log_from = self._log_from(since)
        key = (seat, log_from)
        rendered = self._texts.get(key)
        if rendered is None:
            legal, blocked, ref = fields
            shape = (id(legal), id(blocked), ref, log_from)
            head = self._heads.get(shape)
            if head is None:
                rest = self._message(legal, blocked, ref, log_from)
                head = orjson.dumps(rest, option=_OPTIONS)[:-1] + b',"view":{'
                self._heads[shape] = head
            own, shared = self._own_fields(seat), self._shared_fields
            tail, mark = self._tail(since, log_from, bool(own or shared))
            # Two pieces, the seat's own and the tail every seat's state shares, for the
            # compression to make the tail once (``joined``).
            pieces = [b"".join([head, own, b"," if own and shared else b""]), tail]
            compression = self._compression
            text = b"".join(pieces) if compression is None else compression.joined(pieces)
            rendered = self._texts[key] = (text, mark)
        return rendered

    def log_mark(self) -> LogMark | None:
        """The log a client holds after a whole state of this version; None before the
        first game (for the tests of ``state_text``'s marks)."""
        if self.room.game is None:
            return None
        return self._log_part(None, 0)[1]

    def state_message(self, seat: int | None) -> StateMessage | None:
        """The ``state`` message for a seat (None: a spectator), with the whole log
        (``log_from`` 0), built as an object; None before the first game. Nothing sends it:
        it is what the joined texts of ``state_text`` are checked against
        (``tests/app/ws/test_snapshot.py``)."""
        fields = self._fields(seat)
        if fields is None:
            return None
        message = self._message(*fields, log_from=0)
        message["view"] = {**self._views[seat], "log": self._log}
        return cast(StateMessage, message)

    def _fields(
        self, seat: int | None
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | int | None] | None:
        """A seat's legal and blocked actions and the ref it is answered; None before the
        first game."""
        if self.room.game is None:
            return None
        state = self._engine_state
        legal = blocked = _NONE
        if seat is not None and not engine.is_over(state):
            legal = self._legal_actions.get(seat, _NONE)
            blocked = self._blocked[seat]
        ref = None if seat is None else self._refs.get(seat)
        return legal, blocked, ref

    def _message(
        self,
        legal: list[dict[str, Any]],
        blocked: list[dict[str, Any]],
        ref: str | int | None,
        log_from: int,
    ) -> dict[str, Any]:
        """A state message's fields but its view (``state_message`` adds it; ``state_text``
        splices its text in)."""
        game = self.room.game
        assert game is not None
        return {
            "type": "state",
            "version": self.room.version,
            "legal": legal,
            "blocked": blocked,
            "deadline": game.deadline,
            "ref": ref,
            "log_from": log_from,
        }

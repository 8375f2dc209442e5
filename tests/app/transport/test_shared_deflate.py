"""Per-message deflate with the compression shared between connections
(``app/transport/deflate.py``)."""

from __future__ import annotations

import random
import zlib

import pytest
from websockets.asyncio.client import connect
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

import engine
from app.rooms import play
from app.transport import deflate
from app.transport.deflate import WINDOW_BITS, SharedDeflate, deflated, joined
from app.ws.snapshot import LogMark, Snapshot
from tests.app.conftest import base_settings
from tests.app.live import connect_client, create_room, live_server, ws_url
from tests.app.tables import people, started_room


def _inflate(compressed: bytes) -> bytes:
    return zlib.decompressobj(wbits=-WINDOW_BITS).decompress(compressed + b"\x00\x00\xff\xff")


def test_a_text_is_compressed_once_for_every_connection_that_sends_it() -> None:
    text = b'{"type":"state","view":{"players":[' + b'{"stack":[]},' * 200 + b"{}]}}"
    first = deflated(text)
    assert _inflate(first) == text
    assert len(first) < len(text) / 10
    assert deflated(text) is first, "the same text: the same compressed bytes, not made again"
    other = bytes(text)  # equal but another object, as another seat's text would be
    assert deflated(other) == first


def test_shared_frames_are_read_by_a_standard_per_message_deflate_peer() -> None:
    """What the client side of RFC 7692 decodes, with no context takeover both ways."""
    server = SharedDeflate(True, True, WINDOW_BITS, WINDOW_BITS, {"memLevel": 5})
    client = PerMessageDeflate(True, True, WINDOW_BITS, WINDOW_BITS)
    for text in (b'{"a":1}', b'{"b":"' + b"x" * 5000 + b'"}', b'{"a":1}'):
        frame = server.encode(Frame(Opcode.TEXT, text))
        assert frame.rsv1
        assert client.decode(frame).data == text
    assert not hasattr(server, "encoder"), "no compressor is kept between messages"


@pytest.mark.parametrize("compression", [True, False])
async def test_a_browser_like_client_negotiates_it_and_plays(compression: bool) -> None:
    async with (
        live_server(base_settings(ws_compression=compression)) as server,
        server.http() as http,
    ):
        code, host = await create_room(http, seats=2)
        async with connect(ws_url(server, code), compression="deflate") as socket:
            offered = socket.response.headers.get("Sec-WebSocket-Extensions", "")
        if compression:
            assert "permessage-deflate" in offered
            assert "server_no_context_takeover" in offered
            assert "client_no_context_takeover" in offered
        else:
            assert offered == ""
        client = await connect_client(server, code, host)
        room = await client.wait_for("room")
        assert room["room"]["code"] == code
        await client.close()


def test_a_text_joined_from_pieces_is_compressed_piece_by_piece_each_piece_once() -> None:
    """``joined``: two texts sharing their tail compress it once, and each reads back whole,
    to a standard peer too; an empty piece is left out."""
    tail = b'"players":[' + b'{"stack":[{"kind":"coins","value":1000}]},' * 60 + b"{}]}}"
    first = joined([b'{"seat":0,"hand":[1,2,3],', tail])
    second = joined([b'{"seat":1,"hand":[4,5],', b"", tail])
    compressed = [deflated(first), deflated(second)]
    assert [_inflate(each) for each in compressed] == [first, second]
    assert all(len(each) < len(tail) / 5 for each in compressed)
    # Both end with the tail compressed on its own, as any text is.
    shared = deflated(tail + b"")  # the tail alone, compressed as any text is
    assert compressed[0].endswith(shared) and compressed[1].endswith(shared)
    client = PerMessageDeflate(True, True, WINDOW_BITS, WINDOW_BITS)
    server = SharedDeflate(True, True, WINDOW_BITS, WINDOW_BITS, {"memLevel": 5})
    for text in (first, second):
        assert client.decode(server.encode(Frame(Opcode.TEXT, text))).data == text


def test_each_seats_state_reads_back_whole_and_shares_its_tail_with_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every seat's and a spectator's ``state`` of each move, as per-message deflate sends
    it, inflates to the text rendered; the tail they share is compressed once a move."""
    compressed: list[int] = []
    compress = deflate._compressed

    def counted(data: bytes | bytearray | memoryview) -> bytes:
        compressed.append(len(data))
        return compress(data)

    monkeypatch.setattr(deflate, "_compressed", counted)
    room, rng = started_room(people(4), seed=12), random.Random(12)
    marks: dict[int | None, LogMark | None] = {}
    for _ in range(60):
        snapshot = Snapshot(room)
        compressed.clear()
        for seat in (None, 0, 1, 2, 3):
            rendered = snapshot.state_text(seat, marks.get(seat))
            assert rendered is not None
            text, marks[seat] = rendered
            assert _inflate(deflated(text)) == text
        assert len(compressed) == 6, "five heads and one tail"
        state = room.engine_state()
        action = rng.choice(engine.legal_actions(state))
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1

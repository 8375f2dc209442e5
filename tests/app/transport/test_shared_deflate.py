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
from app.main import create_app
from app.rooms import play
from app.store.memory import MemoryRoomStore
from app.transport import deflate
from app.transport.deflate import WINDOW_BITS, SharedCompression, SharedDeflate
from app.transport.websocket import SHARED_COMPRESSION
from app.ws.snapshot import LogMark, Snapshot
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder, connect_client, create_room, live_server, ws_url
from tests.app.tables import people, started_room


def _inflate(compressed: bytes) -> bytes:
    return zlib.decompressobj(wbits=-WINDOW_BITS).decompress(compressed + b"\x00\x00\xff\xff")


def test_a_text_is_compressed_once_for_every_connection_that_sends_it() -> None:
    deflated = SharedCompression().deflated
    text = b'{"type":"state","view":{"players":[' + b'{"stack":[]},' * 200 + b"{}]}}"
    first = deflated(text)
    assert _inflate(first) == text
    assert len(first) < len(text) / 10
    assert deflated(text) is first, "the same text: the same compressed bytes, not made again"
    other = bytes(text)  # equal but another object, as another seat's text would be
    assert deflated(other) == first


def test_the_compression_keeps_as_many_texts_and_pieces_as_it_is_made_to() -> None:
    """Its bounds are its own: past them the oldest is compressed again when sent again."""
    compression = SharedCompression(texts=2, pieces=2)
    texts = [bytes([65 + number]) * 500 for number in range(3)]
    first = [compression.deflated(text) for text in texts]
    assert compression.deflated(texts[2]) is first[2], "the newest is kept"
    again = compression.deflated(texts[0])
    assert again == first[0] and again is not first[0], "the oldest was let go"
    tail = b"t" * 500
    joined = [compression.joined([bytes([97 + number]) * 100, tail]) for number in range(3)]
    assert compression.pieces_of(joined[2]) is not None
    assert compression.pieces_of(joined[0]) is None, "past its bound a text is compressed whole"
    assert compression.pieces_of(bytes(bytearray(joined[2]))) is None, "only the text joined"


async def test_the_runtime_hands_its_compression_to_its_snapshots_and_its_server() -> None:
    """One compression per process, the runtime's: its hub's snapshots tell it what each
    text is joined from, and the lifespan's state hands it to the server's WebSocket
    protocol (``SendNowProtocol``), which compresses every frame with it."""
    app = create_app(base_settings(), store=MemoryRoomStore(), recorder=ListRecorder())
    async with app.router.lifespan_context(app) as state:
        assert state is not None
        runtime = app.state.runtime
        assert isinstance(runtime.compression, SharedCompression)
        assert state[SHARED_COMPRESSION] is runtime.compression
        assert runtime.hub.compression is runtime.compression


def test_shared_frames_are_read_by_a_standard_per_message_deflate_peer() -> None:
    """What the client side of RFC 7692 decodes, with no context takeover both ways."""
    compression = SharedCompression()
    server = SharedDeflate(compression, True, True, WINDOW_BITS, WINDOW_BITS, {"memLevel": 5})
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
    compression = SharedCompression()
    joined, deflated = compression.joined, compression.deflated
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
    server = SharedDeflate(compression, True, True, WINDOW_BITS, WINDOW_BITS, {"memLevel": 5})
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
    compression = SharedCompression()
    deflated = compression.deflated
    room, rng = started_room(people(4), seed=12), random.Random(12)
    marks: dict[int | None, LogMark | None] = {}
    for _ in range(60):
        snapshot = Snapshot(room, compression)
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

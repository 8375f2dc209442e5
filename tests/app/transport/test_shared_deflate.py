"""Per-message deflate with the compression shared between connections
(``app/transport/deflate.py``)."""

from __future__ import annotations

import zlib

import pytest
from websockets.asyncio.client import connect
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from app.transport.deflate import WINDOW_BITS, SharedDeflate, deflated
from tests.app.conftest import base_settings
from tests.app.live import connect_client, create_room, live_server, ws_url


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

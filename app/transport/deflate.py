"""Per-message deflate with the compressing shared: one compression per text, not per socket.

A move sends each seat of the room its own ``state``, rendered once per seat and shared by
every connection that holds that seat (``app/ws/snapshot.py``). Plain per-message deflate would
compress that text again for each connection, each with a compressor of its own kept between
messages (tens of KiB per connection). Here both sides agree on *no context takeover*: every
message is compressed on its own, so the same text always compresses to the same bytes, which
are made once and reused by every connection that sends that text; and no zlib state outlives a
message, so an idle connection holds none. The seats' states of one move share most of their
bytes, and that part is compressed once for all of them (``joined``). A 4-player state after
move 20 goes from 5.0 KB to 1.2 KB on the wire at the median (``tests/app/ws/test_snapshot.py``,
seed 43; ``docs/performance.md``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import CTRL_OPCODES, Frame, Opcode
from websockets.typing import ExtensionParameter
from zlib_ng import zlib_ng

WINDOW_BITS = 12
"""The LZ77 window both ways: a state is a few KB, and a smaller window is a smaller
compressor while one runs."""
LEVEL = 6
"""zlib's level (its default). Lower levels compress faster but send more, and the bytes sent
to players cost more than the cores (``docs/scaling.md``): at 3, a move's states took 17-20%
less CPU to compress and were 10% larger on the wire (``bench/deflate.py``;
``docs/performance.md``, "Rendering and sending the seats' states")."""
_MEM_LEVEL = 5

TEXTS_KEPT = 256
"""Compressed texts a process keeps by default, by the identity of the text: every seat's
state of the last few moves of every busy room is sent to its connections within a moment of
being rendered. The texts ``joined`` from pieces are remembered as many."""
PIECES_KEPT = 1024
"""Compressed pieces a process keeps by default (``joined``), by the identity of the piece."""


def _compressed(data: bytes | bytearray | memoryview, level: int = LEVEL) -> bytes:
    """``data`` compressed on its own, ending with a sync flush's empty block (``level``:
    another than the server's, for ``bench/deflate.py``).

    By zlib-ng, not the standard library's zlib: the same format, which any RFC 7692 peer
    inflates, and as small at this level, in about four fifths of the time
    (``bench/deflate.py --compare``)."""
    encoder = zlib_ng.compressobj(level, wbits=-WINDOW_BITS, memLevel=_MEM_LEVEL)
    return encoder.compress(data) + encoder.flush(zlib_ng.Z_SYNC_FLUSH)


class SharedCompression:
    """The texts a process sends, compressed once for every connection that sends them.

    The process's runtime makes one (``app/runtime.py``) and hands it to its snapshots, which
    say what each text is ``joined`` from, and to its WebSocket connections, whose frames are
    ``deflated`` by it. Everything kept is held by its object and looked up by that object's
    identity (hashing a state's text at every send would cost more than compressing it): a
    text or piece kept cannot be freed, so its identity is not reused while it is kept."""

    def __init__(self, *, texts: int = TEXTS_KEPT, pieces: int = PIECES_KEPT) -> None:
        self.texts = texts
        """How many compressed texts are kept, and texts remembered as ``joined``."""
        self.pieces = pieces
        """How many compressed pieces are kept."""
        self._recent: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()
        """Compressed texts, by the identity of the text: the text and its compressed bytes."""
        self._made_of: OrderedDict[int, tuple[bytes, tuple[bytes, ...]]] = OrderedDict()
        """Texts ``joined`` from pieces, by the identity of the text: the text and its pieces."""
        self._pieces: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()
        """Compressed pieces, by the identity of the piece: the piece and its compressed bytes."""

    def joined(self, pieces: list[bytes]) -> bytes:
        """``b"".join(pieces)``, compressed (``deflated``) piece by piece: each piece on its
        own, once however many texts hold it. A compressed piece ends with a sync flush (an
        empty stored block, at a byte boundary) and refers to nothing before it, so the
        pieces' compressed bytes, one after the other, are one valid deflate stream of the
        whole text (RFC 1951, 3.2.4), which any RFC 7692 peer reads.

        Every seat's ``state`` of a move ends with the same public view and log, three
        quarters of its bytes: compressed whole, each seat's text took about 55 µs of
        deflate, four times a move; that shared tail compressed once, and each seat's own
        head, take about half as much, for about 7% more bytes (what the head and the tail
        have in common is not referred to across them; ``docs/performance.md``, "Rendering
        and sending the seats' states")."""
        text = b"".join(pieces)
        self._made_of[id(text)] = (text, tuple(piece for piece in pieces if piece))
        if len(self._made_of) > self.texts:
            self._made_of.popitem(last=False)
        return text

    def pieces_of(self, text: bytes | bytearray | memoryview) -> tuple[bytes, ...] | None:
        """The pieces ``deflated`` compresses ``text`` in, one by one: those it was
        ``joined`` from, if it is among the recent texts joined; None if it is compressed
        whole."""
        made = self._made_of.get(id(text))
        if made is not None and made[0] is text and made[1]:
            return made[1]
        return None

    def deflated(self, data: bytes | bytearray | memoryview) -> bytes:
        """``data`` as one compressed message (RFC 7692, no context takeover, without the
        final empty block); the same object compressed once however many connections send
        it, and a text ``joined`` from pieces compressed piece by piece."""
        key = id(data)
        hit = self._recent.get(key)
        if hit is not None and hit[0] is data:
            self._recent.move_to_end(key)
            return hit[1]
        pieces = self.pieces_of(data)
        if pieces is not None:
            compressed = b"".join([self._compressed_piece(piece) for piece in pieces])
        else:
            compressed = _compressed(data)
        compressed = compressed[:-4]  # the empty block that ends a sync flush
        if isinstance(data, bytes):  # a string encoded for one connection is not worth keeping
            self._recent[key] = (data, compressed)  # the text is held, so its id is not reused
            if len(self._recent) > self.texts:
                self._recent.popitem(last=False)
        return compressed

    def _compressed_piece(self, piece: bytes) -> bytes:
        key = id(piece)
        hit = self._pieces.get(key)
        if hit is not None and hit[0] is piece:
            return hit[1]
        compressed = _compressed(piece)
        self._pieces[key] = (piece, compressed)  # the piece is held, so its id is not reused
        if len(self._pieces) > self.pieces:
            self._pieces.popitem(last=False)
        return compressed


class SharedDeflate(PerMessageDeflate):
    """``PerMessageDeflate`` whose whole outgoing messages come from a ``SharedCompression``."""

    def __init__(
        self,
        compression: SharedCompression,
        remote_no_context_takeover: bool,
        local_no_context_takeover: bool,
        remote_max_window_bits: int,
        local_max_window_bits: int,
        compress_settings: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            remote_no_context_takeover,
            local_no_context_takeover,
            remote_max_window_bits,
            local_max_window_bits,
            compress_settings,
        )
        self.compression = compression

    def encode(self, frame: Frame) -> Frame:
        if frame.opcode in CTRL_OPCODES or frame.opcode is Opcode.CONT or not frame.fin:
            return super().encode(frame)
        compressed = self.compression.deflated(frame.data)
        return Frame(frame.opcode, compressed, True, True, frame.rsv2, frame.rsv3)


class SharedDeflateFactory(ServerPerMessageDeflateFactory):
    """The server's offer: no context takeover either way, 12-bit windows; the messages
    compressed by ``compression``, the process's."""

    def __init__(self, compression: SharedCompression) -> None:
        super().__init__(
            server_no_context_takeover=True,
            client_no_context_takeover=True,
            server_max_window_bits=WINDOW_BITS,
            client_max_window_bits=WINDOW_BITS,
            compress_settings={"memLevel": _MEM_LEVEL},
        )
        self.compression = compression

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, extension = super().process_request_params(params, accepted_extensions)
        if extension.local_max_window_bits != WINDOW_BITS:
            return response, extension  # the client asked for a smaller window: not shared
        shared = SharedDeflate(
            self.compression,
            extension.remote_no_context_takeover,
            extension.local_no_context_takeover,
            extension.remote_max_window_bits,
            extension.local_max_window_bits,
            {"memLevel": _MEM_LEVEL},
        )
        return response, shared

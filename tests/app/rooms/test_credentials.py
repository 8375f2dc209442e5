"""Room codes, seat tokens, the Origin check, flood control and log redaction."""

from __future__ import annotations

import logging

from app.logs import RedactTokens, redact
from app.rooms.credentials import (
    CODE_ALPHABET,
    CODE_LENGTH,
    hash_token,
    hashes_match,
    new_room_code,
    new_seat_token,
    normalize_room_code,
)
from app.ws.limits import TokenBucket, origin_allowed


def test_room_codes_use_crockford_base32_without_ambiguous_letters() -> None:
    codes = {new_room_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET) for code in codes)
    assert not set("ILOU") & set(CODE_ALPHABET)


def test_a_typed_code_is_read_the_crockford_way() -> None:
    assert normalize_room_code(" abcd-efgh ") == "ABCDEFGH"
    assert normalize_room_code("oooo1111") == "00001111"
    assert normalize_room_code("LLLL0000") == "11110000"
    assert normalize_room_code("UUUUUUUU") is None
    assert normalize_room_code("ABC") is None


def test_seat_tokens_carry_128_bits_and_are_kept_only_as_hashes() -> None:
    token = new_seat_token()
    assert len(token) == 22  # 16 bytes, URL-safe base64 without padding
    stored = hash_token(token)
    assert token not in stored
    assert hashes_match(hash_token(token), stored)
    assert not hashes_match(hash_token(new_seat_token()), stored)
    assert not hashes_match(stored, None)


def test_the_origin_must_be_this_site_or_listed() -> None:
    assert origin_allowed(None, "game.example", [])
    assert origin_allowed("https://game.example", "game.example", [])
    assert not origin_allowed("https://evil.example", "game.example", [])
    assert origin_allowed("https://app.example/", "game.example", ["https://app.example"])
    assert origin_allowed("https://any.example", "game.example", ["*"])


def test_the_token_bucket_allows_a_burst_then_the_rate() -> None:
    bucket = TokenBucket(rate=0.0, burst=3)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_tokens_in_logged_urls_are_redacted() -> None:
    record = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        __file__,
        1,
        '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5000", "/ws/ABCDEFGH?token=s3cr3t-T0ken"),
        None,
    )
    assert RedactTokens().filter(record)
    assert "s3cr3t" not in record.getMessage()
    assert "token=***" in record.getMessage()


def test_logged_lines_lose_query_values_player_ids_and_uuids() -> None:
    guest = "0b7e6c55-3f0e-4d7b-9c55-6a0f1e2d3c4b"
    line = redact(
        f'"GET /ws/ABCDEFGH?a=1&%74oken=s3cr3t HTTP/1.1" /api/players/{guest.upper()}/games '
        f"[parameters: ('{guest.replace('-', '')}',)] /api/players/p-42/games"
    )
    assert "s3cr3t" not in line and guest[:8] not in line.lower()
    assert "p-42" not in line and "/ws/ABCDEFGH?a=***&%74oken=***" in line

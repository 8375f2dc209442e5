"""What the server's own Redis client (``app/resp/``) takes from redis-py and hiredis, held to
what it expects: each test fails loudly when an upgrade changes one of these seams, before a
URL, a TLS setting, a slot or a reply could mean something else to the client than to
redis-py."""

from __future__ import annotations

import ssl

import hiredis
import pytest
import redis
from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection, parse_url
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError

TESTED_MAJORS = {"redis": 8, "hiredis": 3}
"""The major versions these seams were read from (``pyproject.toml`` pins the same)."""


def test_the_installed_majors_are_the_tested_ones() -> None:
    assert int(redis.__version__.split(".")[0]) == TESTED_MAJORS["redis"]
    assert int(hiredis.__version__.split(".")[0]) == TESTED_MAJORS["hiredis"]


def test_parse_url_gives_the_fields_connect_reads() -> None:
    options = parse_url("redis://stash:s%20cret@cache.example:6390/3")
    assert options["host"] == "cache.example"
    assert options["port"] == 6390
    assert options["db"] == 3
    assert options["username"] == "stash"
    assert options["password"] == "s cret"
    assert "connection_class" not in options
    assert "path" not in options


def test_parse_url_without_credentials_or_database_leaves_them_out() -> None:
    options = parse_url("redis://127.0.0.1")
    assert options.get("password") is None
    assert options.get("username") is None
    assert not options.get("db")
    assert "port" not in options  # connect falls back to 6379


def test_parse_url_of_a_unix_socket_gives_its_path() -> None:
    options = parse_url("unix:///run/redis.sock?db=2")
    assert options["path"] == "/run/redis.sock"
    assert options["connection_class"] is UnixDomainSocketConnection
    assert options["db"] == 2


def test_parse_url_of_rediss_names_the_tls_class_and_keeps_ssl_settings() -> None:
    options = parse_url("rediss://host:6380/0?ssl_cert_reqs=none&ssl_ca_certs=/ca.pem")
    assert options["connection_class"] is SSLConnection
    settings = {key: value for key, value in options.items() if key.startswith("ssl_")}
    assert settings == {"ssl_cert_reqs": "none", "ssl_ca_certs": "/ca.pem"}


def test_ssl_connection_makes_the_context_its_settings_ask_for() -> None:
    verifying = SSLConnection(ssl_cert_reqs="required").ssl_context.get()
    assert isinstance(verifying, ssl.SSLContext)
    assert verifying.verify_mode == ssl.CERT_REQUIRED
    trusting = SSLConnection(ssl_cert_reqs="none").ssl_context.get()
    assert trusting.verify_mode == ssl.CERT_NONE
    assert trusting.check_hostname is False


def test_key_slot_follows_the_cluster_spec_and_hash_tags() -> None:
    assert key_slot(b"foo") == 12182  # the Redis Cluster specification's own example
    assert key_slot(b"stash:{ROOM42}:room") == key_slot(b"ROOM42")
    assert key_slot(b"stash:{ROOM42}:chat") == key_slot(b"stash:{ROOM42}:room")
    assert 0 <= key_slot(b"anything") < 16384


def test_the_exception_types_keep_their_family() -> None:
    assert issubclass(RedisConnectionError, RedisError)
    assert issubclass(ResponseError, RedisError)
    assert not issubclass(RedisConnectionError, OSError)


def test_hiredis_packs_a_command_as_resp() -> None:
    assert hiredis.pack_command(("SET", "key", "v a l", 42)) == (
        b"*4\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nv a l\r\n$2\r\n42\r\n"
    )


def test_hiredis_reader_gives_replies_in_order_and_false_while_incomplete() -> None:
    reader = hiredis.Reader(encoding="utf-8")
    reader.feed(b"+OK\r\n$5\r\nhel")
    assert reader.gets() == "OK"
    assert reader.gets() is False
    reader.feed(b"lo\r\n-ERR wrong\r\n*2\r\n:1\r\n$-1\r\n")
    assert reader.gets() == "hello"
    error = reader.gets()
    assert isinstance(error, hiredis.ReplyError)
    assert str(error) == "ERR wrong"
    assert reader.gets() == [1, None]
    assert reader.gets() is False


def test_hiredis_reader_raises_protocol_error_on_garbage() -> None:
    reader = hiredis.Reader(encoding="utf-8")
    reader.feed(b"?what\r\n")
    with pytest.raises(hiredis.ProtocolError):
        reader.gets()

"""The server's own Redis client against a real Redis that asks for a password, and one that
speaks only TLS: a URL means to it what it means to redis-py (``app/resp/connection.py``)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from app.resp.connection import connect
from app.resp.nodes import Nodes
from tests.conftest import need_service
from tests.redis_cluster import HOST, cluster_tools_problem, free_node_ports

PASSWORD = "correct horse battery staple"
USER = "stash"
USER_PASSWORD = "another secret"


def _tools_problem() -> str | None:
    if problem := cluster_tools_problem():
        return problem
    if shutil.which("openssl") is None:
        return "openssl not found (Debian: apt-get install openssl): it makes test certificates"
    return None


@contextlib.contextmanager
def _redis_server(directory: Path, port: int, *options: str) -> Iterator[subprocess.Popen[bytes]]:
    """A ``redis-server`` with ``options`` listening on ``port`` (plain or TLS), stopped
    afterwards; its log in ``directory``."""
    process = subprocess.Popen(
        ["redis-server", "--bind", HOST, "--save", "", "--appendonly", "no",
         "--dir", str(directory), "--logfile", "redis.log", *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not _listening(port):
            log = directory / "redis.log"
            assert process.poll() is None, log.read_text() if log.exists() else "no log"
            assert time.monotonic() < deadline, f"redis-server does not listen on {port}"
            time.sleep(0.05)
        yield process
    finally:
        process.kill()
        process.wait()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((HOST, port)) == 0


def _cli(port: int, *command: str) -> str:
    done = subprocess.run(
        ["redis-cli", "-h", HOST, "-p", str(port), "--no-auth-warning", "-a", PASSWORD, *command],
        capture_output=True, text=True, check=False, timeout=10,
    )  # fmt: skip
    return done.stdout.strip() + done.stderr.strip()


@pytest.fixture
def password_redis(tmp_path: Path) -> Iterator[int]:
    """A Redis whose default user needs ``PASSWORD``, with an ACL user ``USER`` too."""
    need_service("redis-server", cluster_tools_problem())
    (port,) = free_node_ports(1)
    with _redis_server(tmp_path, port, "--port", str(port), "--requirepass", PASSWORD):
        acl = _cli(port, "ACL", "SETUSER", USER, "on", f">{USER_PASSWORD}", "~*", "&*", "+@all")
        assert acl == "OK", acl
        yield port


@pytest.fixture
def tls_redis(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A Redis that speaks only TLS, with a certificate from a test authority; yields its port
    and the authority's certificate."""
    need_service("redis-server and openssl", _tools_problem())
    ca_key, ca_cert = tmp_path / "ca.key", tmp_path / "ca.crt"
    key, request, cert = tmp_path / "redis.key", tmp_path / "redis.csr", tmp_path / "redis.crt"
    extensions = tmp_path / "san.cnf"
    extensions.write_text(f"subjectAltName = IP:{HOST}\n")
    for command in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
         "-keyout", ca_key, "-out", ca_cert],
        ["req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={HOST}", "-keyout", key,
         "-out", request],
        ["x509", "-req", "-in", request, "-CA", ca_cert, "-CAkey", ca_key, "-CAcreateserial",
         "-days", "2", "-extfile", extensions, "-out", cert],
    ):  # fmt: skip
        subprocess.run(["openssl", *map(str, command)], capture_output=True, check=True)
    (port,) = free_node_ports(1)
    with _redis_server(
        tmp_path, port, "--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert),
        "--tls-key-file", str(key), "--tls-ca-cert-file", str(ca_cert),
        "--tls-auth-clients", "no",
    ) as process:  # fmt: skip
        yield port, ca_cert
        assert process.poll() is None


async def test_a_password_in_the_url_authenticates_the_default_user(password_redis: int) -> None:
    url = f"redis://:{PASSWORD.replace(' ', '%20')}@{HOST}:{password_redis}/3"
    connection = await connect(url, name="cash-stash-test")
    try:
        assert await connection.call("SET", "greeting", "hello") == "OK"
        assert await connection.call("GET", "greeting") == "hello"
        assert await connection.call("CLIENT", "INFO") is not None
        assert "db=3" in await connection.call("CLIENT", "INFO")
        assert await connection.call("CLIENT", "GETNAME") == "cash-stash-test"
        assert await connection.call("ACL", "WHOAMI") == "default"
    finally:
        connection.close()


async def test_a_user_and_password_in_the_url_authenticate_that_user(password_redis: int) -> None:
    url = f"redis://{USER}:{USER_PASSWORD.replace(' ', '%20')}@{HOST}:{password_redis}/0"
    connection = await connect(url, name="cash-stash-test")
    try:
        assert await connection.call("ACL", "WHOAMI") == USER
    finally:
        connection.close()


async def test_a_wrong_password_is_refused_and_no_connection_is_left(password_redis: int) -> None:
    with pytest.raises(ResponseError, match="WRONGPASS"):
        await connect(f"redis://:wrong@{HOST}:{password_redis}/0", name="cash-stash-test")


async def test_no_password_is_refused_at_the_first_command(password_redis: int) -> None:
    with pytest.raises(ResponseError, match="NOAUTH"):
        await connect(f"redis://{HOST}:{password_redis}/0", name="cash-stash-test")


async def test_nodes_send_commands_with_the_urls_credentials(password_redis: int) -> None:
    url = f"redis://:{PASSWORD.replace(' ', '%20')}@{HOST}:{password_redis}/0"
    nodes = Nodes(url, cluster=False, name="cash-stash-test", reply_seconds=5, deadline_seconds=5)
    try:
        await nodes.start()
        assert await nodes.call("stash", "SET", "stash", "42", retry=True) == "OK"
        assert await nodes.call("stash", "GET", "stash", retry=True) == "42"
    finally:
        nodes.close()


async def test_rediss_speaks_tls_and_checks_the_servers_certificate(
    tls_redis: tuple[int, Path],
) -> None:
    port, authority = tls_redis
    url = f"rediss://{HOST}:{port}/0?ssl_ca_certs={authority}&ssl_cert_reqs=required"
    connection = await connect(url, name="cash-stash-test")
    try:
        assert await connection.call("PING") == "PONG"
        assert connection._transport is not None
        assert connection._transport.get_extra_info("ssl_object") is not None
    finally:
        connection.close()


@pytest.fixture
def other_authority(tmp_path: Path) -> Path:
    """A certificate authority the server's certificate does not come from."""
    key, cert = tmp_path / "other.key", tmp_path / "other.crt"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=other CA", "-keyout", str(key), "-out", str(cert)],
        capture_output=True, check=True,
    )  # fmt: skip
    return cert


async def test_a_certificate_from_another_authority_is_refused(
    tls_redis: tuple[int, Path], other_authority: Path
) -> None:
    port, _ = tls_redis
    url = f"rediss://{HOST}:{port}/0?ssl_ca_certs={other_authority}&ssl_cert_reqs=required"
    with pytest.raises(OSError, match=r"certificate verify failed"):
        await connect(url, name="cash-stash-test")


async def test_plain_redis_to_a_tls_port_fails_instead_of_hanging(
    tls_redis: tuple[int, Path],
) -> None:
    port, _ = tls_redis
    with pytest.raises(RedisConnectionError, match="closed"):
        await connect(f"redis://{HOST}:{port}/0", name="cash-stash-test", reply_seconds=2)

"""The HTTP protocol's reading of ``forwarded_allow_ips``: whose connections it never counts."""

from __future__ import annotations

import ipaddress

from app.transport.http import GuardedHttpProtocol, trusted_networks


def test_trusted_proxies_are_addresses_networks_or_everyone() -> None:
    assert trusted_networks("*") is None
    assert trusted_networks("127.0.0.1, 10.0.0.0/8,::1") == [
        ipaddress.ip_network("127.0.0.1"),
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("::1"),
    ]
    assert trusted_networks("/run/proxy.sock") == [], "a socket's path names no address"


def test_each_configured_protocol_counts_on_its_own() -> None:
    def configured() -> type[GuardedHttpProtocol]:
        return GuardedHttpProtocol.configured(
            head_seconds=1,
            body_seconds=1,
            connections_per_address=2,
            forwarded_allow_ips="10.0.0.0/8",
        )

    first, second = configured(), configured()
    assert first._open is not second._open, "two servers in one process must not share a count"
    protocol = first.__new__(first)
    assert protocol._is_trusted("10.1.2.3")
    assert not protocol._is_trusted("192.0.2.1")
    assert not protocol._is_trusted("not an address")

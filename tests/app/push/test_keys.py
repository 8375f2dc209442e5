"""The operator's own VAPID pair: used as given, checked at start."""

from __future__ import annotations

import pytest

from app.db.session import create_engine, create_session_factory
from app.push.keys import from_b64url, keys_from, make_keys
from app.push.sender import PushSender
from tests.app.conftest import base_settings


def test_a_made_pair_has_web_push_sizes() -> None:
    keys = make_keys()
    assert len(from_b64url(keys.private_key)) == 32
    public = from_b64url(keys.public_key)
    assert len(public) == 65
    assert public[0] == 4
    assert keys_from(keys.private_key) == keys


def test_a_public_key_that_is_not_the_private_keys_own_is_refused() -> None:
    with pytest.raises(ValueError, match="does not match"):
        keys_from(make_keys().private_key, make_keys().public_key)
    with pytest.raises(ValueError, match="32 bytes"):
        keys_from("c2hvcnQ")


async def test_the_operators_pair_is_used_without_the_database() -> None:
    given = make_keys()
    settings = base_settings(vapid_private_key=given.private_key, vapid_public_key=given.public_key)
    # A database that was never migrated: the operator's pair needs no table.
    engine = create_engine("sqlite+aiosqlite:///:memory:")
    sender = PushSender(settings=settings, sessions=create_session_factory(engine))
    assert await sender.keys() == given
    await engine.dispose()


def test_a_wrong_operator_pair_stops_the_sender_at_start() -> None:
    settings = base_settings(
        vapid_private_key=make_keys().private_key, vapid_public_key=make_keys().public_key
    )
    engine = create_engine("sqlite+aiosqlite:///:memory:")
    with pytest.raises(ValueError, match="does not match"):
        PushSender(settings=settings, sessions=create_session_factory(engine))
    with pytest.raises(ValueError, match="without its private key"):
        PushSender(
            settings=base_settings(vapid_public_key=make_keys().public_key),
            sessions=create_session_factory(engine),
        )

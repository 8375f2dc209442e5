"""Web Push end to end: subscribe through the API, notify, and a local push service that
receives the real encrypted message, decrypts it with the subscription's own private key and
checks the VAPID signature against the server's public key."""

from __future__ import annotations

import base64
import json
import os
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import http_ece
import httpx
import pytest
from aiohttp import web
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import PushKey, PushSubscription
from app.db.repository import public_player_id
from app.db.session import create_engine, create_session_factory
from app.main import create_app
from app.push.notices import Challenged, GameOver, YourMove
from app.push.sender import PushSender
from app.push.subscriptions import SubscriptionError, check_endpoint
from app.runtime import store_for
from engine.cards import Kind
from tests.app.conftest import REDIS_URL, base_settings
from tests.app.db.scratch_databases import emptied, serve_sessions
from tests.app.live import bearer


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """A push service on 127.0.0.1: records what it is sent; answers as told per device."""

    base: str = ""
    received: list[Received] = field(default_factory=list)
    answers: dict[str, list[int]] = field(default_factory=dict)
    """Per device path, the statuses to answer in turn (then 201)."""

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append(
            Received(
                request.path,
                {k.lower(): v for k, v in request.headers.items()},
                await request.read(),
            )
        )
        queued = self.answers.get(request.path, [])
        status = queued.pop(0) if queued else 201
        headers = {"Retry-After": "0"} if status == 429 else {}
        return web.Response(status=status, headers=headers)


@pytest.fixture
async def push_service() -> AsyncIterator[PushService]:
    service = PushService()
    app = web.Application()
    app.router.add_post("/push/{device}", service.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    service.base = f"http://127.0.0.1:{port}"
    yield service
    await runner.cleanup()


@dataclass
class Device:
    """A browser's side of a subscription: its own key pair and auth secret."""

    endpoint: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(point), "auth": b64(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
        )
        decoded: dict[str, Any] = json.loads(plain)
        return decoded


@dataclass
class Server:
    client: httpx.AsyncClient
    app: FastAPI
    sessions: async_sessionmaker[AsyncSession]

    @property
    def push(self) -> PushSender:
        sender: PushSender = self.app.state.push
        return sender

    async def subscribe(self, guest: str, device: Device) -> httpx.Response:
        return await self.client.post(
            "/api/push/subscriptions", json={"player_id": guest, **device.subscription()}
        )

    async def devices(self, guest: str) -> int:
        async with self.sessions() as session:
            count = await session.scalar(
                select(func.count())
                .select_from(PushSubscription)
                .where(PushSubscription.player_id == public_player_id(guest))
            )
        return count or 0


@pytest.fixture
async def server(shared_url: str) -> AsyncIterator[Server]:
    engine = create_engine(await emptied(shared_url))
    sessions = create_session_factory(engine)

    settings = base_settings(
        push_allow_local_http=True,
        push_subscriptions_per_player=3,
        push_notifications_per_minute=4,
        vapid_subject="mailto:ops@example.org",
        push_retries=2,
        push_subscribes_per_minute=8,
    )
    app = create_app(settings, sessions=sessions)
    serve_sessions(app, sessions)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        yield Server(client, app, sessions)
    await engine.dispose()


def check_vapid(received: Received, public_key: str, audience: str) -> dict[str, Any]:
    """The VAPID JWT's claims, once its signature is checked against ``public_key``."""
    scheme, _, params = received.headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == public_key
    header, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(header)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    point.verify(
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{header}.{claims}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    decoded: dict[str, Any] = json.loads(unb64(claims))
    assert decoded["aud"] == audience
    assert time.time() < decoded["exp"] <= time.time() + 24 * 3600
    return decoded


async def test_a_notice_arrives_encrypted_to_the_device_and_signed_by_the_server(
    server: Server, push_service: PushService
) -> None:
    guest = str(uuid.uuid4())
    phone = Device(f"{push_service.base}/push/phone")
    laptop = Device(f"{push_service.base}/push/laptop")
    assert (await server.subscribe(guest, phone)).status_code == 204
    assert (await server.subscribe(guest, laptop)).status_code == 204
    other = Device(f"{push_service.base}/push/other")
    assert (await server.subscribe(str(uuid.uuid4()), other)).status_code == 204
    key = (await server.client.get("/api/push/key")).json()["public_key"]
    assert len(unb64(key)) == 65

    assert await server.push.notify(public_player_id(guest), YourMove("Ann", "ABCD"))
    await server.push.idle()

    assert sorted(r.path for r in push_service.received) == ["/push/laptop", "/push/phone"]
    for received in push_service.received:
        device = phone if received.path == "/push/phone" else laptop
        assert received.headers["content-encoding"] == "aes128gcm"
        assert int(received.headers["ttl"]) > 0
        assert device.decrypt(received.body) == {
            "title": "Your move",
            "body": "Your move at Ann's table",
            "url": "/room/ABCD",
            "tag": "table:ABCD",
        }
        claims = check_vapid(received, key, push_service.base)
        assert claims["sub"] == "mailto:ops@example.org"
        # Another device's keys cannot read it: the encryption is to this device only.
        with pytest.raises(Exception):  # noqa: B017 — any failure to decrypt
            other.decrypt(received.body)
    assert server.push.counts.sent == 2


async def test_the_key_pair_is_made_once_and_kept(server: Server) -> None:
    first = (await server.client.get("/api/push/key")).json()["public_key"]
    # A fresh sender on the same database (another process, a restart) reads the same pair.
    again = PushSender(settings=server.push.settings, sessions=server.sessions)
    assert (await again.keys()).public_key == first
    async with server.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(PushKey)) == 1


@pytest.mark.parametrize("status", [404, 410])
async def test_a_device_the_push_service_calls_gone_is_dropped(
    server: Server, push_service: PushService, status: int
) -> None:
    guest = str(uuid.uuid4())
    gone, kept = Device(f"{push_service.base}/push/gone"), Device(f"{push_service.base}/push/kept")
    await server.subscribe(guest, gone)
    await server.subscribe(guest, kept)
    push_service.answers["/push/gone"] = [status]

    await server.push.notify(public_player_id(guest), GameOver(place=2, room_code="WXYZ"))
    await server.push.idle()

    assert await server.devices(guest) == 1
    assert server.push.counts.gone == 1
    assert kept.decrypt(push_service.received[-1].body)["body"] == "Game over: you came 2nd"


async def test_busy_push_service_is_tried_again_within_the_retries(
    server: Server, push_service: PushService
) -> None:
    guest = str(uuid.uuid4())
    busy = Device(f"{push_service.base}/push/busy")
    down = Device(f"{push_service.base}/push/down")
    await server.subscribe(guest, busy)
    await server.subscribe(guest, down)
    push_service.answers["/push/busy"] = [429, 503]
    push_service.answers["/push/down"] = [500, 500, 500, 500]

    await server.push.notify(public_player_id(guest), Challenged("Bea", Kind.GOLD_BAR, "QRST"))
    await server.push.idle()

    busy_tries = [r for r in push_service.received if r.path == "/push/busy"]
    down_tries = [r for r in push_service.received if r.path == "/push/down"]
    assert len(busy_tries) == 3
    assert len(down_tries) == 3  # the first and push_retries more, then given up
    assert busy.decrypt(busy_tries[-1].body)["body"] == "Bea challenges your Gold Bar set"
    assert server.push.counts.sent == 1
    assert server.push.counts.failed == 1
    assert await server.devices(guest) == 2  # a busy service is no sign the device is gone


async def test_a_turn_based_deal_tells_the_player_away_whose_move_it_is(
    server: Server, push_service: PushService
) -> None:
    """The app hands its sender to the room service: a turn-based table's deal, made over
    REST with nobody at the table, reaches the device of the one player to move, and no other."""
    ann, bea = str(uuid.uuid4()), str(uuid.uuid4())
    devices = {
        ann: Device(f"{push_service.base}/push/ann"),
        bea: Device(f"{push_service.base}/push/bea"),
    }
    for player, device in devices.items():
        assert (await server.subscribe(player, device)).status_code == 204
    created = await server.client.post(
        "/api/rooms",
        json={"name": "Ann", "player_id": ann, "seats": 2, "mode": "turn", "move_seconds": 3600},
    )
    code, token = created.json()["code"], created.json()["token"]
    joined = await server.client.post(
        f"/api/rooms/{code}/join", json={"name": "Bea", "player_id": bea}
    )
    assert joined.status_code == 200
    started = await server.client.post(f"/api/rooms/{code}/start", headers=bearer(token))
    assert started.status_code == 200, started.text
    await server.push.idle()

    room = await server.app.state.runtime.service.load(code)
    assert room is not None and room.game is not None
    first = (ann, bea)[room.game.to_act[0]]
    assert [r.path for r in push_service.received] == [
        devices[first].endpoint.removeprefix(push_service.base)
    ]
    assert devices[first].decrypt(push_service.received[0].body) == {
        "title": "Your move",
        "body": "Your move at Ann's table",
        "url": f"/room/{code}",
        "tag": f"table:{code}",
    }


async def test_notifications_per_player_per_minute_are_limited(
    server: Server, push_service: PushService
) -> None:
    guest, other = str(uuid.uuid4()), str(uuid.uuid4())
    await server.subscribe(guest, Device(f"{push_service.base}/push/a"))
    await server.subscribe(other, Device(f"{push_service.base}/push/b"))
    for _ in range(6):
        await server.push.notify(public_player_id(guest), YourMove("Ann", "ABCD"))
    await server.push.notify(public_player_id(other), YourMove("Ann", "ABCD"))
    await server.push.idle()

    assert [r.path for r in push_service.received].count("/push/a") == 4
    assert [r.path for r in push_service.received].count("/push/b") == 1
    assert server.push.counts.limited == 2


async def test_devices_per_player_are_limited_and_can_be_turned_off(
    server: Server, push_service: PushService
) -> None:
    guest = str(uuid.uuid4())
    devices = [Device(f"{push_service.base}/push/{n}") for n in range(4)]
    for device in devices[:3]:
        assert (await server.subscribe(guest, device)).status_code == 204
    refused = await server.subscribe(guest, devices[3])
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_devices"
    # The same device subscribing again replaces its row: no new place taken.
    assert (await server.subscribe(guest, devices[0])).status_code == 204

    off = await server.client.request(
        "DELETE",
        "/api/push/subscriptions",
        json={"player_id": guest, "endpoint": devices[1].endpoint},
    )
    assert off.status_code == 204
    assert (await server.subscribe(guest, devices[3])).status_code == 204
    assert await server.devices(guest) == 3


async def test_another_player_cannot_turn_off_a_device(
    server: Server, push_service: PushService
) -> None:
    guest = str(uuid.uuid4())
    device = Device(f"{push_service.base}/push/mine")
    await server.subscribe(guest, device)
    await server.client.request(
        "DELETE",
        "/api/push/subscriptions",
        json={"player_id": str(uuid.uuid4()), "endpoint": device.endpoint},
    )
    assert await server.devices(guest) == 1


def _with(subscription: dict[str, Any], **changes: Any) -> dict[str, Any]:
    keys = {**subscription["keys"], **changes.pop("keys", {})}
    return {**subscription, **changes, "keys": keys}


BAD = {
    "an http endpoint elsewhere": ({"endpoint": "http://example.org/push/x"}, "bad_endpoint"),
    "an https endpoint that is no push service": (
        {"endpoint": "https://intranet.example.org/push/x"},
        "unknown_push_service",
    ),
    "a push service's host on another port": (
        {"endpoint": "https://fcm.googleapis.com:8443/fcm/send/x"},
        "bad_endpoint",
    ),
    "a look-alike host": (
        {"endpoint": "https://fcm.googleapis.com.evil.example/x"},
        "unknown_push_service",
    ),
    "credentials in the endpoint": (
        {"endpoint": "https://user:pw@fcm.googleapis.com/fcm/send/x"},
        "bad_endpoint",
    ),
    "a short p256dh": ({"keys": {"p256dh": b64(b"\x04" + bytes(63)) + "AAAAAAAAAAAAAAAAA"}}, None),
    "a p256dh off the curve": ({"keys": {"p256dh": b64(b"\x04" + bytes(64))}}, "bad_keys"),
    "a long auth": ({"keys": {"auth": b64(bytes(20))}}, "bad_keys"),
    "an auth not base64url": ({"keys": {"auth": "!!!!!!!!!!!!!!!!!!!!!!"}}, "bad_keys"),
    "an endpoint too long": ({"endpoint": "https://fcm.googleapis.com/" + "x" * 1100}, None),
}


@pytest.mark.parametrize(("change", "code"), BAD.values(), ids=BAD.keys())
async def test_a_bad_subscription_is_refused_clearly(
    server: Server, push_service: PushService, change: dict[str, Any], code: str | None
) -> None:
    guest = str(uuid.uuid4())
    good = Device(f"{push_service.base}/push/good").subscription()
    response = await server.client.post(
        "/api/push/subscriptions", json={"player_id": guest, **_with(good, **change)}
    )
    assert response.status_code == 422, response.text
    if code is not None:
        assert response.json()["code"] == code
    assert await server.devices(guest) == 0


def test_a_local_http_endpoint_needs_the_test_setting() -> None:
    """Without ``push_allow_local_http`` the server never posts to 127.0.0.1."""
    with pytest.raises(SubscriptionError):
        check_endpoint("http://127.0.0.1:9/push/x", base_settings())
    with pytest.raises(SubscriptionError):
        check_endpoint("https://127.0.0.1/push/x", base_settings())
    assert check_endpoint("https://fcm.googleapis.com/fcm/send/x", base_settings())
    assert check_endpoint("https://updates.push.services.mozilla.com/wpush/v2/x", base_settings())


async def test_subscribing_is_limited_per_address(
    server: Server, push_service: PushService
) -> None:
    guest = str(uuid.uuid4())
    device = Device(f"{push_service.base}/push/again")
    for _ in range(8):
        assert (await server.subscribe(guest, device)).status_code == 204
    refused = await server.subscribe(guest, device)
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_attempts"


async def test_notify_never_waits_and_a_full_queue_drops_the_notice(server: Server) -> None:
    """The move path's call returns at once; past the queue's size a notice is dropped."""
    settings = server.push.settings.model_copy(update={"push_queue_size": 2})
    sender = PushSender(settings=settings, sessions=server.sessions)  # no task drains it
    assert await sender.notify("p", YourMove("Ann", "ABCD"))
    assert await sender.notify("p", YourMove("Ann", "ABCD"))
    assert not await sender.notify("p", YourMove("Ann", "ABCD"))
    assert (sender.counts.queued, sender.counts.dropped_full) == (2, 1)


@pytest.mark.redis
async def test_a_notice_with_a_once_key_is_queued_once_over_every_process(
    server: Server, redis_prefix: str
) -> None:
    """Two processes sharing the room store's counter (Redis): the same news (``once``) is
    queued by the first only; another key, or a notice without one, still is."""
    store = store_for(base_settings(redis_url=REDIS_URL, redis_prefix=redis_prefix))
    await store.start()
    try:
        one, two = (
            PushSender(settings=server.push.settings, sessions=server.sessions, hit=store.hit)
            for _ in range(2)
        )
        notice = YourMove("Ann", "ABCD")
        assert await one.notify("p", notice, once="ABCD:7:p")
        assert not await two.notify("p", notice, once="ABCD:7:p")
        assert not await one.notify("p", notice, once="ABCD:7:p")
        assert await two.notify("p", notice, once="ABCD:8:p")
        assert await two.notify("p", notice)
        assert (one.counts.queued, one.counts.repeated) == (1, 1)
        assert (two.counts.queued, two.counts.repeated) == (2, 1)
    finally:
        await store.close()


async def test_a_once_key_is_remembered_in_one_process_without_a_shared_counter(
    server: Server,
) -> None:
    sender = PushSender(settings=server.push.settings, sessions=server.sessions)
    assert await sender.notify("p", YourMove("Ann", "ABCD"), once="k")
    assert not await sender.notify("p", YourMove("Ann", "ABCD"), once="k")
    assert await sender.notify("p", YourMove("Ann", "ABCD"), once="other")
    assert (sender.counts.queued, sender.counts.repeated) == (2, 1)

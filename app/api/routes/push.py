"""Web Push routes: the server's public key, and a player's devices turned on and off.

A player is named as everywhere else in the REST API: by the guest id their browser keeps
(``player_id``), a secret; only its public digest is stored with a subscription, and
``notify`` is called with that public id.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from app.api.deps import RuntimeDep, client_address
from app.api.errors import Refusal
from app.api.schemas import STRICT, GuestId
from app.db.repository import public_player_id
from app.db.session import SessionDep
from app.push import subscriptions
from app.push.sender import PushSender
from app.push.subscriptions import MAX_ENDPOINT_LENGTH, SubscriptionError
from app.rooms.errors import RoomError

router = APIRouter(prefix="/api/push", tags=["push"])


def get_push(request: Request) -> PushSender:
    sender: PushSender = request.app.state.push
    return sender


PushDep = Annotated[PushSender, Depends(get_push)]


async def count_subscribing(request: Request, runtime: RuntimeDep) -> None:
    """Rate-limit subscribe and unsubscribe requests per client address, across processes."""
    allowed = await runtime.service.store.hit(
        f"push-subscribe:{client_address(request)}",
        limit=runtime.settings.push_subscribes_per_minute,
        window_seconds=60,
    )
    if not allowed:
        raise RoomError(
            "too_many_attempts", "Too many attempts; wait a minute and try again.", status=429
        )


CountedSubscribing = Depends(count_subscribing)


class PushKeyPublic(BaseModel):
    public_key: str
    """The server's VAPID public key, base64url: the ``applicationServerKey`` to subscribe with."""


class SubscriptionKeys(BaseModel):
    model_config = STRICT

    p256dh: Annotated[str, Field(min_length=80, max_length=100)]
    auth: Annotated[str, Field(min_length=16, max_length=32)]


class SubscriptionCreate(BaseModel):
    """A browser's ``PushSubscription.toJSON()``, and whose it is."""

    model_config = STRICT

    player_id: GuestId
    endpoint: Annotated[str, Field(min_length=1, max_length=MAX_ENDPOINT_LENGTH)]
    keys: SubscriptionKeys
    expirationTime: float | None = None
    """The browser's own field (always null in practice); ignored."""


class SubscriptionDelete(BaseModel):
    model_config = STRICT

    player_id: GuestId
    endpoint: Annotated[str, Field(min_length=1, max_length=MAX_ENDPOINT_LENGTH)]


@router.get("/key")
async def read_push_key(push: PushDep) -> PushKeyPublic:
    keys = await push.keys()
    return PushKeyPublic(public_key=keys.public_key)


_LIMITED: dict[int | str, dict[str, object]] = {
    429: {"model": Refusal, "description": "Too many devices, or too many attempts."}
}


@router.post(
    "/subscriptions", status_code=204, dependencies=[CountedSubscribing], responses=_LIMITED
)
async def create_subscription(
    body: SubscriptionCreate, session: SessionDep, push: PushDep
) -> Response:
    """Turn notifications on for this device (subscribing again replaces its keys)."""
    try:
        device = subscriptions.check_device(
            body.endpoint, body.keys.p256dh, body.keys.auth, push.settings
        )
        await subscriptions.subscribe(
            session,
            player_id=public_player_id(str(body.player_id)),
            device=device,
            limit=push.settings.push_subscriptions_per_player,
        )
    except SubscriptionError as error:
        status = 429 if error.code == "too_many_devices" else 422
        raise RoomError(error.code, str(error), status=status) from error
    return Response(status_code=204)


@router.delete(
    "/subscriptions", status_code=204, dependencies=[CountedSubscribing], responses=_LIMITED
)
async def delete_subscription(body: SubscriptionDelete, session: SessionDep) -> Response:
    """Turn notifications off for this device (a device that was not on answers 204 too)."""
    await subscriptions.unsubscribe(
        session, player_id=public_player_id(str(body.player_id)), endpoint=body.endpoint
    )
    return Response(status_code=204)

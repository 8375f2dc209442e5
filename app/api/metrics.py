"""``GET /metrics``: this process's counters for Prometheus, for the bearer of the metrics token.

Off (404, like any unknown address) unless ``CASH_STASH_METRICS_TOKEN`` is set; with it, a
request must carry ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hmac

from fastapi import APIRouter, HTTPException, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.runtime import Runtime

router = APIRouter(include_in_schema=False)


def _bearer(request: Request) -> str:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    runtime: Runtime = request.app.state.runtime
    expected = runtime.settings.metrics_token
    if not expected:
        raise HTTPException(status_code=404)
    if not hmac.compare_digest(_bearer(request).encode(), expected.encode()):
        raise HTTPException(
            status_code=401,
            detail="Send the metrics token as Authorization: Bearer.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return Response(generate_latest(runtime.metrics.registry), media_type=CONTENT_TYPE_LATEST)

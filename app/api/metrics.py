"""``GET /metrics``: this process's counters for Prometheus (keep it off the public proxy)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.runtime import Runtime

router = APIRouter(include_in_schema=False)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    runtime: Runtime = request.app.state.runtime
    return Response(generate_latest(runtime.metrics.registry), media_type=CONTENT_TYPE_LATEST)

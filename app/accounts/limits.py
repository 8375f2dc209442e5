"""The ceilings on what one address, or one account, may ask of the accounts in a window.

Counted in the room store (``RoomStore.hit``), so across processes, as the join and create
limits are (``app/api/deps.py``). Each refusal is ``429`` with a code of its own, and none says
whether an account exists: every sign-in is counted alike, whatever passkey it names.
"""

from __future__ import annotations

from fastapi import Request

from app.accounts.errors import AccountError
from app.runtime import Runtime

MINUTE = 60
HOUR = 3600


async def within_limit(
    request: Request, key: str, *, limit: int, window: int, code: str, message: str
) -> None:
    """Count one request under ``key``; ``429 code`` once ``limit`` are spent in ``window``
    seconds."""
    runtime: Runtime = request.app.state.runtime
    if not await runtime.service.store.hit(f"accounts:{key}", limit=limit, window_seconds=window):
        raise AccountError(code, message, status=429)

"""Smoke test of a running deployment, through its public port: health, a room made over REST,
one whole game played by two seats over WebSockets, and the finished game read back (Postgres).

    python deploy/smoke.py http://localhost:8000            # a quick game
    python deploy/smoke.py http://localhost:8000 --pace 1   # a slow one: meanwhile stop an app
                                                            # process; its sockets must close 1012
                                                            # and reconnect to another process

Each seat reconnects whenever its socket closes with 1012 (service restart) and carries on from
the fresh ``state``; every close code seen is printed. Needs httpx and websockets (the dev extras).
Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

RESTART = 1012


def say(*parts: object) -> None:
    sys.stdout.write(" ".join(str(part) for part in parts) + "\n")
    sys.stdout.flush()


class Seat:
    def __init__(self, index: int, token: str) -> None:
        self.index = index
        self.token = token
        self.closes: list[int | None] = []
        self.acts = 0


async def play_seat(
    ws_base: str, code: str, seat: Seat, pace: float, max_acts: int, done: asyncio.Event
) -> None:
    """Play this seat until the game is over; reconnect after a 1012 close."""
    rng = random.Random(seat.index)
    ref = 0
    last: dict[str, Any] | None = None
    while True:
        try:
            async with connect(f"{ws_base}/ws/{code}", open_timeout=10) as ws:
                await ws.send(json.dumps({"type": "hello", "token": seat.token}))
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "error":
                        # A refused action gets no new state: choose again from the last one.
                        say(f"seat {seat.index}: refused: {message['code']}")
                        if last is None or message["code"] == "stale_version":
                            continue
                        message = last
                    if message["type"] != "state":
                        continue
                    last = message
                    view = message["view"]
                    if view["over"]:
                        done.set()
                        return
                    if not message["legal"]:
                        continue
                    if pace:
                        await asyncio.sleep(pace)
                    legal = message["legal"]
                    if seat.acts >= max_acts and any(a["type"] == "concede" for a in legal):
                        action = next(a for a in legal if a["type"] == "concede")
                    else:
                        action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
                    ref += 1
                    seat.acts += 1
                    await ws.send(
                        json.dumps(
                            {
                                "type": "act",
                                "ref": ref,
                                "version": message["version"],
                                "action": action,
                            }
                        )
                    )
        except ConnectionClosed as closed:
            code_seen = closed.rcvd.code if closed.rcvd else None
            seat.closes.append(code_seen)
            say(f"seat {seat.index}: socket closed {code_seen}")
            if done.is_set():
                raise RuntimeError("game over, but no final state seen") from closed
            if code_seen != RESTART:
                raise
            say(f"seat {seat.index}: reconnecting")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", default="http://localhost:8000")
    parser.add_argument(
        "--pace", type=float, default=0.15, help="seconds before each action (rate limit: 10/s)"
    )
    parser.add_argument("--max-acts", type=int, default=200, help="then a seat concedes")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    ws_base = "ws" + base.removeprefix("http")
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        health = (await http.get("/healthz")).raise_for_status().json()
        say("healthz:", health)
        made = (
            (await http.post("/api/rooms", json={"name": "Smoke A", "seats": 2, "rules": "simple"}))
            .raise_for_status()
            .json()
        )
        code = made["code"]
        joined = (
            (await http.post(f"/api/rooms/{code}/join", json={"name": "Smoke B"}))
            .raise_for_status()
            .json()
        )
        host = {"Authorization": f"Bearer {made['token']}"}
        (await http.post(f"/api/rooms/{code}/start", headers=host)).raise_for_status()
        say("room", code, "started")
        seats = [Seat(made["seat"], made["token"]), Seat(joined["seat"], joined["token"])]
        done = asyncio.Event()
        await asyncio.wait_for(
            asyncio.gather(
                *(play_seat(ws_base, code, s, args.pace, args.max_acts, done) for s in seats)
            ),
            timeout=600,
        )
        summary = (await http.get(f"/api/rooms/{code}")).raise_for_status().json()
        say(
            "game over after",
            sum(s.acts for s in seats),
            "actions; winners:",
            summary["game"]["winners"],
        )
        game_id = summary["game"]["id"]
        for _ in range(50):  # recorded once the room commits the end
            answer = await http.get(f"/api/games/{game_id}")
            if answer.status_code == 200:
                break
            await asyncio.sleep(0.2)
        answer.raise_for_status()
        say("finished game recorded:", game_id)
        for seat in seats:
            say(f"seat {seat.index}: close codes before the end: {seat.closes}")
    say(f"ok in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

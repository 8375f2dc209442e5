"""Play now in one process (rooms and queues in memory): asking, waiting, AI fill, cancel."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import pytest
from websockets.exceptions import ConnectionClosed

from app.games.ratings import counts_for_ratings
from tests.app.conftest import base_settings
from tests.app.live import WAIT, connect_client, live_server, play_out
from tests.app.queueing import queue_up


async def test_two_players_asking_for_two_seats_meet_in_a_started_public_room() -> None:
    async with live_server(base_settings()) as live, live.http() as http:
        ann = await queue_up(live, "Ann")
        bob = await queue_up(live, "Bob")
        at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
        assert at_ann["code"] == at_bob["code"]
        assert {at_ann["seat"], at_bob["seat"]} == {0, 1}
        room = (await http.get(f"/api/rooms/{at_ann['code']}")).json()
        assert room["status"] == "playing"
        assert room["options"]["visibility"] == "public"
        assert [seat["kind"] for seat in room["seats"]] == ["person", "person"]
        # The token sent opens the seat it names.
        seated = await connect_client(live, at_bob["code"], at_bob["token"])
        state = await seated.wait_for("state")
        assert state["view"]["seat"] == at_bob["seat"]
        await seated.close()


async def test_fill_with_ai_now_starts_a_lone_players_game_with_ai_at_once() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live, live.http() as http:
        ann = await queue_up(live, "Ann", seats=4)
        await ann.send({"type": "fill_ai"})
        placed = await ann.matched()
        room = (await http.get(f"/api/rooms/{placed['code']}")).json()
        assert room["status"] == "playing"
        kinds = [seat["kind"] for seat in room["seats"]]
        assert kinds == ["person", "ai", "ai", "ai"]
        registry = live.runtime.metrics.registry
        assert registry.get_sample_value("cash_stash_play_now_ai_seats_total") == 3
        assert registry.get_sample_value("cash_stash_play_now_waiting") == 0
        assert {seat["level"] for seat in room["seats"][1:]} == {"easy"}


async def test_a_lone_player_gets_ai_after_the_wait() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=0.5)) as live, live.http() as http:
        ann = await queue_up(live, "Ann", seats=3)
        status = await ann.client.wait_for("waiting")
        assert status["position"] == 1 and status["found"] == 1
        placed = await ann.matched()
        room = (await http.get(f"/api/rooms/{placed['code']}")).json()
        assert [seat["kind"] for seat in room["seats"]] == ["person", "ai", "ai"]


async def test_cancel_and_disconnect_leave_the_queue() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live:
        lobby = live.app.state.lobby
        ann = await queue_up(live, "Ann", seats=3)
        bob = await queue_up(live, "Bob", seats=3)
        await bob.client.wait_for("waiting", lambda m: m["waiting"] == 2)
        await ann.send({"type": "cancel"})
        await ann.client.wait_for("cancelled")
        await bob.client.wait_for("waiting", lambda m: m["waiting"] == 1)
        await bob.close()
        cy = await queue_up(live, "Cy", seats=3)
        status = await cy.client.wait_for("waiting", lambda m: m["waiting"] == 1)
        assert status["position"] == 1
        assert lobby.matchmaker.waiting_here == 1


async def test_a_player_waits_in_one_queue_at_a_time() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live:
        ann = await queue_up(live, "Ann", seats=3)
        await ann.client.wait_for("waiting")  # Ann is in the queue
        again = await queue_up_refused(live, ann.player_id)
        assert again["code"] == "already_queued"
        await ann.close()


async def queue_up_refused(live: object, player_id: str) -> dict[str, object]:
    from websockets.asyncio.client import connect

    from tests.app.live import Client
    from tests.app.queueing import ask

    port = live.port  # type: ignore[attr-defined]
    client = Client(await connect(f"ws://127.0.0.1:{port}/ws/queue", open_timeout=WAIT))
    await client.send(ask("Ann", seats=5, player_id=player_id))
    await client.wait_for("queued")
    await client.send({"type": "ping"})
    refused = await client.wait_for("error")
    with pytest.raises(ConnectionClosed):
        await client.recv()
    return refused


async def test_a_bad_first_message_is_refused_plainly() -> None:
    async with live_server(base_settings()) as live:
        refused = await queue_up_refused_with(live, {"type": "queue", "name": "Ann"})
        assert refused["code"] == "bad_request"
        assert "player_id" in str(refused["message"])
        refused = await queue_up_refused_with(
            live, {"type": "queue", "name": "Ann", "player_id": "x", "seats": 9}
        )
        assert refused["code"] == "bad_request"


async def queue_up_refused_with(live: object, message: dict[str, object]) -> dict[str, object]:
    from websockets.asyncio.client import connect

    from tests.app.live import Client

    port = live.port  # type: ignore[attr-defined]
    client = Client(await connect(f"ws://127.0.0.1:{port}/ws/queue", open_timeout=WAIT))
    await client.send(message)
    refused = await client.wait_for("error")
    return refused


async def test_players_whose_room_cannot_be_made_stay_in_the_queue() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live:
        settings = live.runtime.settings
        settings.max_waiting_rooms = 0  # every room refused: too many waiting
        ann = await queue_up(live, "Ann")
        bob = await queue_up(live, "Bob")
        await ann.client.wait_for("waiting", lambda m: m["waiting"] == 2)
        registry = live.runtime.metrics.registry
        assert registry.get_sample_value("cash_stash_play_now_tables_total") == 0
        settings.max_waiting_rooms = 5000
        at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
        assert at_ann["code"] == at_bob["code"]
        assert registry.get_sample_value("cash_stash_play_now_tables_total") == 1


async def test_play_now_games_count_toward_the_ceiling_of_games_in_play() -> None:
    """A complete group waits while ``max_games_in_play`` games are in play (Play now cannot
    get round the ceiling that ``start`` keeps), and is seated once one ends."""
    settings = base_settings(
        queue_ai_wait_seconds=3600, max_games_in_play=1, table_join_seconds=3600
    )
    async with live_server(settings) as live:
        ann = await queue_up(live, "Ann", rules="simple")
        bob = await queue_up(live, "Bob", rules="simple")
        at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
        cy = await queue_up(live, "Cy")
        dee = await queue_up(live, "Dee")
        await cy.client.wait_for("waiting", lambda m: m["waiting"] == 2)
        registry = live.runtime.metrics.registry
        # The complete group is held back by the ceiling, round after round: no table made.
        for _ in range(100):
            if (registry.get_sample_value("cash_stash_play_now_held_total") or 0) >= 3:
                break
            await asyncio.sleep(settings.queue_tick_seconds / 2)
        else:
            raise AssertionError("the complete group was never held back by the ceiling")
        assert registry.get_sample_value("cash_stash_play_now_tables_total") == 1
        clients = [
            await connect_client(live, placed["code"], placed["token"])
            for placed in (at_ann, at_bob)
        ]
        await asyncio.gather(
            *(
                play_out(client, placed["seat"], random.Random(placed["seat"]))
                for client, placed in zip(clients, (at_ann, at_bob), strict=True)
            )
        )
        at_cy, at_dee = await asyncio.gather(cy.matched(), dee.matched())
        assert at_cy["code"] == at_dee["code"] != at_ann["code"]
        assert registry.get_sample_value("cash_stash_play_now_tables_total") == 2
        for client in clients:
            await client.close()


async def test_a_bad_message_while_waiting_is_answered_and_the_player_keeps_waiting() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live:
        ann = await queue_up(live, "Ann", seats=3)
        await ann.client.ws.send(b"\x00binary")
        assert (await ann.client.wait_for("error"))["code"] == "bad_message"
        await ann.send({"type": "fill_ai", "extra": 1})
        assert (await ann.client.wait_for("error"))["code"] == "bad_message"
        await ann.send({"type": "ping"})
        await ann.client.wait_for("pong")
        await ann.send({"type": "fill_ai"})
        placed = await ann.matched()
        assert placed["seat"] == 0


async def test_players_who_take_any_size_are_seated_together() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=1)) as live, live.http() as http:
        ann = await queue_up(live, "Ann", seats="any")
        bob = await queue_up(live, "Bob", seats="any")
        at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
        assert at_ann["code"] == at_bob["code"]
        room = (await http.get(f"/api/rooms/{at_ann['code']}")).json()
        assert [seat["kind"] for seat in room["seats"]] == ["person", "person"]


async def test_draft_piles_need_a_table_size() -> None:
    async with live_server(base_settings()) as live:
        refused = await queue_up_refused_with(
            live,
            {
                "type": "queue",
                "name": "Ann",
                "player_id": str(uuid.uuid4()),
                "seats": "any",
                "draft": True,
            },
        )
        assert refused["code"] == "draft_needs_table_size"
        refused = await queue_up_refused_with(
            live,
            {
                "type": "queue",
                "name": "Ann",
                "player_id": str(uuid.uuid4()),
                "seats": 4,
                "draft": True,
            },
        )
        assert refused["code"] == "draft_needs_two_or_three"


async def test_the_lobby_counts_players_and_lists_a_public_game_in_play() -> None:
    async with live_server(base_settings()) as live, live.http() as http:
        ann = await queue_up(live, "Ann")
        bob = await queue_up(live, "Bob")
        placed, _ = await asyncio.gather(ann.matched(), bob.matched())
        seated = await connect_client(live, placed["code"], placed["token"])
        await seated.wait_for("state")
        life = live.app.state.lobby
        # What the process's own loops do every few seconds, done now.
        await life.store.report_online("this", live.runtime.hub.connection_count, now=time.time())
        await life.index.flush()
        lobby = (await http.get("/api/lobby")).json()
        assert lobby["online"] >= 1 and lobby["playing"] == 1 and lobby["live_total"] == 1
        (game,) = lobby["live"]
        assert game["code"] == placed["code"] and game["round"] == 1
        assert sorted(p["name"] for p in game["players"]) == ["Ann", "Bob"]  # either may host
        assert all("player_id" not in p for p in game["players"])
        assert 0 < game["cards_left"] < 110
        await seated.close()


async def test_a_play_now_game_is_recorded_with_both_players_ids_to_be_rated() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live:
        ann = await queue_up(live, "Ann", rules="simple")
        bob = await queue_up(live, "Bob", rules="simple")
        at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
        clients = [
            await connect_client(live, placed["code"], placed["token"])
            for placed in (at_ann, at_bob)
        ]
        ends = await asyncio.gather(
            *(
                play_out(client, placed["seat"], random.Random(placed["seat"]))
                for client, placed in zip(clients, (at_ann, at_bob), strict=True)
            )
        )
        room = await live.runtime.service.load(at_ann["code"])
        assert room is not None and room.game is not None and ends[0]["view"]["over"]
        game = await live.recorder.game(room.game.id)
        ids = {at_ann["seat"]: ann.player_id, at_bob["seat"]: bob.player_id}
        assert [p.player_id for p in game.players] == [ids[0], ids[1]]
        assert game.visibility == "public"
        assert counts_for_ratings([p.ai_level for p in game.players])
        for client in clients:
            await client.close()


async def test_turn_based_players_meet_only_players_who_asked_for_a_turn_based_table() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live, live.http() as http:
        ann = await queue_up(live, "Ann")
        bea = await queue_up(live, "Bea", mode="turn")
        (queued,) = [m for m in bea.client.received if m["type"] == "queued"]
        assert queued["mode"] == "turn"
        # Two queues of one player each, though both asked for two seats.
        await ann.client.wait_for("waiting", lambda m: m["waiting"] == 1)
        await bea.client.wait_for("waiting", lambda m: m["waiting"] == 1)
        cy = await queue_up(live, "Cy", mode="turn")
        at_bea, at_cy = await asyncio.gather(bea.matched(), cy.matched())
        assert at_bea["code"] == at_cy["code"]
        room = (await http.get(f"/api/rooms/{at_bea['code']}")).json()
        assert room["status"] == "playing"
        assert room["options"]["mode"] == "turn"
        assert room["options"]["move_seconds"] == 86_400
        assert [seat["name"] for seat in room["seats"]] == ["Bea", "Cy"]
        assert live.app.state.lobby.matchmaker.waiting_here == 1  # Ann waits on, alone
        dee = await queue_up(live, "Dee", mode="live")
        at_ann, at_dee = await asyncio.gather(ann.matched(), dee.matched())
        assert at_ann["code"] == at_dee["code"]
        room = (await http.get(f"/api/rooms/{at_ann['code']}")).json()
        assert room["options"]["mode"] == "live"


async def test_a_turn_based_lone_player_gets_ai_in_a_turn_based_table() -> None:
    async with live_server(base_settings(queue_ai_wait_seconds=3600)) as live, live.http() as http:
        ann = await queue_up(live, "Ann", seats=3, mode="turn")
        await ann.send({"type": "fill_ai"})
        placed = await ann.matched()
        room = (await http.get(f"/api/rooms/{placed['code']}")).json()
        assert [seat["kind"] for seat in room["seats"]] == ["person", "ai", "ai"]
        assert room["options"]["mode"] == "turn" and room["status"] == "playing"


async def test_an_unknown_mode_is_refused_plainly() -> None:
    async with live_server(base_settings()) as live:
        refused = await queue_up_refused_with(
            live,
            {"type": "queue", "name": "Ann", "player_id": str(uuid.uuid4()), "mode": "slow"},
        )
        assert refused["code"] == "bad_request" and "mode" in str(refused["message"])

"""Turn-based games nobody looks at are parked in the database, out of the store, and brought
back by a move, a connection or their deadline, by any process, with nothing lost: not across
a flush of the store, nor by a process killed halfway through parking."""

from __future__ import annotations

import asyncio
import random

import pytest

from app.db.repository import public_player_id
from app.rooms.chat import say
from app.rooms.credentials import hash_token
from app.rooms.due import DueWork
from app.rooms.errors import RoomError
from app.rooms.model import RoomOptions, room_of_text
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.turns.archive import ArchivedRoom
from tests.app.turns.conftest import (
    MOVE_SECONDS,
    PARK_AFTER,
    Process,
    Table,
    World,
    act_in,
    guest,
    move,
    play_to_the_end,
    turn_table,
)
from tests.redis_cluster import RedisCluster


async def in_store(service: RoomService, code: str) -> bool:
    return await service.store.load(code) is not None


async def parked(world: World, table: Table) -> Process:
    """A dealt turn-based table, one move made, then left alone until a process parks it; the
    process."""
    process = await world.process()
    await move(process.service, table, random.Random(1))
    world.clock.advance(PARK_AFTER + 1)
    await process.keeper.look(process.hub)
    archived = await world.archive.room(table.code)
    assert archived is not None and archived.parked
    assert not await in_store(process.service, table.code)
    return process


async def parked_table(
    world: World, *, guests: tuple[str, ...] = ("Bea",)
) -> tuple[Table, ArchivedRoom]:
    """A table made on a first process and parked (``parked``), with what the database holds of
    it."""
    first = await world.process()
    table = await turn_table(first.service, guests=guests)
    await parked(world, table)
    archived = await world.archive.room(table.code)
    assert archived is not None
    return table, archived


async def finish(world: World, service: RoomService, table: Table, rng: random.Random) -> None:
    """Play the game to its end and record it: the database lets go of it."""
    over = await play_to_the_end(service, table, rng)
    assert over.status == "finished"
    assert await world.archive.room(table.code) is not None, "kept until recorded"
    await DueWork(service).wake(table.code)
    assert [game.game_id for game in world.recorder.games] == [over.unrecorded[0].game_id]
    assert await world.archive.room(table.code) is None


async def test_every_move_of_a_turn_based_game_is_written_through(world: World) -> None:
    process = await world.process()
    table = await turn_table(process.service)
    for _ in range(3):
        room = await move(process.service, table, random.Random(2))
        archived = await world.archive.room(table.code)
        assert archived is not None and archived.version == room.version
        assert not archived.parked


async def test_a_live_table_is_not_kept_in_the_database(world: World) -> None:
    process = await world.process()
    room, host = await Tables(process.service).create(
        name="Ann", player_id=guest("Ann"), options=RoomOptions(room_name="Now", seats=2)
    )
    await Tables(process.service).add_bot(room.code, token=host, level="easy")
    await Tables(process.service).start(room.code, token=host)
    world.clock.advance(PARK_AFTER + 1)
    await process.keeper.look(process.hub)
    assert await world.archive.room(room.code) is None
    assert await in_store(process.service, room.code)


async def test_a_parked_game_is_brought_back_by_a_move_and_played_to_its_end(
    world: World,
) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    process = await parked(world, table)
    assert not await in_store(process.service, table.code)
    archived = await world.archive.room(table.code)
    assert archived is not None

    later = await world.process()
    seen = room_of_text(archived.text)  # as the client last saw it
    room = await act_in(later.service, table, seen, random.Random(3))
    assert room.version == archived.version + 1
    assert await in_store(process.service, table.code)
    now = await world.archive.room(table.code)
    assert now is not None and now.version == room.version and not now.parked
    await finish(world, later.service, table, random.Random(3))


async def test_a_parked_game_is_brought_back_by_a_connection(world: World) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    await parked(world, table)

    later = await world.process()
    room = await later.service.set_presence(table.code, hash_token(table.tokens[1]), connected=True)
    assert room.seats[1] is not None and room.seats[1].disconnected_at is None
    assert await in_store(later.service, table.code)
    world.clock.advance(PARK_AFTER + 1)
    await later.keeper.look(later.hub)
    assert await in_store(later.service, table.code), "someone is here: not parked"


async def test_a_parked_game_keeps_its_chat(world: World) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    lines = [f'{{"seat":{seat},"text":"line {seat}"}}' for seat in (0, 1, 0)]
    for line in lines:
        assert await say(first.service.store, table.code, line)
    process = await parked(world, table)
    archived = await world.archive.room(table.code)
    assert archived is not None and archived.chat == tuple(lines)
    assert await process.service.store.chat_lines(table.code) == [], "out of the store"

    later = await world.process()
    await later.service.set_presence(table.code, hash_token(table.tokens[1]), connected=True)
    assert await later.service.store.chat_lines(table.code) == lines
    assert await say(later.service.store, table.code, '{"seat":1,"text":"back"}')
    assert await later.service.store.chat_lines(table.code) == [*lines, '{"seat":1,"text":"back"}']


async def test_a_line_said_while_a_game_is_parked_keeps_it_in_the_store(world: World) -> None:
    """The keeper reads the chat, then writes the database: a line said between the two is
    not in the database, so the room stays in the store (and its next commit unparks it)."""
    process = await world.process()
    table = await turn_table(process.service)
    await move(process.service, table, random.Random(1))
    assert await say(process.service.store, table.code, '{"text":"before"}')
    store = process.service.store
    chat_lines = store.chat_lines

    async def read_then_said(code: str) -> list[str]:
        lines = await chat_lines(code)
        assert await say(store, code, '{"text":"meanwhile"}')
        return lines

    store.chat_lines = read_then_said  # type: ignore[method-assign]
    world.clock.advance(PARK_AFTER + 1)
    assert not await process.keeper.park(table.code)
    store.chat_lines = chat_lines  # type: ignore[method-assign]
    assert await in_store(process.service, table.code)
    assert await store.chat_lines(table.code) == ['{"text":"before"}', '{"text":"meanwhile"}']


async def test_a_parked_game_is_read_where_it_is_by_peek(world: World) -> None:
    table, archived = await parked_table(world)

    later = await world.process()
    room = await later.service.peek(table.code)
    assert room is not None and room.version == archived.version
    assert not await in_store(later.service, table.code), "peek leaves it parked"
    assert await later.service.peek("NOSUCH00") is None
    assert await later.service.load(table.code) is not None
    assert await in_store(later.service, table.code)


async def test_a_parked_games_deadlines_are_applied_once_by_two_processes(world: World) -> None:
    table, archived = await parked_table(world, guests=("Bea", "Cy"))
    before = room_of_text(archived.text)
    assert before.game is not None

    one, two = await world.process(), await world.process()
    for day in range(1, 4):
        world.clock.advance(MOVE_SECONDS + 1)
        await asyncio.gather(one.keeper.look(one.hub), two.keeper.look(two.hub))
        assert len(one.hub.rooms + two.hub.rooms) == day, "each deadline applied once"
        kept = await world.archive.room(table.code)
        assert kept is not None and kept.parked, "parked again once its clock has moved"
        after = room_of_text(kept.text)
        assert after.game is not None and after.game.deadline is not None
        assert len(after.game.actions) == len(before.game.actions) + day
        assert after.game.deadline > world.clock.now

    await asyncio.gather(one.keeper.look(one.hub), two.keeper.look(two.hub))
    assert len(one.hub.rooms + two.hub.rooms) == 3, "nothing more is due"
    await finish(world, two.service, table, random.Random(5))


async def test_a_parked_game_outlives_a_flush_of_the_store(world: World) -> None:
    table, archived = await parked_table(world)

    world.flush_store()
    after_flush = await world.process()
    room = await move(after_flush.service, table, random.Random(4))
    assert room.version == archived.version + 1
    await finish(world, after_flush.service, table, random.Random(4))


async def test_a_game_the_store_lost_unparked_is_brought_back_from_the_database(
    world: World,
) -> None:
    process = await world.process()
    table = await turn_table(process.service)
    made = await move(process.service, table, random.Random(5))
    world.flush_store()
    fresh = await world.process()
    room = await fresh.service.load(table.code)
    assert room is not None and room.version == made.version
    assert room.game is not None and made.game is not None
    assert room.game.actions == made.game.actions


async def test_a_process_killed_between_marking_and_dropping_loses_nothing(
    world: World,
) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    room = await move(first.service, table, random.Random(6))
    world.clock.advance(PARK_AFTER + 1)
    # The first half of parking, then the process dies: marked in the database, still stored.
    assert await world.archive.park(table.code, version=room.version, now=world.clock.now)
    assert await in_store(first.service, table.code)

    fresh = await world.process()
    await fresh.keeper.look(fresh.hub)
    moved = await move(fresh.service, table, random.Random(6))
    assert moved.version == room.version + 1
    kept = await world.archive.room(table.code)
    assert kept is not None and kept.version == moved.version and not kept.parked

    world.clock.advance(PARK_AFTER + 1)
    assert await fresh.keeper.park(table.code)
    assert not await in_store(fresh.service, table.code)
    await finish(world, (await world.process()).service, table, random.Random(6))


async def test_a_process_killed_between_the_store_and_the_database_loses_nothing(
    world: World,
) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    kept_before = await world.archive.room(table.code)
    assert kept_before is not None
    # A move committed to the store by a process that died before writing the database.
    dying = await world.process(archived=False)
    made = await move(dying.service, table, random.Random(7))
    stale = await world.archive.room(table.code)
    assert stale is not None and stale.version == kept_before.version < made.version

    world.clock.advance(PARK_AFTER + 1)
    fresh = await world.process()
    await fresh.keeper.look(fresh.hub)
    kept = await world.archive.room(table.code)
    assert kept is not None and kept.parked and kept.version == made.version
    assert not await in_store(fresh.service, table.code)
    room = await fresh.service.load(table.code)
    assert room is not None and room.game is not None and made.game is not None
    assert room.game.actions == made.game.actions


async def test_a_stale_move_to_a_parked_game_is_refused(world: World) -> None:
    first = await world.process()
    table = await turn_table(first.service)
    before = await first.service.load(table.code)
    assert before is not None
    await parked(world, table)
    archived = await world.archive.room(table.code)
    assert archived is not None and archived.version > before.version

    later = await world.process()
    seen = room_of_text(archived.text)
    with pytest.raises(RoomError) as refused:
        await act_in(later.service, table, seen, random.Random(8), version=before.version)
    assert refused.value.code == "stale_version"
    room = await later.service.load(table.code)
    assert room is not None and room.version == archived.version


async def test_a_player_sits_in_a_limited_number_of_turn_based_games(world: World) -> None:
    process = await world.process()
    limit = world.settings.turn_games_per_player
    tables = [await turn_table(process.service) for _ in range(limit)]
    turn = RoomOptions(room_name="One more", mode="turn", seats=2)
    with pytest.raises(RoomError) as refused:
        await Tables(process.service).create(name="Ann", player_id=guest("Ann"), options=turn)
    assert refused.value.code == "too_many_turn_games" and refused.value.status == 429

    other, _ = await Tables(process.service).create(name="Di", player_id=guest("Di"), options=turn)
    with pytest.raises(RoomError) as refused:
        await Tables(process.service).join(other.code, name="Bea", player_id=guest("Bea"))
    assert refused.value.code == "too_many_turn_games"
    live = RoomOptions(room_name="Live", seats=2)
    await Tables(process.service).create(name="Ann", player_id=guest("Ann"), options=live)

    await finish(world, process.service, tables[0], random.Random(9))
    await Tables(process.service).create(name="Ann", player_id=guest("Ann"), options=turn)


@pytest.mark.redis
async def test_parking_and_waking_on_a_redis_cluster(cluster_world: World) -> None:
    """The room's keys and its bucket's indexes are on different shards: a parked room leaves
    both, and comes back to both (its deadline is then found by the store's own index)."""
    first = await cluster_world.process()
    table = await turn_table(first.service)
    assert await say(first.service.store, table.code, '{"text":"see you tomorrow"}')
    await parked(cluster_world, table)
    archived = await cluster_world.archive.room(table.code)
    assert archived is not None and archived.chat == ('{"text":"see you tomorrow"}',)
    assert (
        table.code
        not in (await first.service.store.due(cluster_world.clock.now + 2 * MOVE_SECONDS))[0]
    )

    later = await cluster_world.process()
    room = await later.service.load(table.code)
    assert room is not None and room.version == archived.version
    assert await later.service.store.chat_lines(table.code) == ['{"text":"see you tomorrow"}']
    assert (
        table.code in (await later.service.store.due(cluster_world.clock.now + 2 * MOVE_SECONDS))[0]
    )
    moved = await move(later.service, table, random.Random(10))
    assert moved.version == archived.version + 1


@pytest.mark.redis
async def test_a_parked_game_woken_then_failed_over_is_played_from_the_database(
    cluster_world: World, redis_cluster: RedisCluster
) -> None:
    """The database is the truth: a parked game brought back to its primary, that primary
    then killed (its replica takes over, with or without the room), still takes the next move
    at the version after the database's, in a process that never saw it."""
    first = await cluster_world.process()
    table = await turn_table(first.service)
    await parked(cluster_world, table)
    archived = await cluster_world.archive.room(table.code)
    assert archived is not None

    woken = await (await cluster_world.process()).service.load(table.code)
    assert woken is not None and woken.version == archived.version
    room_key = f"{cluster_world.settings.redis_prefix}{{{table.code}}}:room"
    doomed = redis_cluster.primary_of_key(room_key)
    await asyncio.to_thread(redis_cluster.fail_over, doomed)
    # Back as the new primary's replica, so that commits find a replica to wait for again.
    await asyncio.to_thread(redis_cluster.restart, doomed)

    # A process started now is given a node that is up (the killed one may have been its seed).
    cluster_world.settings = cluster_world.settings.model_copy(
        update={"redis_url": redis_cluster.url}
    )
    after = await cluster_world.process()
    room = await move(after.service, table, random.Random(10))
    assert room.version == archived.version + 1
    kept = await cluster_world.archive.room(table.code)
    assert kept is not None and kept.version == room.version and not kept.parked


async def test_a_players_seats_are_found_in_play_parked_or_not_and_not_once_over(
    world: World,
) -> None:
    """``seats_of``: where an account's guests sit (the lobby's "Your games" on another device
    of theirs), from the database, whether the game is in the store or parked; not once over."""
    table, _ = await parked_table(world, guests=("Bea", "Cid"))
    ann, bea = public_player_id(guest("Ann")), public_player_id(guest("Bea"))
    assert await world.archive.seats_of({ann}, limit=5) == [(table.code, 0)]
    assert await world.archive.seats_of({bea, ann}, limit=5) == [(table.code, 0), (table.code, 1)]
    assert await world.archive.seats_of({bea, ann}, limit=1) == [(table.code, 0)]
    assert await world.archive.seats_of({public_player_id(guest("Dee"))}, limit=5) == []
    assert await world.archive.seats_of(set(), limit=5) == []
    process = await world.process()
    await finish(world, process.service, table, random.Random(2))
    assert await world.archive.seats_of({ann, bea}, limit=5) == []

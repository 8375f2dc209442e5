"""A process that parks turn-based games and nothing else, for a test that kills it midway
(``python -m tests.app.turns.parking_process``): a room service on the store and database its
``CASH_STASH_*`` settings name, and the turn-based keeper's own loop. Each room it parks is
written to stdout, one code a line, as soon as it is out of the store."""

from __future__ import annotations

import asyncio
import logging
import sys

from app.db.session import create_engine, create_session_factory
from app.rooms.ai import AiRunner
from app.rooms.model import Room
from app.rooms.service import RoomService
from app.runtime import store_for
from app.settings import Settings
from app.turns.database import DatabaseTurnArchive
from app.turns.keeper import TurnKeeper
from tests.app.live import ListRecorder


class ParkedCodes(logging.Handler):
    """Writes the room of each ``room parked`` record to stdout."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "room parked":
            sys.stdout.write(f"{getattr(record, 'room', '')}\n")
            sys.stdout.flush()


class Unwatched:
    """The hub of a process nobody is connected to: a deadline's room goes nowhere."""

    def committed(self, room: Room) -> None:
        del room


async def park_forever() -> None:
    settings = Settings()
    store = store_for(settings)
    await store.start()
    engine = create_engine(settings.database_url)
    archive = DatabaseTurnArchive(create_session_factory(engine))
    service = RoomService(
        store=store, settings=settings, recorder=ListRecorder(), ai=AiRunner(0), turns=archive
    )
    await TurnKeeper(service, archive).run(Unwatched())


def main() -> None:
    keeper_log = logging.getLogger("app.turns.keeper")
    keeper_log.setLevel(logging.INFO)
    keeper_log.addHandler(ParkedCodes())
    asyncio.run(park_forever())


if __name__ == "__main__":
    main()

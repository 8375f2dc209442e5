"""The ``cash-stash`` command."""

from __future__ import annotations

import argparse
import fcntl
import logging
import signal
from pathlib import Path
from types import FrameType
from typing import NoReturn

from app import collector
from app.commands import review as review_command
from app.commands import simulate
from app.logs import configure_logging
from app.settings import get_settings
from app.transport import server_options


def _serve(args: argparse.Namespace) -> None:
    import uvicorn

    from app.main import create_app

    settings = get_settings()
    configure_logging(logging.getLevelName(settings.log_level.upper()))
    _schema_ready(settings.database_url)
    collector.tune()
    signal.signal(signal.SIGTERM, _exit_after_shutdown)
    # On SIGTERM uvicorn stops accepting, closes every WebSocket with 1012 (service restart)
    # and waits for handlers to finish their in-flight action, at most ``shutdown_seconds``.
    uvicorn.run(
        create_app,
        factory=True,
        host=args.host or settings.host,
        port=args.port or settings.port,
        **server_options(settings),
        log_config=None,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_seconds,
    )


def _exit_after_shutdown(signum: int, frame: FrameType | None) -> NoReturn:
    """End the process with status 0 once uvicorn has shut down after a SIGTERM.

    uvicorn handles SIGTERM itself and, its shutdown done, raises the signal again under the
    handler it found installed. Under the default one the process dies at once, before
    Python's exit handlers run, multiprocessing's among them: the AI and review pools' queue
    semaphores not yet collected are then never unlinked, and the resource tracker reports
    them as leaked (and unlinks them) after the process is gone. Raising ``SystemExit`` here
    ends the process the ordinary way, with those handlers run."""
    raise SystemExit(0)


def _schema_ready(database_url: str) -> None:
    """Migrate the embedded SQLite file; refuse to serve, in one line, from a database whose
    schema is not at the newest migration (each finished game would fail to be recorded)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from app.db.migrate import schema_revisions, upgrade

    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":  # a database in memory dies with us
            # Processes started together on a new file would each create its tables: one at
            # a time, the others find it migrated.
            with Path(url.database).open("ab") as file:
                fcntl.flock(file, fcntl.LOCK_EX)
                upgrade(database_url)
        return
    shown = url.render_as_string(hide_password=True)
    try:
        current, newest = schema_revisions(database_url)
    except (OSError, SQLAlchemyError) as error:
        cause = getattr(error, "orig", None) or error  # the driver's own words, if it has any
        said = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        _refuse(f"cannot read the database {shown}: {type(cause).__name__}: {said}")
    if current != newest:
        at = ", ".join(sorted(current)) or "no schema"
        _refuse(
            f"the database {shown} is at {at}, this release needs {', '.join(sorted(newest))}: "
            'run "cash-stash migrate" first'
        )


def _refuse(reason: str) -> NoReturn:
    logging.getLogger("app.commands.cli").error("not serving: %s", reason)
    raise SystemExit(1)


def _migrate(args: argparse.Namespace) -> None:
    from app.db.migrate import upgrade

    settings = get_settings()
    upgrade(settings.database_url)


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # Alembic announces each of its plugins as it is imported, before ``app.db.migrate`` can
    # quiet it.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(prog="cash-stash", description="Cash Stash server and tools")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the web server")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(handler=_serve)
    migrate = commands.add_parser("migrate", help="upgrade the database to the latest schema")
    migrate.set_defaults(handler=_migrate)
    tournament = commands.add_parser("simulate", help="play AI tournaments on duplicate deals")
    simulate.add_arguments(tournament)
    tournament.set_defaults(handler=simulate.command)
    review = commands.add_parser("review", help="print a finished game's review, move by move")
    review_command.add_arguments(review)
    review.set_defaults(handler=review_command.command)
    args = parser.parse_args(argv)
    args.handler(args)

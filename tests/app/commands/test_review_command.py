"""``cash-stash review GAME_ID``: the annotated game in the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.commands import review as review_command
from app.commands.cli import main
from app.db.models import GameReview
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.rooms.recording import FinishedGame
from app.settings import get_settings
from engine.ai.review import review_game
from tests.app.db.finished_games import bot, person, played_game
from tests.app.db.scratch_databases import shared_migrated_database

DECISION = re.compile(r"^ +(\d+)  (\S+)")


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with shared_migrated_database("sqlite", tmp_path) as url:
        monkeypatch.setenv("CASH_STASH_DATABASE_URL", url)
        get_settings.cache_clear()
        yield url
    get_settings.cache_clear()


def record(url: str, game: FinishedGame, review: dict[str, Any] | None = None) -> None:
    async def store() -> None:
        engine = create_engine(url)
        sessions = create_session_factory(engine)
        await DatabaseRecorder(sessions).record(game)
        if review is not None:
            async with sessions() as session:
                now = datetime.now(UTC)
                session.add(
                    GameReview(
                        game_id=game.game_id,
                        status="done",
                        progress=1.0,
                        rounds=1,
                        attempt=1,
                        review=review,
                        created_at=now,
                        updated_at=now,
                    )
                )
                await session.commit()
        await engine.dispose()

    asyncio.run(store())


def a_game() -> FinishedGame:
    return played_game([person(0, "Ann"), bot(1, "easy")], seed=3, rules="simple")


def decisions(out: str) -> list[tuple[int, str]]:
    every = out.split("Every decision\n", 1)[1]
    return [
        (int(found[1]), found[2]) for line in every.splitlines() if (found := DECISION.match(line))
    ]


def test_it_computes_and_prints_every_decision_with_a_progress_bar(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game = a_game()
    record(database, game)

    main(["review", game.game_id, "--rounds", "1"])

    printed = capsys.readouterr()
    names = ["Ann", "Easy"]
    assert decisions(printed.out) == [
        (step, names[action["seat"]]) for step, action in enumerate(game.actions)
    ]
    assert "Review at 1 search rounds per decision" in printed.out
    assert re.search(r"\[(best|good|inaccuracy|mistake|blunder)\]  win \d+% → \d+%", printed.out)
    assert "(forced)" in printed.out
    assert re.search(r"^Accuracy \(out of 100\): Ann \d+\.\d, Easy AI \d+\.\d$", printed.out, re.M)
    flagged = re.findall(r"\[(?:inaccuracy|mistake|blunder)\]", printed.out)
    assert len(re.findall(r"^      why: \S", printed.out, re.M)) == len(flagged)
    assert f"{len(game.actions)}/{len(game.actions)}" in printed.err  # the progress bar


def test_a_stored_review_is_printed_without_computing(
    database: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = a_game()
    review = review_game(game.config, game.actions, rounds=1)
    record(database, game, review)

    def no_computing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a stored review is not computed again")

    monkeypatch.setattr(review_command, "review_game", no_computing)
    main(["review", game.game_id, "--rounds", "1"])

    out = capsys.readouterr().out
    assert len(decisions(out)) == len(game.actions)
    key_moments = out.split("Key moments\n", 1)[1].split("\n\n", 1)[0]
    listed = [int(found[1]) for line in key_moments.splitlines() if (found := DECISION.match(line))]
    assert listed == review["key_moments"]


def test_an_unknown_game_is_refused(database: str) -> None:
    with pytest.raises(review_command.GameNotFound):
        main(["review", "no-such-game"])

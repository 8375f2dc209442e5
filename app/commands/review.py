"""``cash-stash review GAME_ID``: a finished game's review, printed in the terminal.

It reads the game from the database (``CASH_STASH_DATABASE_URL``). A review the server has
finished at the same budget is printed as stored; otherwise it is computed here, with a
progress bar, exactly as the server computes it (the same seed: the same review).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from tqdm import tqdm

import engine
from app.db import repository
from app.db.models import Game, GameReview
from app.db.session import create_engine, create_session_factory
from app.games.reviews import REVIEW_SEED
from app.settings import get_settings
from engine.ai.review import FORCED, review_game


class GameNotFound(LookupError):
    """No finished game has the id given."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game_id", help="the finished game's id")
    parser.add_argument(
        "--rounds",
        type=int,
        help="search rounds per decision (default: CASH_STASH_REVIEW_ROUNDS)",
    )


def command(args: argparse.Namespace) -> None:
    rounds = args.rounds or get_settings().review_rounds
    game, stored = asyncio.run(_load(args.game_id))
    review = stored
    if review is None or review.get("rounds") != rounds:
        with tqdm(total=len(game.actions), unit="move", file=sys.stderr) as bar:

            def advance(done: int, total: int) -> None:
                bar.update(done - bar.n)

            review = {
                **review_game(
                    game.config,
                    game.actions,
                    rounds=rounds,
                    seed=REVIEW_SEED,
                    progress=advance,
                ),
                "rounds": rounds,
            }
    names = [seat.name for seat in game.seats]
    write_review(sys.stdout, config=game.config, actions=game.actions, names=names, review=review)


async def _load(game_id: str) -> tuple[Game, dict[str, Any] | None]:
    """The game, and its stored review (with its budget as ``rounds``) if one is done."""
    database = create_engine(get_settings().database_url)
    try:
        async with create_session_factory(database)() as session:
            game = await repository.get_game(session, game_id=game_id)
            if game is None:
                raise GameNotFound(f"No finished game has the id {game_id!r}.")
            row = await session.get(GameReview, game_id)
            if row is None or row.status != "done" or row.review is None:
                return game, None
            return game, {**row.review, "rounds": row.rounds}
    finally:
        await database.dispose()


def write_review(
    out: TextIO,
    *,
    config: Mapping[str, Any],
    actions: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    review: Mapping[str, Any],
) -> None:
    """Each seat's accuracy; then each decision: step, seat, the move in words, the verdict,
    the win chances, why it was worse and the better move; the key moments first."""
    by_step = {item["step"]: item for item in review["decisions"]}
    lines: dict[int, str] = {}
    state = engine.new_game(dict(config))
    for step, action in enumerate(actions):
        item = by_step[step]
        played = _in_words(state, action)
        line = f"{step:>4}  {names[item['seat']]:<14} {played}"
        if item["verdict"] == FORCED:
            line += "  (forced)"
        else:
            line += (
                f"  [{item['verdict']}]  win {_percent(item['win_before'])}"
                f" → {_percent(item['win_played'])}"
            )
            if item.get("reason"):
                line += f"\n      why: {item['reason']}"
            if item["best"] != item["played"]:
                line += f"\n      better: {_in_words(state, item['best'])}"
        lines[step] = line
        state = engine.apply_action(state, action)
    out.write(f"Review at {review.get('rounds', '?')} search rounds per decision\n")
    accuracies = [
        f"{names[seat['seat']]} {seat['accuracy']:.1f}"
        for seat in review["seats"]
        if seat.get("accuracy") is not None
    ]
    if accuracies:
        out.write(f"Accuracy (out of 100): {', '.join(accuracies)}\n")
    if review["key_moments"]:
        out.write("\nKey moments\n")
        for step in review["key_moments"]:
            out.write(lines[step] + "\n")
    out.write("\nEvery decision\n")
    for step in range(len(actions)):
        out.write(lines[step] + "\n")


def _in_words(state: engine.State, action: Mapping[str, Any]) -> str:
    """What the game's log says of ``action`` made in ``state`` (its first entry: those after
    it tell of the draws and the turn passing)."""
    after = engine.apply_action(state, action)
    entries = engine.log_entries(after, since=state)
    return str(entries[0].get("text", action["type"])) if entries else str(action["type"])


def _percent(chance: float) -> str:
    return f"{round(chance * 100)}%"

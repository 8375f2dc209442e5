"""AI tournaments (``cash-stash simulate``): duplicate deals, win rates with confidence intervals.

Every deal is played once per rotation of the line-up over the seats, from the same shuffle,
so each entrant meets the same cards from every seat and luck of the deal cancels out.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

import engine
import engine.ai

Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class Tournament:
    """What to play."""

    lineup: tuple[str, ...]
    """Each entrant, one per seat: a level (``easy``, ``medium``, ``hard``), for Hard optionally
    with options of its own (``hard:iterations=60,depth=0``; see ``parse_entrant``)."""
    deals: int
    rules: str = "advanced"
    draft: bool = False
    rounds: int | str = 1
    seed: int = 0
    hard: tuple[tuple[str, Any], ...] = ()
    """Options for Hard players (``iterations``, ``seconds``, ``depth``)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of one deal: per entrant (not per seat), its win share and stash margin."""

    deal: int
    rotation: int
    shares: tuple[float, ...]
    margins: tuple[int, ...]


HARD_OPTIONS: dict[str, Callable[[str], Any]] = {
    "iterations": int,
    "seconds": float,
    "depth": lambda value: int(value) or None,
    "width": int,
}
"""What an entrant may set for Hard, and how to read each value (depth 0: to the end)."""


def parse_entrant(text: str) -> tuple[str, dict[str, Any]]:
    """An entrant's level and Hard options, from ``level`` or ``hard:key=value,...``.

    Two Hard entrants with different options play as different entrants, which is how playout
    lengths or budgets are compared. ``ValueError`` says what is wrong with a bad one.
    """
    level, _, given = text.partition(":")
    if level not in engine.ai.LEVELS:
        raise ValueError(f"no AI level {level!r}: choose one of {', '.join(engine.ai.LEVELS)}")
    options: dict[str, Any] = {}
    for item in filter(None, given.split(",")):
        key, equals, value = item.partition("=")
        if level != "hard" or not equals or key not in HARD_OPTIONS:
            raise ValueError(
                f"{item!r}: only Hard takes options, as key=value with key one of "
                f"{', '.join(HARD_OPTIONS)}"
            )
        try:
            options[key] = HARD_OPTIONS[key](value)
        except ValueError:
            raise ValueError(f"{item!r}: {value!r} is not a number") from None
    return level, options


def play_game(tournament: Tournament, deal: int, rotation: int) -> GameResult:
    """Play deal ``deal`` with the line-up rotated ``rotation`` seats."""
    lineup = tournament.lineup
    players = len(lineup)
    config = {
        "players": players,
        "rules": tournament.rules,
        "draft": tournament.draft,
        "rounds": tournament.rounds,
        "seed": f"simulate/{tournament.seed}/{deal}",
    }
    entrant_at = [(seat - rotation) % players for seat in range(players)]
    ais = []
    for name in (lineup[index] for index in entrant_at):
        level, options = parse_entrant(name)
        ais.append(
            engine.ai.player(level, **{**dict(tournament.hard), **options})
            if level == "hard"
            else engine.ai.player(level)
        )
    rng = random.Random(f"simulate/{tournament.seed}/{deal}/{rotation}")
    state = engine.new_game(config)
    while not engine.is_over(state):
        seat = engine.to_act(state)[0]
        action = ais[seat].decide(engine.view_for(state, seat), rng)
        state = engine.apply_action(state, action)
    result = engine.result(state)
    totals: list[int] = result["totals"]
    winners: list[int] = result["winners"]
    shares = [0.0] * players
    margins = [0] * players
    for seat in range(players):
        entrant = entrant_at[seat]
        shares[entrant] = 1.0 / len(winners) if seat in winners else 0.0
        margins[entrant] = totals[seat] - max(t for s, t in enumerate(totals) if s != seat)
    return GameResult(deal, rotation, tuple(shares), tuple(margins))


def _play(task: tuple[Tournament, int, int]) -> GameResult:
    return play_game(*task)


def run(tournament: Tournament, *, jobs: int = 1, progress: bool = True) -> list[GameResult]:
    """Play every rotation of every deal, on ``jobs`` processes."""
    players = len(tournament.lineup)
    tasks = [(tournament, deal, rot) for deal in range(tournament.deals) for rot in range(players)]
    bar = tqdm(total=len(tasks), unit="game", disable=not progress, file=sys.stderr)
    results: list[GameResult] = []
    with bar:
        if jobs <= 1:
            games: Iterator[GameResult] = map(_play, tasks)
            for game in games:
                results.append(game)
                bar.update()
        else:
            with multiprocessing.get_context("spawn").Pool(jobs) as pool:
                for game in pool.imap_unordered(_play, tasks):
                    results.append(game)
                    bar.update()
    return sorted(results, key=lambda game: (game.deal, game.rotation))


def summarize(tournament: Tournament, results: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Per level: games, win rate with a 95% interval over deals, and mean stash margin.

    An entrant's games on one deal are averaged first, so the interval counts deals, not the
    correlated games played from the same shuffle.
    """
    rows = []
    for level in dict.fromkeys(tournament.lineup):
        entrants = [i for i, name in enumerate(tournament.lineup) if name == level]
        per_deal: dict[int, list[float]] = {}
        margins: list[int] = []
        for game in results:
            for entrant in entrants:
                per_deal.setdefault(game.deal, []).append(game.shares[entrant])
                margins.append(game.margins[entrant])
        means = [statistics.fmean(shares) for shares in per_deal.values()]
        rate = statistics.fmean(means)
        spread = statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else 0.0
        rows.append(
            {
                "level": level,
                "entrants": len(entrants),
                "games": len(results) * len(entrants),
                "deals": len(means),
                "win_rate": rate,
                "ci95": [max(0.0, rate - Z95 * spread), min(1.0, rate + Z95 * spread)],
                "mean_margin": statistics.fmean(margins),
            }
        )
    return rows


def table(tournament: Tournament, rows: list[dict[str, Any]]) -> str:
    lines = [
        f"{len(tournament.lineup)} players ({', '.join(tournament.lineup)}), rules "
        f"{tournament.rules}{', draft' if tournament.draft else ''}, {tournament.deals} deals "
        f"x {len(tournament.lineup)} seat rotations",
        f"{'level':<8} {'entrants':>8} {'games':>6} {'win rate':>9} {'95% CI':>17} "
        f"{'mean margin':>12}",
    ]
    for row in rows:
        low, high = row["ci95"]
        lines.append(
            f"{row['level']:<8} {row['entrants']:>8} {row['games']:>6} "
            f"{row['win_rate']:>9.1%} {f'{low:.1%} to {high:.1%}':>17} "
            f"{row['mean_margin']:>+12,.0f}"
        )
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "lineup",
        nargs="+",
        type=_entrant_argument,
        help="one entrant per seat, e.g. `hard medium` or `hard medium medium medium`; Hard "
        "may take options of its own: `hard:iterations=60,depth=12 hard:iterations=13,depth=0`",
    )
    parser.add_argument("--deals", type=int, default=20, help="deals, each played every rotation")
    parser.add_argument(
        "--rules", default="advanced", choices=("simple", "simple_actions", "advanced")
    )
    parser.add_argument("--draft", action="store_true", help="draft piles (2 or 3 players)")
    parser.add_argument("--rounds", default="1", help='1, a number, "million" or "two_round_wins"')
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play on")
    parser.add_argument("--iterations", type=int, help="Hard's iteration budget per decision")
    parser.add_argument("--seconds", type=float, help="Hard's time budget per decision")
    parser.add_argument("--depth", type=int, help="Hard's playout length (0: to the end)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def _entrant_argument(text: str) -> str:
    try:
        parse_entrant(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None
    return text


def command(args: argparse.Namespace) -> None:
    hard: dict[str, Any] = {}
    if args.iterations is not None:
        hard["iterations"] = args.iterations
    if args.seconds is not None:
        hard["seconds"] = args.seconds
    if args.depth is not None:
        hard["depth"] = args.depth or None
    rounds: int | str = int(args.rounds) if args.rounds.isdigit() else args.rounds
    tournament = Tournament(
        lineup=tuple(args.lineup),
        deals=args.deals,
        rules=args.rules,
        draft=args.draft,
        rounds=rounds,
        seed=args.seed,
        hard=tuple(sorted(hard.items())),
    )
    engine.new_game(
        {
            "players": len(tournament.lineup),
            "rules": args.rules,
            "draft": args.draft,
            "rounds": rounds,
        }
    )  # refuses a configuration the rules forbid before any game starts
    results = run(tournament, jobs=args.jobs, progress=not args.json)
    rows = summarize(tournament, results)
    if args.json:
        sys.stdout.write(
            json.dumps({"tournament": _describe(tournament), "results": rows}, indent=2) + "\n"
        )
    else:
        sys.stdout.write(table(tournament, rows) + "\n")


def _describe(tournament: Tournament) -> dict[str, Any]:
    return {
        "lineup": list(tournament.lineup),
        "deals": tournament.deals,
        "rules": tournament.rules,
        "draft": tournament.draft,
        "rounds": tournament.rounds,
        "seed": tournament.seed,
        "hard": dict(tournament.hard),
    }

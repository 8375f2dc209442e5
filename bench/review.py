"""Is the game review right, and how long does it take? (issue 24; figures go in docs/ai.md)

    python bench/review.py calibration [--games 200] [--players 2] [--rounds 32] [--jobs 2]
    python bench/review.py speed [--games 3] [--players 4] [--rounds 32]

``calibration`` plays self-play games between Medium players, reviews every game and compares
the win chances the review gave (each seat's chance with the best move, at its own decisions)
with what then happened: a reliability table and the Brier score, beside the Brier score of a
simple baseline that gives each seat its share of the stashes so far (an even share while the
stashes are all empty). A seat that shared the win counts as its share of it.

``speed`` times whole reviews of games of that many players, in CPU seconds of one process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

# Run as a script, this file would shadow the packages it measures.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
import engine.ai  # noqa: E402
from engine.ai.review import FORCED, review_game  # noqa: E402

BINS = 10


def self_play(config: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The actions of one game between Medium players."""
    medium = engine.ai.player("medium")
    rng = random.Random(seed)
    state = engine.new_game(config)
    actions = []
    while not engine.is_over(state):
        seat = state.to_act()[0]
        action = medium.decide(engine.view_for(state, seat), rng)
        actions.append(action)
        state = engine.apply_action(state, action)
    return actions


def _game_points(task: tuple[int, int, int]) -> list[tuple[float, float, float]]:
    """(review's chance, baseline's chance, outcome) at every judged decision of one game."""
    players, rounds, seed = task
    config = {"players": players, "rules": "advanced", "seed": seed}
    actions = self_play(config, seed)
    review = review_game(config, actions, rounds=rounds, seed=seed)
    state = engine.new_game(config)
    baseline: list[float] = []
    for action in actions:
        stashes = engine.scores(state)
        total = sum(stashes)
        seat = int(action["seat"])
        baseline.append(stashes[seat] / total if total else 1.0 / players)
        state = engine.apply_action(state, action)
    winners = engine.result(state)["winners"]
    points = []
    for item in review["decisions"]:
        if item["verdict"] == FORCED:
            continue
        outcome = 1.0 / len(winners) if item["seat"] in winners else 0.0
        points.append((item["win_before"], baseline[item["step"]], outcome))
    return points


def brier(pairs: list[tuple[float, float]]) -> float:
    return statistics.fmean((chance - outcome) ** 2 for chance, outcome in pairs)


def reliability(pairs: list[tuple[float, float]]) -> list[str]:
    rows = ["| predicted | decisions | mean predicted | observed |", "|---|---|---|---|"]
    for index in range(BINS):
        low, high = index / BINS, (index + 1) / BINS
        inside = [
            (chance, outcome)
            for chance, outcome in pairs
            if low <= chance < high or (index == BINS - 1 and chance == 1.0)
        ]
        if not inside:
            continue
        predicted = statistics.fmean(chance for chance, _ in inside)
        observed = statistics.fmean(outcome for _, outcome in inside)
        span = f"{low:.1f} to {high:.1f}"
        rows.append(f"| {span} | {len(inside)} | {predicted:.3f} | {observed:.3f} |")
    return rows


def calibration(args: argparse.Namespace) -> None:
    tasks = [(args.players, args.rounds, args.seed + game) for game in range(args.games)]
    points: list[tuple[float, float, float]] = []
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, game in enumerate(pool.map(_game_points, tasks), start=1):
            points.extend(game)
            if done % 10 == 0 or done == len(tasks):
                elapsed = time.monotonic() - started
                print(f"{done}/{len(tasks)} games, {elapsed:.0f} s", file=sys.stderr)
    review = [(chance, outcome) for chance, _, outcome in points]
    baseline = [(chance, outcome) for _, chance, outcome in points]
    print(
        f"{args.games} games of {args.players} players (Medium self-play, advanced), "
        f"{args.rounds} rounds per decision, {len(points)} judged decisions"
    )
    print(
        f"Brier score: review {brier(review):.4f}, baseline (share of stashes) "
        f"{brier(baseline):.4f}"
    )
    print("\nReview:")
    print("\n".join(reliability(review)))
    print("\nBaseline:")
    print("\n".join(reliability(baseline)))


def speed(args: argparse.Namespace) -> None:
    for game in range(args.games):
        seed = args.seed + game
        config = {"players": args.players, "rules": "advanced", "seed": seed}
        actions = self_play(config, seed)
        started = time.process_time()
        review = review_game(config, actions, rounds=args.rounds, seed=seed)
        cpu = time.process_time() - started
        judged = sum(item["verdict"] != FORCED for item in review["decisions"])
        print(
            f"game {seed}: {len(actions)} decisions ({judged} judged), "
            f"{cpu:.1f} s CPU, {1000 * cpu / len(actions):.0f} ms per decision"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=32, help="rounds per judged decision")
    commands = parser.add_subparsers(dest="command", required=True)
    calibrate = commands.add_parser("calibration")
    calibrate.add_argument("--games", type=int, default=200)
    calibrate.add_argument("--players", type=int, default=2)
    calibrate.add_argument("--jobs", type=int, default=2)
    timing = commands.add_parser("speed")
    timing.add_argument("--games", type=int, default=3)
    timing.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    calibration(args) if args.command == "calibration" else speed(args)


if __name__ == "__main__":
    main()

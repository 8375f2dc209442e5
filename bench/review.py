"""Is the game review right, and how long does it take? (issue 24; figures go in docs/ai.md)

    python bench/review.py [--rounds 32] calibration [--games 200] [--fit-games 200]
        [--fit-seed 100000] [--players 2] [--jobs 2] [--points FILE] [--resume]
    python bench/review.py speed [--games 3] [--players 4] [--rounds 32]

``calibration`` plays self-play games between Medium players, reviews every game with the raw
(uncalibrated) win chances and compares them with what then happened. Two disjoint sets of
games: the fit games (seeds from ``--fit-seed``) fit the calibration (isotonic regression,
``engine.ai.calibration``); the test games (seeds from ``--seed``) measure it. On the test
games it prints the Brier score and the reliability table of the raw chances, of the
calibrated ones and of a simple baseline that gives each seat its share of the stashes so far
(an even share while the stashes are all empty). A seat that shared the win counts as its
share of it. The knots of the fit are printed last, ready for ``engine/ai/calibration.py``.

Every finished game's points are appended to ``--points`` (JSON lines) as they come, so a run
cut short keeps what it did, and ``--resume`` goes on from such a file (the games in it are not
played again).

``speed`` times whole reviews of games of that many players, in CPU seconds of one process.
"""

from __future__ import annotations

import argparse
import json
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
from engine.ai.calibration import Calibration, fit_isotonic  # noqa: E402
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


Point = tuple[float, float, float]
"""(review's raw chance, baseline's chance, outcome) at one judged decision."""


def _game_points(task: tuple[str, int, int, int]) -> tuple[str, int, list[Point]]:
    """The points of every judged decision of one game, with the game's role and seed."""
    role, players, rounds, seed = task
    config = {"players": players, "rules": "advanced", "seed": seed}
    actions = self_play(config, seed)
    review = review_game(config, actions, rounds=rounds, seed=seed, calibrated=False)
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
    return role, seed, points


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


def _tasks(args: argparse.Namespace) -> list[tuple[str, int, int, int]]:
    """Test and fit games interleaved, so a run cut short has some of each."""
    tasks = []
    for game in range(max(args.games, args.fit_games)):
        if game < args.games:
            tasks.append(("test", args.players, args.rounds, args.seed + game))
        if game < args.fit_games:
            tasks.append(("fit", args.players, args.rounds, args.fit_seed + game))
    return tasks


def _saved(path: Path) -> dict[tuple[str, int], list[Point]]:
    games: dict[tuple[str, int], list[Point]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            record = json.loads(line)
            games[(record["role"], record["seed"])] = [tuple(p) for p in record["points"]]
    return games


def calibration(args: argparse.Namespace) -> None:
    path = Path(args.points)
    games = _saved(path) if args.resume else {}
    if not args.resume:
        path.write_text("")
    tasks = [task for task in _tasks(args) if (task[0], task[3]) not in games]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool, path.open("a") as out:
        for done, (role, seed, points) in enumerate(pool.map(_game_points, tasks), start=1):
            games[(role, seed)] = points
            out.write(json.dumps({"role": role, "seed": seed, "points": points}) + "\n")
            out.flush()
            if done % 10 == 0 or done == len(tasks):
                elapsed = time.monotonic() - started
                print(f"{done}/{len(tasks)} games, {elapsed:.0f} s", file=sys.stderr)
    report(games, args)


def report(games: dict[tuple[str, int], list[Point]], args: argparse.Namespace) -> None:
    fit = [point for (role, _), points in games.items() if role == "fit" for point in points]
    test = [point for (role, _), points in games.items() if role == "test" for point in points]
    fitted = Calibration(fit_isotonic([(chance, outcome) for chance, _, outcome in fit]))
    raw = [(chance, outcome) for chance, _, outcome in test]
    calibrated = [(fitted(chance), outcome) for chance, outcome in raw]
    baseline = [(chance, outcome) for _, chance, outcome in test]
    count = {role: sum(key[0] == role for key in games) for role in ("test", "fit")}
    print(
        f"{count['test']} test games and {count['fit']} fit games of {args.players} players "
        f"(Medium self-play, advanced), {args.rounds} rounds per decision; "
        f"{len(test)} judged decisions tested, {len(fit)} fitted"
    )
    print(
        f"Brier score on the test games: raw {brier(raw):.4f}, calibrated "
        f"{brier(calibrated):.4f}, baseline (share of stashes) {brier(baseline):.4f}"
    )
    for title, pairs in (("Raw", raw), ("Calibrated", calibrated), ("Baseline", baseline)):
        print(f"\n{title}:")
        print("\n".join(reliability(pairs)))
    print("\nKnots (raw chance, calibrated chance):")
    print(repr(tuple((round(x, 4), round(y, 4)) for x, y in fitted.knots)))


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
    calibrate.add_argument("--games", type=int, default=200, help="test games")
    calibrate.add_argument("--fit-games", type=int, default=200)
    calibrate.add_argument("--fit-seed", type=int, default=100_000)
    calibrate.add_argument("--points", default="calibration-points.jsonl")
    calibrate.add_argument("--resume", action="store_true")
    calibrate.add_argument("--players", type=int, default=2)
    calibrate.add_argument("--jobs", type=int, default=2)
    timing = commands.add_parser("speed")
    timing.add_argument("--games", type=int, default=3)
    timing.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    calibration(args) if args.command == "calibration" else speed(args)


if __name__ == "__main__":
    main()

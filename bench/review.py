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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

# Run as a script, this file would shadow the packages it measures.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
import engine.ai  # noqa: E402
from engine.ai.calibration import Calibration, Knot, fit_isotonic, fit_platt  # noqa: E402
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


def _bin_of(chance: float) -> int:
    return min(BINS - 1, int(chance * BINS))


def _bins(pairs: list[tuple[float, float]]) -> dict[int, tuple[int, float, float]]:
    """Per bin of predicted chance: (decisions, mean predicted, mean observed)."""
    sums: dict[int, list[float]] = {}
    for chance, outcome in pairs:
        total = sums.setdefault(_bin_of(chance), [0.0, 0.0, 0.0])
        total[0] += 1
        total[1] += chance
        total[2] += outcome
    return {index: (int(n), c / n, o / n) for index, (n, c, o) in sorted(sums.items())}


def worst_gap(pairs: list[tuple[float, float]]) -> float:
    return max(abs(observed - predicted) for _, predicted, observed in _bins(pairs).values())


def reliability(
    pairs: list[tuple[float, float]], spreads: dict[int, tuple[float, float]] | None = None
) -> list[str]:
    """The reliability table; with ``spreads``, each bin's 90% interval of observed minus
    predicted over resamples of the test games."""
    head = "| predicted | decisions | mean predicted | observed | gap |"
    rule = "|---|---|---|---|---|"
    if spreads is not None:
        head += " 90% of resamples |"
        rule += "---|"
    rows = [head, rule]
    for index, (count, predicted, observed) in _bins(pairs).items():
        span = f"{index / BINS:.1f} to {(index + 1) / BINS:.1f}"
        row = (
            f"| {span} | {count} | {predicted:.3f} | {observed:.3f} |"
            f" {100 * (observed - predicted):+.1f} |"
        )
        if spreads is not None and index in spreads:
            low, high = spreads[index]
            row += f" {100 * low:+.1f} to {100 * high:+.1f} |"
        rows.append(row)
    return rows


def resampled_gaps(
    games: list[list[tuple[float, float]]], resamples: int = 400, seed: int = 0
) -> dict[int, tuple[float, float]]:
    """How far each bin's gap moves between samples of this many games: the 5th and 95th
    percentiles of (observed - predicted) over resamples of whole games with replacement
    (a game's decisions hang together, so games, not decisions, are drawn)."""
    rng = random.Random(seed)
    gaps: dict[int, list[float]] = {}
    for _ in range(resamples):
        drawn = [pair for _ in games for pair in rng.choice(games)]
        for index, (_, predicted, observed) in _bins(drawn).items():
            gaps.setdefault(index, []).append(observed - predicted)
    spreads = {}
    for index, values in gaps.items():
        values.sort()
        spreads[index] = (values[len(values) // 20], values[len(values) * 19 // 20])
    return spreads


FITS: dict[str, Callable[[list[tuple[float, float]]], tuple[Knot, ...]]] = {
    "isotonic": fit_isotonic,
    "platt": fit_platt,
}


def cross_validated(fit_games: list[list[tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Each fit judged on the fit games alone, by two-fold cross-validation (fitted on the
    even games and tested on the odd, then the other way round): mean Brier score and mean
    worst bin."""
    folds = (fit_games[0::2], fit_games[1::2])
    scores = {}
    for name, fit in FITS.items():
        briers, worsts = [], []
        for train, test in (folds, folds[::-1]):
            mapping = Calibration(fit([pair for game in train for pair in game]))
            judged = [(mapping(chance), outcome) for game in test for chance, outcome in game]
            briers.append(brier(judged))
            worsts.append(worst_gap(judged))
        scores[name] = (statistics.fmean(briers), statistics.fmean(worsts))
    return scores


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
    def pairs_of(role: str, which: int) -> list[list[tuple[float, float]]]:
        return [
            [(point[which], point[2]) for point in points]
            for (kind, _), points in sorted(games.items())
            if kind == role
        ]

    fit_games, test_games = pairs_of("fit", 0), pairs_of("test", 0)
    fit = [pair for game in fit_games for pair in game]
    raw = [pair for game in test_games for pair in game]
    count = {role: sum(key[0] == role for key in games) for role in ("test", "fit")}
    print(
        f"{count['test']} test games and {count['fit']} fit games of {args.players} players "
        f"(Medium self-play, advanced), {args.rounds} rounds per decision; "
        f"{len(raw)} judged decisions tested, {len(fit)} fitted"
    )
    scores = cross_validated(fit_games)
    for name, (score, worst) in scores.items():
        print(
            f"two-fold cross-validation on the fit games, {name}: Brier {score:.4f}, worst bin "
            f"{100 * worst:.1f} points"
        )
    chosen = min(scores, key=lambda name: scores[name])
    mapped = {name: Calibration(fit_with(fit)) for name, fit_with in FITS.items()}
    tables: list[tuple[str, list[list[tuple[float, float]]]]] = [("raw", test_games)]
    for name, mapping in mapped.items():
        tables.append(
            (
                f"calibrated, {name}" + (" (chosen)" if name == chosen else ""),
                [[(mapping(chance), outcome) for chance, outcome in game] for game in test_games],
            )
        )
    tables.append(("baseline (share of the stashes)", pairs_of("test", 1)))
    print("\nOn the test games: Brier score, and the worst bin's gap (points)")
    for title, per_game in tables:
        pairs = [pair for game in per_game for pair in game]
        print(f"  {title}: {brier(pairs):.4f}, {100 * worst_gap(pairs):.1f}")
    for title, per_game in tables:
        pairs = [pair for game in per_game for pair in game]
        print(f"\n{title[0].upper() + title[1:]}:")
        spreads = None if title.startswith("baseline") else resampled_gaps(per_game)
        print("\n".join(reliability(pairs, spreads)))
    print(f"\nKnots of the chosen fit ({chosen}; raw chance, calibrated chance):")
    print(repr(tuple((round(x, 4), round(y, 4)) for x, y in mapped[chosen].knots)))


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

"""AI strength and speed: the issue-4 targets, measured (figures go in docs/ai.md).

    python bench/ai.py speed [--positions 60] [--seconds S | --iterations N]
    python bench/ai.py strength {medium-easy,hard-medium,hard-3medium} [--deals 500] [--jobs 2]
    python bench/ai.py pool saved-strength-output...

``speed`` times Hard's decisions on positions from Medium-vs-Medium games (2 and 4 players)
on one process, in wall-clock and CPU seconds (they differ when other work shares the cores);
pin it to one core (``taskset -c 0``) for steadier figures. ``strength`` plays a
duplicate-deal tournament exactly as ``cash-stash simulate`` does and prints its table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file would shadow the packages it measures.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
import engine.ai  # noqa: E402
from app.commands import simulate  # noqa: E402
from engine.ai.search import HardPlayer  # noqa: E402

MATCHES = {
    "medium-easy": ("medium", "easy"),
    "hard-medium": ("hard", "medium"),
    "hard-3medium": ("hard", "medium", "medium", "medium"),
}


def positions(players: int, count: int, seed: int) -> list[engine.State]:
    """Positions where a decision is open, taken from Medium-vs-Medium games."""
    medium = engine.ai.player("medium")
    rng = random.Random(seed)
    found: list[engine.State] = []
    game = 0
    while len(found) < count:
        state = engine.new_game({"players": players, "seed": f"bench/{seed}/{game}"})
        game += 1
        while not engine.is_over(state) and len(found) < count:
            if rng.random() < 0.15:
                found.append(state)
            seat = engine.to_act(state)[0]
            state = engine.apply_action(state, medium.decide(engine.view_for(state, seat), rng))
    return found


def speed(args: argparse.Namespace) -> None:
    budget = {"iterations": args.iterations, "seconds": args.seconds}
    for players in (2, 4):
        times: list[float] = []
        cpu: list[float] = []
        rates: list[float] = []
        for index, state in enumerate(positions(players, args.positions, args.seed)):
            hard = HardPlayer(**budget)
            view = engine.view_for(state, engine.to_act(state)[0])
            start, start_cpu = time.perf_counter(), time.process_time()
            hard.decide(view, random.Random(index))
            elapsed = time.perf_counter() - start
            times.append(elapsed)
            cpu.append(time.process_time() - start_cpu)
            if hard.last_iterations:
                rates.append(hard.last_iterations / cpu[-1])
        times.sort()
        cpu.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(
            json.dumps(
                {
                    "players": players,
                    "decisions": len(times),
                    "budget": budget,
                    "median_s": round(statistics.median(times), 3),
                    "p95_s": round(p95, 3),
                    "max_s": round(times[-1], 3),
                    "cpu_median_s": round(statistics.median(cpu), 3),
                    "cpu_p95_s": round(cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))], 3),
                    "iterations_per_cpu_s": round(statistics.median(rates)) if rates else None,
                }
            )
        )


def strength(args: argparse.Namespace) -> None:
    hard: dict[str, object] = {}
    if args.iterations is not None:
        hard["iterations"] = args.iterations
    if args.seconds is not None:
        hard["seconds"] = args.seconds
    tournament = simulate.Tournament(
        lineup=MATCHES[args.match],
        deals=args.deals,
        seed=args.seed,
        hard=tuple(sorted(hard.items())),
    )
    start = time.perf_counter()
    results = simulate.run(tournament, jobs=args.jobs)
    rows = simulate.summarize(tournament, results)
    print(simulate.table(tournament, rows))
    print(f"{time.perf_counter() - start:.0f} s")
    print(json.dumps({"match": args.match, "hard": hard, "results": rows}))


def pool(args: argparse.Namespace) -> None:
    """Pool saved ``strength`` outputs of disjoint deal sets (different ``--seed``s).

    Each run's per-deal spread is recovered from its interval; deals are independent across
    runs, so the pooled win rate is the deal-weighted mean and its interval uses the pooled
    variance of per-deal win shares.
    """
    runs: dict[str, list[tuple[int, float, float, float, int]]] = {}
    for path in args.files:
        lines = [line for line in Path(path).read_text().splitlines() if line.startswith("{")]
        if not lines:
            print(f"{path}: no result (unfinished run), left out")
            continue
        report = json.loads(lines[-1])
        for row in report["results"]:
            deals, rate = row["deals"], row["win_rate"]
            spread = (row["ci95"][1] - row["ci95"][0]) / (2 * simulate.Z95) * deals**0.5
            runs.setdefault(row["level"], []).append(
                (deals, rate, spread, row["mean_margin"], row["games"])
            )
    for level, parts in runs.items():
        deals = sum(part[0] for part in parts)
        games = sum(part[4] for part in parts)
        rate = sum(part[0] * part[1] for part in parts) / deals
        variance = sum((n - 1) * sd**2 + n * (r - rate) ** 2 for n, r, sd, _, _ in parts)
        half = simulate.Z95 * (variance / (deals - 1) / deals) ** 0.5
        margin = sum(part[3] * part[4] for part in parts) / games
        print(
            f"{level:<8} runs {len(parts)}, deals {deals}, games {games}: win rate {rate:.1%} "
            f"(95% {rate - half:.1%} to {rate + half:.1%}), mean margin {margin:+,.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, help="Hard's iteration budget per decision")
    parser.add_argument("--seconds", type=float, help="Hard's time budget per decision")
    modes = parser.add_subparsers(dest="mode", required=True)
    timing = modes.add_parser("speed", help="Hard's decision times and iterations per second")
    timing.add_argument("--positions", type=int, default=60)
    timing.set_defaults(run=speed)
    match = modes.add_parser("strength", help="a duplicate-deal tournament")
    match.add_argument("match", choices=sorted(MATCHES))
    match.add_argument("--deals", type=int, default=500)
    match.add_argument("--jobs", type=int, default=2)
    match.set_defaults(run=strength)
    pooled = modes.add_parser("pool", help="pool saved strength outputs of different seeds")
    pooled.add_argument("files", nargs="+")
    pooled.set_defaults(run=pool)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()

"""Engine speed: random-legal-action games per second and legal-action generations per second.

Runs on one core and counts CPU time of this process (steadier on a shared machine than wall
time; pin it with ``taskset -c 0``). Prints medians over
repeated runs. ``python bench/engine.py --help`` for options.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file would shadow the engine package it measures.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402

RULES = ("simple", "simple_actions", "advanced")


def play_random_games(config: dict[str, object], games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` random-legal-action games; return (seconds, legal-action generations)."""
    rng = random.Random(seed)
    generations = 0
    start = time.process_time()
    for game in range(games):
        state = engine.new_game({**config, "seed": seed * 100_000 + game})
        while not engine.is_over(state):
            actions = engine.legal_actions(state)
            generations += 1
            state = engine.apply_action(state, rng.choice(actions))
    return time.process_time() - start, generations


def time_generations(config: dict[str, object], positions: int, seed: int) -> float:
    """Legal-action generations per second over positions taken from random games."""
    rng = random.Random(seed)
    states = []
    state = engine.new_game({**config, "seed": seed})
    while len(states) < positions:
        if engine.is_over(state):
            state = engine.new_game({**config, "seed": rng.randrange(1 << 30)})
        states.append(state)
        state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))
    start = time.process_time()
    for state in states:
        engine.legal_actions(state)
    return positions / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per configuration")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 6])
    parser.add_argument("--rules", nargs="*", default=list(RULES))
    args = parser.parse_args()
    print(f"{'players':>7} {'rules':<15} {'games/s':>9} {'actions/s':>10} {'legal gen/s':>12}")
    for players in args.players:
        for rules in args.rules:
            config: dict[str, object] = {"players": players, "rules": rules}
            rates, action_rates, gen_rates = [], [], []
            for repeat in range(args.repeats):
                seconds, steps = play_random_games(config, args.games, seed=repeat + 1)
                rates.append(args.games / seconds)
                action_rates.append(steps / seconds)
                gen_rates.append(time_generations(config, 2_000, seed=repeat + 1))
            print(
                f"{players:>7} {rules:<15} {statistics.median(rates):>9.0f} "
                f"{statistics.median(action_rates):>10.0f} {statistics.median(gen_rates):>12.0f}"
            )


if __name__ == "__main__":
    main()

"""Engine speed: random-legal-action games per second and legal-action generations per second.

Two paths over the same rules: the public JSON API (``legal_actions`` + ``apply_action``: a
fresh state and dict actions every step, log on) and the search path the AI plays on
(``search_copy``, ``moves``, ``play``: tuples, in place, no log). ``tests/engine/test_moves.py``
proves they make the same games. Runs on one core and counts CPU time of this process (steadier
on a shared machine than wall time; pin it with ``taskset -c 0``). Prints medians over repeated
runs. ``python bench/engine.py --help`` for options.
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


def public_games(config: dict[str, object], games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` random games through the JSON API; return (seconds, actions)."""
    rng = random.Random(seed)
    actions = 0
    start = time.process_time()
    for game in range(games):
        state = engine.new_game({**config, "seed": seed * 100_000 + game})
        while not engine.is_over(state):
            state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))
            actions += 1
    return time.process_time() - start, actions


def search_games(config: dict[str, object], games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` random games on the search path; return (seconds, actions)."""
    rng = random.Random(seed)
    actions = 0
    start = time.process_time()
    for game in range(games):
        state = engine.search_copy(engine.new_game({**config, "seed": seed * 100_000 + game}))
        while not state.over:
            engine.play(state, rng.choice(engine.moves(state)))
            actions += 1
    return time.process_time() - start, actions


def generations(config: dict[str, object], positions: int, seed: int) -> tuple[float, float]:
    """``legal_actions`` and ``moves`` calls per second over positions from random games."""
    rng = random.Random(seed)
    states = []
    state = engine.new_game({**config, "seed": seed})
    while len(states) < positions:
        if engine.is_over(state):
            state = engine.new_game({**config, "seed": rng.randrange(1 << 30)})
        states.append(state)
        state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))
    rates = []
    for generate in (engine.legal_actions, engine.moves):
        start = time.process_time()
        for state in states:
            generate(state)
        rates.append(positions / (time.process_time() - start))
    return rates[0], rates[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per configuration")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 6])
    parser.add_argument("--rules", nargs="*", default=list(RULES))
    args = parser.parse_args()
    print("games/s and actions/s: JSON API | search path; legal gen/s: legal_actions | moves")
    print(f"{'players':>7} {'rules':<15} {'games/s':>15} {'actions/s':>17} {'legal gen/s':>17}")
    for players in args.players:
        for rules in args.rules:
            config: dict[str, object] = {"players": players, "rules": rules}
            rows: list[list[float]] = []
            for repeat in range(args.repeats):
                seed = repeat + 1
                row = []
                for play in (public_games, search_games):
                    seconds, actions = play(config, args.games, seed)
                    row += [args.games / seconds, actions / seconds]
                rows.append([*row, *generations(config, 2_000, seed)])
            games, actions, fast_games, fast_actions, legal, moves = (
                statistics.median(column) for column in zip(*rows, strict=True)
            )
            print(
                f"{players:>7} {rules:<15} {games:>7.0f} | {fast_games:>5.0f} "
                f"{actions:>8.0f} | {fast_actions:>6.0f} {legal:>8.0f} | {moves:>6.0f}"
            )


if __name__ == "__main__":
    main()

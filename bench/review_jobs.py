"""How long a review job and a hint take on the server's path (issue 24; figures in docs/ai.md).

    python bench/review_jobs.py [--games 3] [--players 4] [--rounds 32]

For self-play games between Medium players: the CPU seconds of one process to review the whole
game chunk by chunk as a review job does (``app.games.reviews.judge_chunk``: each chunk replays the
game up to its first step), and the distribution of one hint's CPU time (one judgement from the
view of the seat to act, ``app.rooms.hints.hint_for``) over the game's decisions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file would shadow the packages it measures.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from app.games.reviews import CHUNK_DECISIONS, judge_chunk  # noqa: E402
from app.rooms.hints import hint_for  # noqa: E402
from bench.review import self_play  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=32, help="rounds per judged decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for game in range(args.games):
        seed = args.seed + game
        config = {"players": args.players, "rules": "advanced", "seed": seed}
        actions = self_play(config, seed)
        started = time.process_time()
        for start in range(0, len(actions), CHUNK_DECISIONS):
            stop = min(len(actions), start + CHUNK_DECISIONS)
            judge_chunk(config, actions, start, stop, args.rounds)
        job = time.process_time() - started
        hints = []
        state = engine.new_game(config)
        for step, action in enumerate(actions):
            view = engine.view_for(state, action["seat"])
            started = time.process_time()
            hint_for(view, action, args.rounds, step)
            hints.append(time.process_time() - started)
            state = engine.apply_action(state, action)
        quartiles = statistics.quantiles(hints, n=20)
        print(
            f"game {seed}: {len(actions)} decisions; review job {job:.1f} s CPU; "
            f"a hint: median {1000 * statistics.median(hints):.0f} ms, "
            f"95th percentile {1000 * quartiles[-1]:.0f} ms, largest {1000 * max(hints):.0f} ms"
        )


if __name__ == "__main__":
    main()

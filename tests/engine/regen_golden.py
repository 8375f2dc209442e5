"""Regenerate the golden playthroughs in ``golden/`` after a deliberate change.

Run ``python tests/engine/regen_golden.py`` (all games) or name some games; then review the diff
of ``tests/engine/golden/`` before committing it. The tests never regenerate anything.
"""

from __future__ import annotations

import argparse

from playthrough import GAMES, write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help=f"some of {', '.join(sorted(GAMES))}; default all")
    names = parser.parse_args().games or sorted(GAMES)
    unknown = sorted(set(names) - set(GAMES))
    if unknown:
        parser.error(f"no such game: {', '.join(unknown)}")
    for name in names:
        print(f"wrote {write(name)}")  # noqa: T201


if __name__ == "__main__":
    main()

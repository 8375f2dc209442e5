"""Golden playthroughs: every seat's view and legal actions at every step of a few
seeded games must match the recordings in ``golden/``.

A deliberate change to the rules or the views changes the recordings: regenerate them with
``python tests/engine/regen_golden.py`` and review the diff before committing it.
"""

from __future__ import annotations

import json

import pytest
from playthrough import GAMES, path_of, record

HINT = "if the change is deliberate, run `python tests/engine/regen_golden.py` and review the diff"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playthrough_matches_its_recording(name: str) -> None:
    path = path_of(name)
    assert path.exists(), f"{path.name} is missing: {HINT}"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = record(GAMES[name])
    for number, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            old, new = json.loads(want), json.loads(got)
            keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
            pytest.fail(f"{path.name} line {number + 1} differs in {keys}: {HINT}")
    assert len(actual) == len(expected), f"{path.name} has a different length: {HINT}"


def test_recordings_are_deterministic() -> None:
    name = "2p-advanced-draft"
    assert record(GAMES[name]) == record(GAMES[name])

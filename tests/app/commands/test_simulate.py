"""cash-stash simulate: duplicate-deal AI tournaments (issue 4)."""

from __future__ import annotations

import json

import pytest

import engine
from app.commands import simulate
from app.commands.cli import main

TWO = simulate.Tournament(lineup=("medium", "easy"), deals=2, rules="simple", seed=3)


def test_every_deal_is_played_once_per_seat_rotation() -> None:
    results = simulate.run(TWO, progress=False)
    assert [(game.deal, game.rotation) for game in results] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for game in results:
        assert sum(game.shares) == pytest.approx(1.0)
        assert game.margins[0] == -game.margins[1]


def test_a_duplicate_deal_replays_the_same_shuffle_with_seats_rotated() -> None:
    mirror = simulate.Tournament(lineup=("medium", "medium"), deals=1, rules="simple", seed=3)
    first, rotated = simulate.run(mirror, progress=False)
    assert first.margins == tuple(reversed(rotated.margins))


def test_the_summary_gives_win_rates_with_intervals_and_margins() -> None:
    rows = simulate.summarize(TWO, simulate.run(TWO, progress=False))
    assert [row["level"] for row in rows] == ["medium", "easy"]
    assert sum(row["win_rate"] for row in rows) == pytest.approx(1.0)
    for row in rows:
        low, high = row["ci95"]
        assert 0.0 <= low <= row["win_rate"] <= high <= 1.0
        assert row["games"] == 4
    assert "95% CI" in simulate.table(TWO, rows)


def test_the_command_prints_json_and_plays_on_several_processes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["simulate", "medium", "easy", "--rules", "simple", "--deals", "1", "--json"])
    single = json.loads(capsys.readouterr().out)
    main(
        ["simulate", "medium", "easy", "--rules", "simple", "--deals", "1", "--json", "--jobs", "2"]
    )
    assert json.loads(capsys.readouterr().out) == single
    assert single["tournament"]["lineup"] == ["medium", "easy"]
    assert {row["level"] for row in single["results"]} == {"medium", "easy"}


def test_a_configuration_the_rules_forbid_is_refused_before_playing() -> None:
    with pytest.raises(engine.InvalidConfig, match="Draft piles"):
        main(["simulate", "easy", "easy", "easy", "easy", "--draft", "--deals", "1"])


def test_hard_entrants_with_options_of_their_own_play_as_different_entrants() -> None:
    assert simulate.parse_entrant("hard:iterations=5,depth=0") == (
        "hard",
        {"iterations": 5, "depth": None},
    )
    assert simulate.parse_entrant("medium") == ("medium", {})
    duel = simulate.Tournament(
        lineup=("hard:iterations=3,depth=4", "hard:iterations=2,depth=0"), deals=1, seed=5
    )
    rows = simulate.summarize(duel, simulate.run(duel, progress=False))
    assert [row["level"] for row in rows] == list(duel.lineup)
    assert sum(row["win_rate"] for row in rows) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("expert", "no AI level 'expert'"),
        ("medium:iterations=5", "only Hard takes options"),
        ("hard:speed=5", "only Hard takes options"),
        ("hard:iterations=many", "'many' is not a number"),
    ],
)
def test_a_bad_entrant_is_refused_with_what_is_wrong(
    text: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match=problem):
        simulate.parse_entrant(text)
    with pytest.raises(SystemExit):
        main(["simulate", text, "easy"])
    assert problem in capsys.readouterr().err

"""Accuracy per seat (issue 32) and the calibration of win chances."""

from __future__ import annotations

import math
import random

from engine.ai.accuracy import accuracy, decision_accuracy
from engine.ai.calibration import (
    FITTED_KNOTS,
    Calibration,
    calibrated,
    fit_isotonic,
    fit_platt,
)
from engine.ai.review import summarize


def test_a_seat_whose_every_decision_was_best_has_accuracy_100() -> None:
    assert accuracy(decision_accuracy(drop, "best") for drop in (0.0, 0.01, 0.02)) == 100.0


def test_accuracy_stays_within_0_and_100_and_falls_with_the_drop() -> None:
    rng = random.Random(3)
    for _ in range(200):
        drops = [rng.random() for _ in range(rng.randrange(1, 30))]
        value = accuracy(decision_accuracy(drop, "blunder") for drop in drops)
        assert value is not None and 0.0 <= value <= 100.0
    scores = [decision_accuracy(drop / 100, "mistake") for drop in range(101)]
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] == 0.0


def test_a_decision_scores_as_lichess_formula_gives() -> None:
    """The figures docs/ai.md quotes: drops of 10, 20 and 50 points."""
    scores = [round(decision_accuracy(drop, "mistake"), 1) for drop in (0.1, 0.2, 0.5)]
    assert scores == [63.6, 40.0, 8.5]


def test_one_blunder_among_best_moves_costs_more_than_its_share() -> None:
    scores = [decision_accuracy(0.0, "best")] * 9 + [decision_accuracy(0.6, "blunder")]
    value = accuracy(scores)
    assert value is not None and value < sum(scores) / len(scores)


def test_a_seat_with_nothing_to_decide_has_no_accuracy() -> None:
    assert accuracy([]) is None


def test_a_summary_gives_each_seat_its_accuracy_counts_and_own_key_moments() -> None:
    judged = [
        {"step": 0, "seat": 0, "verdict": "best", "drop": 0.01, "win_before": 0.5},
        {"step": 1, "seat": 1, "verdict": "blunder", "drop": 0.4, "win_before": 0.6},
        {"step": 2, "seat": 0, "verdict": "mistake", "drop": 0.15, "win_before": 0.55},
        {"step": 3, "seat": 1, "verdict": "forced", "drop": 0.0, "win_before": 0.0},
        {"step": 4, "seat": 0, "verdict": "best", "drop": 0.0, "win_before": 0.4},
    ]
    summary = summarize({"players": 2}, judged)
    first, second = summary["seats"]
    assert first["verdicts"] == {"best": 2, "mistake": 1}
    assert first["key_moments"] == [2, 0]
    assert second["key_moments"] == [1]
    assert summary["key_moments"] == [1, 2, 0]
    assert 0 < second["accuracy"] < first["accuracy"] < 100


def test_isotonic_fit_is_monotone_and_matches_the_outcomes_it_saw() -> None:
    rng = random.Random(1)
    pairs = []
    for _ in range(5000):
        raw = rng.random()
        truth = 0.2 + 0.6 * raw  # over-confident raw chances
        pairs.append((raw, 1.0 if rng.random() < truth else 0.0))
    fitted = Calibration(fit_isotonic(pairs))
    values = [fitted(x / 100) for x in range(101)]
    assert values == sorted(values)
    assert abs(fitted(0.05) - 0.23) < 0.06
    assert abs(fitted(0.95) - 0.77) < 0.06


def test_platt_fit_finds_the_slope_of_over_confident_chances() -> None:
    """Outcomes drawn with log-odds half of the raw chances' (too sure by a factor of two):
    the fit halves them again, and its knots span 0 to 1 in order."""
    rng = random.Random(2)
    pairs = []
    for _ in range(20000):
        raw = min(max(rng.random(), 0.01), 0.99)
        logit = math.log(raw / (1 - raw))
        truth = 1 / (1 + math.exp(-0.5 * logit))
        pairs.append((raw, 1.0 if rng.random() < truth else 0.0))
    knots = fit_platt(pairs)
    fitted = Calibration(knots)
    assert [x for x, _ in knots] == sorted(x for x, _ in knots)
    assert knots[0][0] == 0.0 and knots[-1][0] == 1.0
    for raw in (0.05, 0.2, 0.5, 0.8, 0.95):
        truth = 1 / (1 + math.exp(-0.5 * math.log(raw / (1 - raw))))
        assert abs(fitted(raw) - truth) < 0.03, (raw, fitted(raw), truth)


def test_the_fitted_calibration_is_a_monotone_map_within_0_and_1() -> None:
    xs = [x for x, _ in FITTED_KNOTS]
    ys = [y for _, y in FITTED_KNOTS]
    assert xs == sorted(xs) and xs[0] == 0.0 and xs[-1] == 1.0
    assert ys == sorted(ys) and ys[0] >= 0.0 and ys[-1] <= 1.0
    assert [calibrated(x / 50) for x in range(51)] == sorted(calibrated(x / 50) for x in range(51))
